import type {
  AssistantMessage,
  TextContent,
  ThinkingContent,
  ToolCall,
  Usage,
} from "../../types/messages.js";
import { emptyUsage } from "../../types/messages.js";
import type { Model } from "../../types/model.js";
import type { AssistantMessageEvent, LlmContext, StreamFn, StreamOptions } from "../../types/stream.js";
import { abortableDelay } from "../abortable-delay.js";
import { StreamingArguments } from "../tool-call-arguments.js";
import type { ScriptedBlock, ScriptedReply } from "./scripted-reply.js";

/** A scripted turn: a fixed reply, or a function of the request (to react to tool results). */
export type ScriptedTurn = ScriptedReply | ((context: LlmContext, options: StreamOptions) => ScriptedReply);

/** A StreamFn that replays scripted replies, recording every request it receives. */
export interface ScriptedModel extends StreamFn {
  /** The requests received so far, in order. */
  readonly calls: { model: Model; context: LlmContext; options: StreamOptions }[];
  /** How many scripted turns have not been used yet. */
  remaining(): number;
}

/**
 * An offline model for tests and demos: each call consumes the next scripted turn and streams it as
 * `AssistantMessageEvent`s (start, text/thinking/toolcall triples, done or error). Honours the abort
 * signal at every event (ending with `error` reason "aborted" and the partial content). When the
 * script is exhausted the call ends with an error reply.
 *
 * ```ts
 * const model = scriptedModel([{ toolCalls: [{ name: "ls", arguments: {} }] }, { text: "Done." }]);
 * ```
 */
export function scriptedModel(turns: ScriptedTurn[]): ScriptedModel {
  const queue = [...turns];
  const calls: ScriptedModel["calls"] = [];
  const stream = (model: Model, context: LlmContext, options: StreamOptions) => {
    calls.push({ model, context, options });
    const turn = queue.shift();
    const reply: ScriptedReply =
      turn === undefined
        ? { error: `Scripted model has no reply left for call ${calls.length}` }
        : typeof turn === "function"
          ? turn(context, options)
          : turn;
    if (reply.throws !== undefined) throw new Error(reply.throws);
    return replay(reply, model, options.signal);
  };
  return Object.assign(stream, { calls, remaining: () => queue.length });
}

let toolCallCounter = 0;

function blocksOf(reply: ScriptedReply): ScriptedBlock[] {
  const blocks: ScriptedBlock[] = [...(reply.content ?? [])];
  if (reply.thinking !== undefined) blocks.push({ type: "thinking", thinking: reply.thinking });
  if (reply.text !== undefined) blocks.push(reply.text);
  for (const call of reply.toolCalls ?? []) blocks.push({ type: "toolCall", ...call });
  return blocks;
}

function splitIntoDeltas(text: string, deltas: number | undefined): string[] {
  const count = Math.max(1, deltas ?? Math.ceil(text.length / 4));
  const size = Math.max(1, Math.ceil(text.length / count));
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces.length > 0 ? pieces : [""];
}

function usageOf(reply: ScriptedReply): Usage {
  const usage = { ...emptyUsage(), ...reply.usage };
  if (reply.usage?.totalTokens === undefined) {
    usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  }
  return usage;
}

async function* replay(
  reply: ScriptedReply,
  model: Model,
  signal: AbortSignal | undefined,
): AsyncGenerator<AssistantMessageEvent> {
  const message: AssistantMessage = {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: usageOf(reply),
    stopReason: "stop",
    timestamp: Date.now(),
  };
  const pace = async () => {
    if (reply.delayMs) await abortableDelay(reply.delayMs, signal);
    return signal?.aborted === true;
  };
  /** The tool call whose arguments are streaming, if any. */
  let streaming: StreamingArguments | undefined;
  const abandonArguments = () => {
    streaming?.end("partial");
    streaming = undefined;
  };
  const aborted = (): AssistantMessageEvent => {
    abandonArguments();
    message.stopReason = "aborted";
    message.errorMessage = "Request was aborted";
    return { type: "error", reason: "aborted", error: message };
  };

  if (await pace()) return yield aborted();
  yield { type: "start", partial: message };
  for (const block of blocksOf(reply)) {
    const contentIndex = message.content.length;
    if (typeof block === "string" || block.type === "text" || block.type === "thinking") {
      const thinking = typeof block !== "string" && block.type === "thinking";
      const full = typeof block === "string" ? block : block.type === "text" ? block.text : block.thinking;
      const part: TextContent | ThinkingContent = thinking
        ? { type: "thinking", thinking: "" }
        : { type: "text", text: "" };
      message.content.push(part);
      const kind = thinking ? "thinking" : "text";
      if (await pace()) return yield aborted();
      yield { type: `${kind}_start`, contentIndex, partial: message };
      for (const delta of splitIntoDeltas(full, reply.deltas)) {
        if (await pace()) return yield aborted();
        if (part.type === "text") part.text += delta;
        else part.thinking += delta;
        yield { type: `${kind}_delta`, contentIndex, delta, partial: message };
      }
      yield { type: `${kind}_end`, contentIndex, content: full, partial: message };
    } else {
      const toolCall: ToolCall = {
        type: "toolCall",
        id: block.id ?? `call_${++toolCallCounter}`,
        name: block.name,
        arguments: {},
      };
      message.content.push(toolCall);
      const args = new StreamingArguments(toolCall);
      streaming = args;
      const cut = reply.stopReason === "length";
      let parsed: boolean;
      try {
        if (await pace()) return yield aborted();
        yield { type: "toolcall_start", contentIndex, partial: message };
        const json = block.rawArguments ?? JSON.stringify(block.arguments);
        for (const delta of splitIntoDeltas(json, reply.deltas)) {
          if (await pace()) return yield aborted();
          args.append(delta);
          yield { type: "toolcall_delta", contentIndex, delta, partial: message };
        }
        parsed = args.end(cut ? "empty" : "mark");
        streaming = undefined;
      } finally {
        abandonArguments(); // the consumer stopped reading mid-call: leave plain data behind
      }
      if (block.arguments !== undefined) toolCall.arguments = block.arguments; // the scripted object itself
      if (parsed || !cut) yield { type: "toolcall_end", contentIndex, toolCall, partial: message };
    }
  }
  if (reply.hang) {
    await abortableDelay(Number.POSITIVE_INFINITY, signal);
    return yield aborted();
  }
  if (await pace()) return yield aborted();
  if (reply.error !== undefined) {
    message.stopReason = "error";
    message.errorMessage = reply.error;
    yield { type: "error", reason: "error", error: message };
  } else {
    const hasToolCalls = message.content.some((block) => block.type === "toolCall");
    message.stopReason = reply.stopReason ?? (hasToolCalls ? "toolUse" : "stop");
    yield { type: "done", reason: message.stopReason, message };
  }
  for (let extra = 0; extra < (reply.eventsAfterDone ?? 0); extra++) {
    yield { type: "text_delta", contentIndex: 0, delta: "late", partial: message };
  }
}

import { Allow, parse as parsePartialJson } from "partial-json";
import { from, type Subscription } from "rxjs";
import { fromCallback } from "xstate";
import { defaultConvertToLlm, failedAssistantMessage } from "../loop/messages.js";
import type {
  StreamActorCommand,
  StreamActorEvent,
  StreamedReply,
  StreamReplyOutput,
} from "../machines/agent/agent.events.js";
import {
  type AgentCallbacks,
  type AgentImplementations,
  activeTools,
  callbackContextOf,
} from "../machines/agent/agent.implementations.js";
import { toToolSpec } from "../tools/define-tool.js";
import { errorText } from "../types/error-text.js";
import type { AgentEvent } from "../types/events.js";
import type { GuardrailOutcome } from "../types/guardrail.js";
import type { AgentEventSink } from "../types/loop.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import { FINAL_ANSWER_TOOL } from "../types/output.js";
import type { AssistantMessageEvent, OutputRequest, StreamOptions, ToolSpec } from "../types/stream.js";
import { STREAM_OPTION_KEYS } from "../types/stream-option-keys.js";
import type { AgentTool } from "../types/tool.js";
import { inputCheckContext, runGuardrails } from "./guardrails.actor.js";

export interface StreamReplyInput {
  callbacks: AgentCallbacks;
  model: Model;
  thinkingLevel: ThinkingLevel;
  systemPrompt: string;
  messages: AgentMessage[];
  tools: AgentTool[];
  /** Stream options of the context (data); they win over the callbacks' (keys, headers, hooks). */
  streamOptions: Partial<Record<string, unknown>>;
  /** The model call's signal (the stream actor's): aborting it ends the reply at once with the partial content. */
  signal: AbortSignal;
  sink: AgentEventSink;
  /** The typed output the reply should carry (`output_delta` events go to the sink). */
  output?: ReplyOutput;
  /** The active handoff agent's view of the transcript (applied before `transformContext`). */
  inputFilter?: (messages: AgentMessage[]) => AgentMessage[] | Promise<AgentMessage[]>;
}

/** The typed output asked of one reply: by response format, or by the final-answer tool. */
export interface ReplyOutput {
  request: OutputRequest;
  /** Offer the final-answer tool (tools are active) instead of asking for a response format. */
  viaTool: boolean;
  /** The final-answer tool takes a non-object schema as its `value` argument. */
  wrapped: boolean;
}

const FINAL_ANSWER_DESCRIPTION =
  "Give the final answer of the task, once you are done: its arguments are the answer. Call it alone, as the last call.";

/** The final-answer tool's spec for `output` (a non-object schema becomes its `value` argument). */
export function finalAnswerSpec(output: ReplyOutput): ToolSpec {
  const schema = output.request.schema;
  return {
    name: FINAL_ANSWER_TOOL,
    description: FINAL_ANSWER_DESCRIPTION,
    parameters: output.wrapped
      ? { type: "object", properties: { value: schema }, required: ["value"], additionalProperties: false }
      : schema,
  };
}

/**
 * The options a StreamFn receives: the allowlisted fields of `persisted`, else of `callbacks`, then the
 * reasoning level and the signal. Nothing else of an agent's options reaches the StreamFn.
 */
export function streamOptionsOf(
  persisted: Partial<Record<string, unknown>>,
  callbacks: object,
  thinkingLevel: ThinkingLevel,
  signal: AbortSignal,
): StreamOptions {
  const options: Record<string, unknown> = {};
  const fallback = callbacks as Partial<Record<string, unknown>>;
  for (const key of STREAM_OPTION_KEYS) {
    const value = persisted[key] ?? fallback[key];
    if (value !== undefined) options[key] = value;
  }
  if (thinkingLevel !== "off") options.reasoning = thinkingLevel;
  options.signal = signal;
  return options as StreamOptions;
}

/**
 * Streams one assistant reply: transformContext → convertToLlm → StreamFn, forwarding deltas to the
 * sink directly (they never pass through the interpreter). Always resolves with a final message:
 * failures and contract violations of the StreamFn become `stopReason: "error"`, an abort of the run
 * signal becomes `stopReason: "aborted"` immediately, even if the StreamFn ignores the signal.
 */
export function streamReply(input: StreamReplyInput): Promise<StreamReplyOutput> {
  const { callbacks, model, signal, sink } = input;
  let partial: AssistantMessage | undefined;
  let started = false;
  let subscription: Subscription | undefined;

  return new Promise<StreamReplyOutput>((resolve) => {
    let settled = false;
    const finish = (message: AssistantMessage) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      subscription?.unsubscribe();
      resolve({ message, started });
    };
    const fail = (reason: "error" | "aborted", text: string) =>
      finish(failedAssistantMessage(model, reason, text, partial));
    const onAbort = () => fail("aborted", "Request was aborted");
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });

    const showOutput = input.output && outputDeltas(input.output, sink);
    const markStarted = (message: AssistantMessage) => {
      partial = message;
      if (started) return;
      started = true;
      sink({ type: "message_start", message });
    };
    const onEvent = (event: AssistantMessageEvent) => {
      if (settled) return;
      switch (event?.type) {
        case "done":
          return isAssistantMessage(event.message)
            ? finish(event.message)
            : fail("error", "Provider sent a done event without a message");
        case "error":
          if (!isAssistantMessage(event.error))
            return fail("error", "Provider sent an error event without a message");
          if (event.error.stopReason !== "error" && event.error.stopReason !== "aborted") {
            event.error.stopReason = event.reason === "aborted" ? "aborted" : "error";
          }
          return finish(event.error);
        case "start":
          return markStarted(event.partial);
        case undefined:
          return fail("error", "Provider sent an event without a type");
        default:
          markStarted(event.partial ?? partial ?? failedAssistantMessage(model, "error", ""));
          sink({
            type: "message_update",
            message: partial as AssistantMessage,
            assistantMessageEvent: event,
          });
          showOutput?.(event);
      }
    };

    (async () => {
      const seen = input.inputFilter ? await input.inputFilter(input.messages) : input.messages;
      const transformed = callbacks.transformContext ? await callbacks.transformContext(seen, signal) : seen;
      const messages = callbacks.convertToLlm
        ? await callbacks.convertToLlm(transformed)
        : defaultConvertToLlm(transformed);
      if (settled) return;
      const tools = input.tools.map(toToolSpec);
      const output = input.output;
      if (output?.viaTool) tools.push(finalAnswerSpec(output));
      const source = await callbacks.streamFn(
        model,
        {
          systemPrompt: input.systemPrompt,
          messages,
          tools,
          ...(output && !output.viaTool ? { output: output.request } : {}),
        },
        streamOptionsOf(input.streamOptions, callbacks, input.thinkingLevel, signal),
      );
      if (settled) return;
      subscription = from(source).subscribe({
        next: onEvent,
        error: (error: unknown) => fail("error", `Provider stream failed: ${errorText(error)}`),
        complete: () => fail("error", "Provider stream ended without a final event"),
      });
      if (settled) subscription.unsubscribe();
    })().catch((error: unknown) => fail("error", errorText(error)));
  });
}

/**
 * Emits `output_delta` with the value parsed so far from the reply's JSON text (response format) or
 * the final-answer call's arguments (tool), whenever it changed. The text is parsed again once it has
 * grown by an eighth since the last parse (at once while short) and when the block ends, so a long
 * output costs O(length) in all, not a parse of the whole text per delta.
 */
function outputDeltas(output: ReplyOutput, sink: AgentEventSink): (event: AssistantMessageEvent) => void {
  let text = "";
  let parsedAt = 0;
  let last = "";
  const due = () => {
    if (text.length - parsedAt < parsedAt / 8) return false;
    parsedAt = text.length;
    return true;
  };
  const show = (partial: unknown) => {
    if (partial === undefined) return;
    const json = JSON.stringify(partial);
    if (json === last) return;
    last = json;
    sink({ type: "output_delta", partial });
  };
  return (event) => {
    if (output.viaTool) {
      if (event.type !== "toolcall_delta" && event.type !== "toolcall_end") return;
      const block = event.partial.content[event.contentIndex];
      if (block?.type !== "toolCall" || block.name !== FINAL_ANSWER_TOOL) return;
      if (event.type === "toolcall_delta") text += event.delta;
      if (event.type === "toolcall_delta" && !due()) return;
      const args = block.arguments as Record<string, unknown>;
      show(output.wrapped ? args.value : args);
      return;
    }
    if (event.type === "text_delta") text += event.delta;
    if (event.type !== "text_end" && (event.type !== "text_delta" || !due())) return;
    const body = text.startsWith("```") ? text.slice(text.indexOf("\n") + 1 || text.length) : text;
    if (body.trim() === "") return;
    try {
      show(parsePartialJson(body, Allow.ALL));
    } catch {
      // Not JSON (yet): nothing to show.
    }
  };
}

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as AssistantMessage).role === "assistant" &&
    Array.isArray((value as AssistantMessage).content)
  );
}

/** The request of one model call as data: the `streaming` state's input to the stream actor. */
export interface StreamRequest {
  model: Model;
  thinkingLevel: ThinkingLevel;
  systemPrompt: string;
  messages: AgentMessage[];
  toolNames: string[];
  streamOptions: Partial<Record<string, unknown>>;
  toolExecution: "parallel" | "sequential";
  /** Hold every event of the reply for the output guardrails (they are handed over with the reply). */
  hold: boolean;
  /** Check these prompt messages with the parallel input guardrails beside the model call. */
  inputCheck?: AgentMessage[];
  output?: ReplyOutput;
  /** The agent a handoff made active: its `inputFilter` shapes what the model sees. */
  activeAgent?: string;
}

/**
 * The stream actor invoked by the `streaming` state (`createAgentMachine` provides it with the agent's
 * implementations): takes the request as data and sends its agent the reply's events — batched per
 * microtask, so a burst of deltas costs the agent one macrostep — then the reply. While held it keeps
 * the events and hands them over with the reply. Parallel input guardrails run beside the model call;
 * its events wait until they pass, and a trip cuts the call. Its AbortController is its own: `ABORT`
 * (sent by the agent) or a stop aborts it, and the StreamFn follows its signal.
 *
 * Contract: never fails; every outcome of the model call is a `REPLY_STREAMED` reply.
 */
export function streamReplyActor(implementations: AgentImplementations) {
  return fromCallback<StreamActorCommand, StreamRequest>(({ input, sendBack, receive }) => {
    const controller = new AbortController();
    receive((event) => {
      if (event.type === "ABORT") controller.abort();
    });
    let batch: AgentEvent[] = [];
    const flush = () => {
      if (batch.length === 0) return;
      const events = batch;
      batch = [];
      sendBack({ type: "REPLY_EVENTS", events });
    };
    const emit = (event: AgentEvent) => {
      if (batch.push(event) === 1) queueMicrotask(flush);
    };
    let finished = false;
    const streamed = (reply: StreamedReply) => {
      finished = true;
      flush();
      sendBack({ type: "REPLY_STREAMED", reply } satisfies StreamActorEvent);
    };
    streamRequested(implementations, input, controller.signal, emit).then(streamed, (error: unknown) =>
      streamed({
        message: failedAssistantMessage(input.model, "error", errorText(error)),
        started: false,
        sequential: false,
        held: false,
      }),
    );
    // Stopped mid-reply (an abort, the agent stopped): the StreamFn's signal fires.
    return () => {
      if (!finished) controller.abort();
    };
  });
}

async function streamRequested(
  implementations: AgentImplementations,
  input: StreamRequest,
  signal: AbortSignal,
  emit: AgentEventSink,
): Promise<StreamedReply> {
  const tools = activeTools(implementations, input.toolNames);
  const held: AgentEvent[] = [];
  let live = !input.hold && !input.inputCheck;
  // A reply nobody holds goes straight to the listeners: no extra call per delta.
  const sink: AgentEventSink = live ? emit : (event) => (live ? emit(event) : held.push(event));
  let inputTrip: GuardrailOutcome | undefined;
  let cut: AbortController | undefined;
  let check: Promise<void> | undefined;
  if (input.inputCheck) {
    const parallel = implementations.guardrails.input.filter((guardrail) => guardrail.mode === "parallel");
    cut = new AbortController();
    const agent = callbackContextOf(implementations, input);
    check = runGuardrails(parallel, inputCheckContext(agent, input.inputCheck), signal).then((outcome) => {
      if (outcome.trip) {
        inputTrip = outcome;
        cut!.abort();
      } else if (!input.hold) {
        live = true;
        for (const event of held.splice(0)) emit(event);
      }
    });
  }
  const filter = input.activeAgent ? implementations.handoffs.get(input.activeAgent)?.inputFilter : undefined;
  const reply = await streamReply({
    callbacks: implementations.callbacks,
    model: input.model,
    thinkingLevel: input.thinkingLevel,
    systemPrompt: input.systemPrompt,
    messages: input.messages,
    tools,
    streamOptions: input.streamOptions,
    signal: cut ? AbortSignal.any([signal, cut.signal]) : signal,
    sink,
    ...(input.output ? { output: input.output } : {}),
    ...(filter ? { inputFilter: filter } : {}),
  });
  await check;
  if (inputTrip) return { ...reply, started: false, sequential: false, held: false, inputTrip };
  const sequential =
    input.toolExecution === "sequential" ||
    reply.message.content.some(
      (block) =>
        block.type === "toolCall" && implementations.tools.get(block.name)?.executionMode === "sequential",
    );
  return { ...reply, sequential, held: !live, ...(live ? {} : { heldEvents: held }) };
}

import type {
  AssistantMessage,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCall,
} from "../types/messages.js";
import { emptyUsage } from "../types/messages.js";
import type { Model } from "../types/model.js";
import type { AssistantMessageEvent } from "../types/stream.js";
import { StreamingArguments } from "./tool-call-arguments.js";

/** `textSignature` of a text block that holds the model's refusal. */
export const REFUSAL_SIGNATURE = "refusal";

/** A tool call whose arguments are still arriving as JSON text. */
interface OpenToolCall {
  block: ToolCall;
  contentIndex: number;
  args: StreamingArguments;
}

/** The text or thinking block that deltas are currently appended to. */
interface OpenSequentialBlock {
  kind: "text" | "thinking";
  key: string;
  contentIndex: number;
}

/**
 * Builds one assistant message from provider deltas and queues the matching
 * `AssistantMessageEvent`s. Both OpenAI wire protocols (Chat Completions, Responses) and the AI SDK
 * adapter (`agentchart/ai-sdk`) drive it, so the event rules live in one place:
 *
 * - text and thinking are sequential: a delta of another kind (or another `key`) closes the open
 *   block (`*_end`) and opens a new one (`*_start`);
 * - tool calls may interleave (keyed by the provider's index); each stays open until `endToolCall` or
 *   `finish`, where its JSON arguments are parsed. Meanwhile the block's `arguments` shows a
 *   best-effort parse of the JSON received so far (`StreamingArguments`, parsed only when read).
 *   Malformed JSON in a finished call gives `arguments: {}` plus `invalidArguments`, and the reply
 *   ends normally so the loop can answer that call with an error;
 * - every event carries the same mutable `partial` message object.
 *
 * The stream drains the queue with `takeEvents()` after feeding each provider chunk.
 */
export class PartialMessageBuilder {
  readonly message: AssistantMessage;
  private events: AssistantMessageEvent[] = [];
  private sequential: OpenSequentialBlock | undefined;
  private readonly toolCalls = new Map<string | number, OpenToolCall>();
  private generatedIds = 0;

  constructor(model: Model, api: string) {
    this.message = {
      role: "assistant",
      content: [],
      api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
  }

  /** Returns the queued events and starts a new queue. */
  takeEvents(): AssistantMessageEvent[] {
    const taken = this.events;
    if (taken.length > 0) this.events = [];
    return taken;
  }

  /** True when at least one tool call block was started. */
  get hasToolCalls(): boolean {
    return this.toolCalls.size > 0;
  }

  start(): void {
    this.events.push({ type: "start", partial: this.message });
  }

  /**
   * Appends visible text; `key` separates distinct output messages (Responses API items);
   * `signature` (e.g. "refusal") becomes the block's `textSignature`.
   */
  appendText(delta: string, key = "", signature?: string): void {
    const index = this.openSequential("text", key, signature);
    const block = this.message.content[index] as { text: string };
    block.text += delta;
    this.events.push({ type: "text_delta", contentIndex: index, delta, partial: this.message });
  }

  /**
   * Appends refusal text (Chat `delta.refusal`, Responses `response.refusal.delta`): a text block of
   * its own whose `textSignature` is "refusal", so it is shown and resent like any text.
   */
  appendRefusal(delta: string, key = ""): void {
    this.appendText(delta, `refusal:${key}`, REFUSAL_SIGNATURE);
  }

  /** Appends reasoning text; `signature` records where it came from (e.g. "reasoning_content"). */
  appendThinking(delta: string, key = "", signature?: string): void {
    const index = this.openSequential("thinking", key, signature);
    const block = this.message.content[index] as { thinking: string };
    block.thinking += delta;
    this.events.push({ type: "thinking_delta", contentIndex: index, delta, partial: this.message });
  }

  /**
   * Sets the signature of the text or thinking block for `key` (opening an empty one when none is
   * open: Anthropic may sign a thinking block whose text it withholds): `textSignature` /
   * `thinkingSignature`, which the next request sends back.
   */
  sign(kind: "text" | "thinking", key: string, signature: string): void {
    const block = this.message.content[this.openSequential(kind, key)] as TextContent | ThinkingContent;
    if (block.type === "text") block.textSignature = signature;
    else block.thinkingSignature = signature;
  }

  /**
   * Adds a redacted thinking block: no readable text, only the provider's encrypted `data` (kept as
   * `thinkingSignature`, with `redacted: true`) to be sent back unchanged.
   */
  addRedactedThinking(data: string, key = ""): void {
    const contentIndex = this.openSequential("thinking", `redacted:${key}`);
    const block = this.message.content[contentIndex] as ThinkingContent;
    block.thinkingSignature = data;
    block.redacted = true;
    this.closeSequential();
  }

  /** Sets the signature a provider attached to a tool call (Gemini's `thoughtSignature`). */
  signToolCall(key: string | number, signature: string): void {
    const open = this.toolCalls.get(key);
    if (open !== undefined) open.block.thoughtSignature = signature;
  }

  /** Closes the text or thinking block for `key` if it is the open one (a provider's `*-end`). */
  closeBlock(kind: "text" | "thinking", key: string): void {
    if (this.sequential?.kind === kind && this.sequential.key === key) this.closeSequential();
  }

  /** Closes the open text or thinking block, if any (`text_end` / `thinking_end`). */
  closeSequential(): void {
    const open = this.sequential;
    if (open === undefined) return;
    this.sequential = undefined;
    const block = this.message.content[open.contentIndex] as TextContent | ThinkingContent;
    if (block.type === "text") {
      this.events.push({
        type: "text_end",
        contentIndex: open.contentIndex,
        content: block.text,
        partial: this.message,
      });
    } else {
      this.events.push({
        type: "thinking_end",
        contentIndex: open.contentIndex,
        content: block.thinking,
        partial: this.message,
      });
    }
  }

  /**
   * Starts a tool call block for `key` unless one exists, then fills in the id and name when they
   * are known. Servers that never send an id get a generated one.
   */
  upsertToolCall(key: string | number, id: string | undefined, name: string | undefined): void {
    let open = this.toolCalls.get(key);
    if (open === undefined) {
      this.closeSequential();
      const block: ToolCall = { type: "toolCall", id: id ?? "", name: name ?? "", arguments: {} };
      open = { block, contentIndex: this.message.content.length, args: new StreamingArguments(block) };
      this.message.content.push(block);
      this.toolCalls.set(key, open);
      this.events.push({ type: "toolcall_start", contentIndex: open.contentIndex, partial: this.message });
      return;
    }
    if (id && !open.block.id) open.block.id = id;
    if (name && !open.block.name) open.block.name = name;
  }

  /** Appends a fragment of a tool call's JSON arguments. */
  appendToolCallArguments(key: string | number, delta: string): void {
    const open = this.toolCalls.get(key);
    if (open === undefined || open.contentIndex < 0 || delta === "") return;
    open.args.append(delta);
    this.events.push({
      type: "toolcall_delta",
      contentIndex: open.contentIndex,
      delta,
      partial: this.message,
    });
  }

  /**
   * Ends one tool call: parses its JSON (or `finalArguments` when the server sends the whole text)
   * and queues `toolcall_end`. Malformed JSON gives `arguments: {}` plus `invalidArguments`; with
   * `truncated` (a reply cut at "length") it gives `{}` only and queues no `toolcall_end`.
   */
  endToolCall(key: string | number, finalArguments?: string, truncated = false): void {
    const open = this.toolCalls.get(key);
    if (open === undefined || open.contentIndex < 0) return;
    const contentIndex = open.contentIndex;
    open.contentIndex = -1; // marks the call as ended; the key stays known
    if (finalArguments !== undefined) open.args.replace(finalArguments);
    if (!open.block.id) open.block.id = `call_${Date.now().toString(36)}_${this.generatedIds++}`;
    const parsed = open.args.end(truncated ? "empty" : "mark");
    if (parsed || !truncated) {
      this.events.push({ type: "toolcall_end", contentIndex, toolCall: open.block, partial: this.message });
    }
  }

  /** Closes every open block, in content order. `truncated`: see `endToolCall`. */
  closeAll(truncated: boolean): void {
    this.closeSequential();
    for (const key of [...this.toolCalls.keys()]) this.endToolCall(key, undefined, truncated);
  }

  /**
   * Closes every open block and queues the final event. A reply cut at "length" keeps `{}` for
   * unfinished arguments (the loop reports those calls as truncated).
   */
  finish(stopReason: StopReason, errorMessage?: string): void {
    this.closeAll(stopReason === "length");
    if (stopReason === "stop" && this.hasToolCalls) stopReason = "toolUse";
    this.message.stopReason = stopReason;
    if (stopReason === "error" || stopReason === "aborted") {
      this.message.errorMessage =
        errorMessage ?? (stopReason === "aborted" ? "Request was aborted" : "Unknown error");
      this.events.push({ type: "error", reason: stopReason, error: this.message });
    } else {
      this.events.push({ type: "done", reason: stopReason, message: this.message });
    }
  }

  /**
   * Ends the reply after a failure, keeping the partial content. Open tool calls keep the arguments
   * parsed so far; no `*_end` events are queued after a failure.
   */
  fail(errorMessage: string, aborted: boolean): void {
    this.abandonToolCalls();
    this.sequential = undefined;
    const reason = aborted ? "aborted" : "error";
    this.message.stopReason = reason;
    this.message.errorMessage = errorMessage;
    this.events.push({ type: "error", reason, error: this.message });
  }

  /**
   * Gives every open tool call the arguments parsed so far, as plain data, without `toolcall_end`:
   * for a reply that failed, or whose consumer stopped reading.
   */
  abandonToolCalls(): void {
    for (const open of this.toolCalls.values()) {
      if (open.contentIndex < 0) continue;
      open.contentIndex = -1;
      open.args.end("partial");
    }
  }

  private openSequential(kind: "text" | "thinking", key: string, signature?: string): number {
    const open = this.sequential;
    if (open !== undefined && open.kind === kind && open.key === key) return open.contentIndex;
    this.closeSequential();
    const contentIndex = this.message.content.length;
    if (kind === "text") {
      this.message.content.push(
        signature === undefined
          ? { type: "text", text: "" }
          : { type: "text", text: "", textSignature: signature },
      );
      this.events.push({ type: "text_start", contentIndex, partial: this.message });
    } else {
      this.message.content.push(
        signature === undefined
          ? { type: "thinking", thinking: "" }
          : { type: "thinking", thinking: "", thinkingSignature: signature },
      );
      this.events.push({ type: "thinking_start", contentIndex, partial: this.message });
    }
    this.sequential = { kind, key, contentIndex };
    return contentIndex;
  }
}

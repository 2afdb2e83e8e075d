import { StreamingArguments } from "../providers/tool-call-arguments.js";
import type { AssistantMessage, TextContent, ThinkingContent, ToolCall } from "../types/messages.js";
import type { AssistantMessageEvent } from "../types/stream.js";
import type { RecordedModelCall } from "./recording-format.js";

/**
 * The recorded reply of `call` as stream events again, each with `partial` rebuilt from the events
 * before it (one mutable message, as providers stream). A reply that was aborted plays up to the abort
 * and then waits for `signal` (`parked` is called then), so the abort lands at the recorded point; an
 * abort of `signal` before the end ends the reply as aborted at once, with the content so far.
 *
 * Contract: throws (as the recorded StreamFn did) the recorded error of a call that threw, and an
 * `Error` for a reply the recording holds no final event of (a truncated recording).
 */
export async function* replayedReply(
  call: RecordedModelCall,
  signal: AbortSignal | undefined,
  parked: () => void,
): AsyncGenerator<AssistantMessageEvent> {
  if (call.error !== undefined) throw new Error(call.error);
  const reply = call.reply;
  if (!reply) throw new Error("The recording ends during this reply (no final event was recorded)");
  const partial: AssistantMessage = { ...structuredClone(reply), content: [], stopReason: "stop" };
  delete partial.errorMessage;
  const streaming = new Map<number, StreamingArguments>();
  const aborted = (): AssistantMessageEvent => {
    for (const args of streaming.values()) args.end("partial");
    return {
      type: "error",
      reason: "aborted",
      error: { ...partial, stopReason: "aborted", errorMessage: "Request was aborted" },
    };
  };
  for (const recorded of call.events) {
    const event = recorded as AssistantMessageEvent;
    if (event.type === "error" && event.reason === "aborted" && !signal?.aborted) {
      // The recorded content at the abort (a provider's mutable message may hold more than its events said).
      for (const args of streaming.values()) args.end("partial");
      partial.content.splice(0, partial.content.length, ...structuredClone(reply.content));
      parked();
      await new Promise<void>((resolve) =>
        signal?.addEventListener("abort", () => resolve(), { once: true }),
      );
    }
    if (signal?.aborted && event.type !== "error") return yield aborted();
    const final = reply.content[(event as { contentIndex?: number }).contentIndex ?? -1];
    switch (event.type) {
      case "start":
        yield { type: "start", partial };
        break;
      case "text_start":
      case "thinking_start": {
        const block: TextContent | ThinkingContent =
          event.type === "text_start" ? { type: "text", text: "" } : { type: "thinking", thinking: "" };
        partial.content[event.contentIndex] = block;
        yield { ...event, partial };
        break;
      }
      case "text_delta":
      case "thinking_delta": {
        const block = partial.content[event.contentIndex];
        if (block?.type === "text") block.text += event.delta;
        else if (block?.type === "thinking") block.thinking += event.delta;
        yield { ...event, partial };
        break;
      }
      case "text_end":
      case "thinking_end":
        if (final) partial.content[event.contentIndex] = structuredClone(final);
        yield { ...event, partial };
        break;
      case "toolcall_start": {
        const recordedCall = final as ToolCall | undefined;
        const block: ToolCall = {
          type: "toolCall",
          id: recordedCall?.id ?? "",
          name: recordedCall?.name ?? "",
          arguments: {},
        };
        partial.content[event.contentIndex] = block;
        streaming.set(event.contentIndex, new StreamingArguments(block));
        yield { ...event, partial };
        break;
      }
      case "toolcall_delta":
        streaming.get(event.contentIndex)?.append(event.delta);
        yield { ...event, partial };
        break;
      case "toolcall_end": {
        streaming.delete(event.contentIndex);
        const toolCall = structuredClone(event.toolCall);
        partial.content[event.contentIndex] = toolCall;
        yield { ...event, toolCall, partial };
        break;
      }
      case "done":
        yield { type: "done", reason: event.reason, message: structuredClone(reply) };
        return;
      case "error":
        yield { type: "error", reason: event.reason, error: structuredClone(reply) };
        return;
    }
  }
  throw new Error("The recording ends during this reply (no final event was recorded)");
}

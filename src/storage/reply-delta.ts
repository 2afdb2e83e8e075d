import type { AssistantMessage } from "../types/messages.js";
import type { AssistantMessageEvent } from "../types/stream.js";

/**
 * One streaming step of an assistant reply as a session store records it: an
 * `AssistantMessageEvent` without its `partial` message (which repeats the whole reply so far), so
 * that a reader in another process can rebuild the reply step by step. Plain JSON.
 */
export type ReplyDelta =
  | {
      type: "text_start" | "thinking_start" | "text_end" | "thinking_end" | "toolcall_end";
      contentIndex: number;
    }
  | { type: "text_delta" | "thinking_delta" | "toolcall_delta"; contentIndex: number; delta: string }
  | { type: "toolcall_start"; contentIndex: number; id: string; name: string };

/**
 * The {@link ReplyDelta} of a streaming event, or `undefined` for the events that are not steps of
 * the content (`start`, `done`, `error`: the stored message says how the reply ended).
 *
 * Contract: pure, synchronous, never throws.
 *
 * ```ts
 * import { emptyUsage, type AssistantMessage } from "agentchart";
 * const partial: AssistantMessage = {
 *   role: "assistant", content: [{ type: "text", text: "Hi" }], api: "openai.chat", provider: "openai",
 *   model: "gpt-4.1-mini", usage: emptyUsage(), stopReason: "stop", timestamp: Date.now(),
 * };
 * replyDeltaOf({ type: "text_delta", contentIndex: 0, delta: "Hi", partial }); // { type: "text_delta", contentIndex: 0, delta: "Hi" }
 * ```
 */
export function replyDeltaOf(event: AssistantMessageEvent): ReplyDelta | undefined {
  switch (event.type) {
    case "text_start":
    case "thinking_start":
    case "text_end":
    case "thinking_end":
    case "toolcall_end":
      return { type: event.type, contentIndex: event.contentIndex };
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return { type: event.type, contentIndex: event.contentIndex, delta: event.delta };
    case "toolcall_start": {
      const block = event.partial.content[event.contentIndex];
      if (block?.type !== "toolCall") return undefined;
      return { type: "toolcall_start", contentIndex: event.contentIndex, id: block.id, name: block.name };
    }
    default:
      return undefined;
  }
}

/**
 * Applies a delta to a reply being rebuilt (its `content` grows in place) and returns the streaming
 * event a live reader would have seen for it, with `partial` set to `reply`.
 *
 * Contract: synchronous, never throws; a delta for a block the reply lacks adds that block.
 *
 * ```ts
 * import { emptyUsage, type AssistantMessage } from "agentchart";
 * const reply: AssistantMessage = {
 *   role: "assistant", content: [], api: "openai.chat", provider: "openai",
 *   model: "gpt-4.1-mini", usage: emptyUsage(), stopReason: "stop", timestamp: Date.now(),
 * };
 * const event = applyReplyDelta(reply, { type: "text_start", contentIndex: 0 }); // reply.content: [{ type: "text", text: "" }]
 * ```
 */
export function applyReplyDelta(reply: AssistantMessage, delta: ReplyDelta): AssistantMessageEvent {
  const index = delta.contentIndex;
  switch (delta.type) {
    case "text_start":
      reply.content[index] = { type: "text", text: "" };
      return { type: "text_start", contentIndex: index, partial: reply };
    case "thinking_start":
      reply.content[index] = { type: "thinking", thinking: "" };
      return { type: "thinking_start", contentIndex: index, partial: reply };
    case "toolcall_start":
      reply.content[index] = { type: "toolCall", id: delta.id, name: delta.name, arguments: {} };
      return { type: "toolcall_start", contentIndex: index, partial: reply };
    case "text_delta": {
      const block = reply.content[index];
      if (block?.type === "text") block.text += delta.delta;
      return { type: "text_delta", contentIndex: index, delta: delta.delta, partial: reply };
    }
    case "thinking_delta": {
      const block = reply.content[index];
      if (block?.type === "thinking") block.thinking += delta.delta;
      return { type: "thinking_delta", contentIndex: index, delta: delta.delta, partial: reply };
    }
    case "toolcall_delta":
      return { type: "toolcall_delta", contentIndex: index, delta: delta.delta, partial: reply };
    case "text_end": {
      const block = reply.content[index];
      return {
        type: "text_end",
        contentIndex: index,
        content: block?.type === "text" ? block.text : "",
        partial: reply,
      };
    }
    case "thinking_end": {
      const block = reply.content[index];
      return {
        type: "thinking_end",
        contentIndex: index,
        content: block?.type === "thinking" ? block.thinking : "",
        partial: reply,
      };
    }
    case "toolcall_end": {
      const block = reply.content[index];
      const toolCall =
        block?.type === "toolCall" ? block : { type: "toolCall" as const, id: "", name: "", arguments: {} };
      return { type: "toolcall_end", contentIndex: index, toolCall, partial: reply };
    }
  }
}

/**
 * The deltas that stream `message` whole: for each block its start, its content in one delta (a tool
 * call's arguments as JSON text), its end. Used for a reply stored without recorded deltas.
 *
 * Contract: pure, synchronous, never throws.
 *
 * ```ts
 * const reply = agent.state.messages.findLast((message) => message.role === "assistant");
 * if (reply?.role === "assistant") deltasOfMessage(reply).length; // 3 for a reply of one text block
 * ```
 */
export function deltasOfMessage(message: AssistantMessage): ReplyDelta[] {
  return message.content.flatMap((block, contentIndex): ReplyDelta[] => {
    switch (block.type) {
      case "text":
        return [
          { type: "text_start", contentIndex },
          ...(block.text ? [{ type: "text_delta" as const, contentIndex, delta: block.text }] : []),
          { type: "text_end", contentIndex },
        ];
      case "thinking":
        return [
          { type: "thinking_start", contentIndex },
          ...(block.thinking
            ? [{ type: "thinking_delta" as const, contentIndex, delta: block.thinking }]
            : []),
          { type: "thinking_end", contentIndex },
        ];
      case "toolCall":
        return [
          { type: "toolcall_start", contentIndex, id: block.id, name: block.name },
          { type: "toolcall_delta", contentIndex, delta: JSON.stringify(block.arguments) },
          { type: "toolcall_end", contentIndex },
        ];
      default:
        return [];
    }
  });
}

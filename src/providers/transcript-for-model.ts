import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from "../types/messages.js";

/** The model a transcript is about to be sent to, as replies record it (`AssistantMessage.api/provider/model`). */
export interface TranscriptTarget {
  api: string;
  provider: string;
  model: string;
}

/** Text of the tool result sent for a tool call whose result the transcript does not hold. */
export const NO_TOOL_RESULT = "No result provided";
/** Longest tool call id every provider accepts (Anthropic: 64 characters of `[A-Za-z0-9_-]`). */
const MAX_TOOL_CALL_ID = 64;

/**
 * Makes a transcript safe to send to `target`, whatever models wrote it (pi's cross-provider rules):
 *
 * - replies of `target` itself (same api, provider and model) keep everything, signatures included,
 *   since the provider wants its signed thinking back to continue a thinking turn with tools;
 * - replies of another model lose what only their provider can read: thinking becomes plain text
 *   (empty and redacted thinking is dropped), text and tool call signatures are removed, and tool call
 *   ids are rewritten to `[A-Za-z0-9_-]`, at most 64 characters, unique (their results follow);
 * - failed or aborted replies are left out (their content may be cut mid-block), and so are the
 *   results of the tool calls that only they held;
 * - a tool call that got no result before the next user message or reply gets one, an error saying
 *   "No result provided", since providers reject a call without a result.
 *
 * Contract: pure (the input is not changed; unchanged messages are returned as they are), never throws.
 *
 * ```ts
 * import { defaultConvertToLlm } from "agentchart/machines";
 * const messages = transcriptForModel(defaultConvertToLlm(agent.state.messages), { api: "anthropic.messages", provider: "anthropic", model: "claude-sonnet-4-5" });
 * ```
 */
export function transcriptForModel(messages: readonly Message[], target: TranscriptTarget): Message[] {
  const renamedIds = new Map<string, string>();
  const usedIds = new Set<string>();
  const droppedCalls = new Set<string>();
  const result: Message[] = [];
  let pending: ToolCall[] = [];
  const answered = new Set<string>();
  const closePending = () => {
    for (const call of pending) {
      if (!answered.has(call.id)) result.push(missingResult(call));
    }
    pending = [];
    answered.clear();
  };
  for (const message of messages) {
    if (message.role === "user") {
      closePending();
      result.push(message);
    } else if (message.role === "assistant") {
      closePending();
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        for (const block of message.content) if (block.type === "toolCall") droppedCalls.add(block.id);
        continue;
      }
      const converted = isTarget(message, target)
        ? message
        : forOtherModel(message, (id) => portableId(id, renamedIds, usedIds));
      if (converted.content.length === 0) continue;
      result.push(converted);
      pending = converted.content.filter((block): block is ToolCall => block.type === "toolCall");
    } else {
      if (droppedCalls.has(message.toolCallId)) continue;
      const id = renamedIds.get(message.toolCallId) ?? message.toolCallId;
      answered.add(id);
      result.push(id === message.toolCallId ? message : { ...message, toolCallId: id });
    }
  }
  closePending();
  return result;
}

function isTarget(message: AssistantMessage, target: TranscriptTarget): boolean {
  return message.api === target.api && message.provider === target.provider && message.model === target.model;
}

function forOtherModel(message: AssistantMessage, renameId: (id: string) => string): AssistantMessage {
  const content: AssistantMessage["content"] = [];
  for (const block of message.content) {
    if (block.type === "thinking") {
      if (block.redacted || block.thinking.trim() === "") continue;
      content.push({ type: "text", text: block.thinking });
    } else if (block.type === "text") {
      if (block.text === "") continue;
      content.push({ type: "text", text: block.text });
    } else {
      const { thoughtSignature: _signature, ...call } = block;
      content.push({ ...call, id: renameId(block.id) });
    }
  }
  return { ...message, content };
}

/** The id as every provider accepts it; the same input always gets the same output. */
function portableId(id: string, renamed: Map<string, string>, used: Set<string>): string {
  const known = renamed.get(id);
  if (known !== undefined) return known;
  const base = id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_TOOL_CALL_ID) || "call";
  let candidate = base;
  for (let n = 2; used.has(candidate); n++) {
    const suffix = `_${n}`;
    candidate = `${base.slice(0, MAX_TOOL_CALL_ID - suffix.length)}${suffix}`;
  }
  used.add(candidate);
  renamed.set(id, candidate);
  return candidate;
}

function missingResult(call: ToolCall): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: NO_TOOL_RESULT }],
    isError: true,
    timestamp: 0,
  };
}

import type { Span } from "@opentelemetry/api";
import type { AgentMessage, AssistantMessage, ToolResultMessage, UserMessage } from "../types/messages.js";
import { GEN_AI_EVENT } from "./gen-ai-attributes.js";

// Message content as GenAI events (body fields as JSON-string attributes, since span events carry
// only flat attributes). Recorded only with `captureContent: true`.

/** Records a user or tool-result message of the transcript on `span`; other roles are ignored. */
export function recordInputMessage(span: Span, message: AgentMessage): void {
  const role = (message as { role?: unknown }).role;
  if (role === "user") {
    span.addEvent(GEN_AI_EVENT.userMessage, {
      role: "user",
      content: JSON.stringify((message as UserMessage).content),
    });
  } else if (role === "toolResult") {
    const result = message as ToolResultMessage;
    span.addEvent(GEN_AI_EVENT.toolMessage, {
      role: "tool",
      id: result.toolCallId,
      content: JSON.stringify(result.content),
    });
  }
}

/** Records the system prompt a run starts with. */
export function recordSystemPrompt(span: Span, systemPrompt: string): void {
  if (systemPrompt !== "")
    span.addEvent(GEN_AI_EVENT.systemMessage, { role: "system", content: systemPrompt });
}

/** Records a model reply as the `gen_ai.choice` event of its chat span. */
export function recordChoice(span: Span, message: AssistantMessage, finishReason: string): void {
  span.addEvent(GEN_AI_EVENT.choice, {
    index: 0,
    finish_reason: finishReason,
    message: JSON.stringify({ role: "assistant", content: message.content }),
  });
}

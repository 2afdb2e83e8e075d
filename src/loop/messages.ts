import type {
  AgentMessage,
  AssistantMessage,
  ImageContent,
  Message,
  TextContent,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "../types/messages.js";
import { emptyUsage, isLlmMessage } from "../types/messages.js";
import type { Model } from "../types/model.js";
import type { ToolResult } from "../types/tool.js";
import { onlyLlmMessages } from "./transcript-growth.js";

/** A tool result made of one error text. */
export function errorToolResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], details: {} };
}

/** The transcript message of a settled tool call. */
export function toolResultMessage(
  toolCall: ToolCall,
  result: ToolResult,
  isError: boolean,
): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    content: result.content ?? [],
    details: result.details,
    isError,
    ...(result.usage ? { usage: result.usage } : {}),
    timestamp: Date.now(),
  };
}

/** An assistant message that reports a failure (provider, callback or abort) with empty content. */
export function failedAssistantMessage(
  model: Model,
  reason: "error" | "aborted",
  errorMessage: string,
  partial?: AssistantMessage,
): AssistantMessage {
  return {
    role: "assistant",
    content: partial ? [...partial.content] : [],
    api: partial?.api ?? model.api,
    provider: partial?.provider ?? model.provider,
    model: partial?.model ?? model.id,
    usage: partial?.usage ?? emptyUsage(),
    stopReason: reason,
    errorMessage,
    timestamp: partial?.timestamp ?? Date.now(),
  };
}

/**
 * The default `convertToLlm`: keeps the roles a model understands, drops app-defined messages. A
 * transcript made only of such messages is returned as it is (the agent's transcripts are never
 * changed in place, so no copy is needed): a turn then allocates nothing for it.
 */
export function defaultConvertToLlm(messages: readonly AgentMessage[]): Message[] {
  return onlyLlmMessages(messages) ? (messages as Message[]) : messages.filter(isLlmMessage);
}

/** The tool calls of an assistant message, in source order. */
export function toolCallsOf(message: AssistantMessage): ToolCall[] {
  return message.content.filter((block): block is ToolCall => block.type === "toolCall");
}

/** A user message of `text`, with `images` after the text when given. */
export function userMessage(text: string, images: ImageContent[] = []): UserMessage {
  return {
    role: "user",
    content: images.length > 0 ? [{ type: "text", text }, ...images] : text,
    timestamp: Date.now(),
  };
}

/** A message as given, or a user message of the text. */
export function toMessage(message: AgentMessage | string, images?: ImageContent[]): AgentMessage {
  return typeof message === "string" ? userMessage(message, images) : message;
}

/**
 * The text of a message's content: its text blocks joined with `separator` (a string content as it
 * is); images and other blocks left out; "" for a message without content.
 *
 * Contract: pure; never throws (any object is read defensively).
 *
 * ```ts
 * messageText(userMessage("Hello")); // "Hello"
 * ```
 */
export function messageText(message: AgentMessage, separator = ""): string {
  return contentText((message as { content?: unknown }).content, separator);
}

/**
 * The text of a message content (a string, or blocks whose text blocks are joined with `separator`).
 *
 * Contract: pure; never throws; "" for anything else.
 *
 * ```ts
 * contentText([{ type: "text", text: "a" }, { type: "text", text: "b" }], "\n"); // "a\nb"
 * ```
 */
export function contentText(content: unknown, separator = ""): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block): block is TextContent => block?.type === "text")
    .map((block) => block.text)
    .join(separator);
}

/**
 * The text of messages: each message's text blocks joined (a string content as it is), messages
 * separated by a blank line, empty ones left out. What guardrails check and typed output parses.
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * messagesText(agent.state.messages.slice(-1)); // "Paris is the capital."
 * ```
 */
export function messagesText(messages: readonly AgentMessage[]): string {
  return messages
    .map((message) => messageText(message))
    .filter((text) => text !== "")
    .join("\n\n");
}

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
 * The text of messages: each message's text blocks joined (a string content as it is), messages
 * separated by a blank line, empty ones left out. What guardrails check and typed output parses.
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * messagesText([reply]); // "Paris is the capital."
 * ```
 */
export function messagesText(messages: readonly AgentMessage[]): string {
  const texts: string[] = [];
  for (const message of messages) {
    const content = (message as { content?: unknown }).content;
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content))
      texts.push(
        content
          .filter((block): block is TextContent => block?.type === "text")
          .map((block) => block.text)
          .join(""),
      );
  }
  return texts.filter((text) => text !== "").join("\n\n");
}

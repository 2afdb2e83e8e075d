import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { AssistantMessage, ImageContent, Message, UserMessage } from "../../types/messages.js";
import type { Model } from "../../types/model.js";
import type { LlmContext, ToolSpec } from "../../types/stream.js";
import { acceptsImages, IMAGE_OMITTED, toolResultText } from "../message-content.js";

/** Text of the user message that carries images returned by tools (Chat Completions only). */
export const TOOL_IMAGES_NOTE = "Images returned by the tool calls above:";

/** A base64 image as a `data:` URL, the form both OpenAI APIs accept. */
export function imageDataUrl(image: ImageContent): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/**
 * Converts the agent context to Chat Completions messages.
 *
 * - The system prompt becomes a `system` message, or `developer` for OpenAI's own reasoning models
 *   (other servers' chat templates often reject `developer`).
 * - Thinking blocks are not resent: OpenAI-compatible servers drop reasoning from history anyway,
 *   and some reject unknown fields.
 * - Assistant messages that carry neither text nor tool calls are skipped.
 * - Chat `tool` messages cannot carry images, so the images of consecutive tool results are sent in
 *   one `user` message right after them.
 */
export function toChatMessages(model: Model, context: LlmContext): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (context.systemPrompt !== "") {
    const role = model.reasoning && model.provider === "openai" ? "developer" : "system";
    messages.push({ role, content: context.systemPrompt });
  }
  const images = acceptsImages(model);
  let pendingToolImages: ChatCompletionContentPart[] = [];
  const flushToolImages = () => {
    if (pendingToolImages.length === 0) return;
    messages.push({
      role: "user",
      content: [{ type: "text", text: TOOL_IMAGES_NOTE }, ...pendingToolImages],
    });
    pendingToolImages = [];
  };
  for (const message of context.messages) {
    if (message.role !== "toolResult") flushToolImages();
    const converted = convertMessage(message, images, pendingToolImages);
    if (converted !== undefined) messages.push(converted);
  }
  flushToolImages();
  return messages;
}

function convertMessage(
  message: Message,
  images: boolean,
  pendingToolImages: ChatCompletionContentPart[],
): ChatCompletionMessageParam | undefined {
  switch (message.role) {
    case "user":
      return convertUser(message, images);
    case "assistant":
      return convertAssistant(message);
    case "toolResult":
      for (const part of message.content) {
        if (part.type !== "image") continue;
        pendingToolImages.push(
          images
            ? { type: "image_url", image_url: { url: imageDataUrl(part) } }
            : { type: "text", text: IMAGE_OMITTED },
        );
      }
      return { role: "tool", tool_call_id: message.toolCallId, content: toolResultText(message.content) };
  }
}

function convertUser(message: UserMessage, images: boolean): ChatCompletionMessageParam {
  if (typeof message.content === "string") return { role: "user", content: message.content };
  const parts: ChatCompletionContentPart[] = message.content.map((part) => {
    if (part.type === "text") return { type: "text", text: part.text };
    return images
      ? { type: "image_url", image_url: { url: imageDataUrl(part) } }
      : { type: "text", text: IMAGE_OMITTED };
  });
  return { role: "user", content: parts };
}

function convertAssistant(message: AssistantMessage): ChatCompletionMessageParam | undefined {
  let text = "";
  const toolCalls: ChatCompletionMessageToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "toolCall") {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.arguments) },
      });
    }
  }
  if (text === "" && toolCalls.length === 0) return undefined;
  if (toolCalls.length === 0) return { role: "assistant", content: text };
  return { role: "assistant", content: text === "" ? null : text, tool_calls: toolCalls };
}

/** Tool specs as Chat Completions function tools. */
export function toChatTools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

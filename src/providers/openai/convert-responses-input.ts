import type {
  FunctionTool,
  ResponseFunctionCallOutputItemList,
  ResponseInputContent,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "../../types/messages.js";
import type { Model } from "../../types/model.js";
import type { ToolSpec } from "../../types/stream.js";
import { acceptsImages, IMAGE_OMITTED, toolResultText } from "../message-content.js";
import { imageDataUrl } from "./convert-messages.js";

/**
 * Converts agent messages to Responses API input items. The system prompt is sent separately as
 * `instructions`. Tool results carry their images directly (`function_call_output` accepts image
 * parts). Thinking is not resent: requests use `store: false` and reasoning items could only be
 * replayed with encrypted content, which this provider does not request.
 */
export function toResponsesInput(model: Model, messages: Message[]): ResponseInputItem[] {
  const images = acceptsImages(model);
  const items: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === "user") items.push(convertUser(message, images));
    else if (message.role === "assistant") items.push(...convertAssistant(message));
    else items.push(convertToolResult(message, images));
  }
  return items;
}

function convertUser(message: UserMessage, images: boolean): ResponseInputItem {
  if (typeof message.content === "string") {
    return { role: "user", content: [{ type: "input_text", text: message.content }] };
  }
  const content: ResponseInputContent[] = message.content.map((part) => {
    if (part.type === "text") return { type: "input_text", text: part.text };
    return images
      ? { type: "input_image", image_url: imageDataUrl(part), detail: "auto" }
      : { type: "input_text", text: IMAGE_OMITTED };
  });
  return { role: "user", content };
}

function convertAssistant(message: AssistantMessage): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  let text = "";
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "toolCall") {
      items.push({
        type: "function_call",
        call_id: block.id,
        name: block.name,
        arguments: JSON.stringify(block.arguments),
      });
    }
  }
  if (text !== "") items.unshift({ role: "assistant", content: text });
  return items;
}

function convertToolResult(message: ToolResultMessage, images: boolean): ResponseInputItem {
  const hasImages = message.content.some((part) => part.type === "image");
  if (!hasImages) {
    return {
      type: "function_call_output",
      call_id: message.toolCallId,
      output: toolResultText(message.content),
    };
  }
  const output: ResponseFunctionCallOutputItemList = message.content.map((part) => {
    if (part.type === "text") return { type: "input_text", text: part.text };
    return images
      ? { type: "input_image", image_url: imageDataUrl(part), detail: "auto" }
      : { type: "input_text", text: IMAGE_OMITTED };
  });
  return { type: "function_call_output", call_id: message.toolCallId, output };
}

/** Tool specs as Responses API function tools (non-strict: the schemas come from zod as-is). */
export function toResponsesTools(tools: ToolSpec[]): FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
}

import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";
import type {
  AssistantMessage,
  ImageContent,
  Message,
  TextContent,
  ToolResultMessage,
} from "../../types/messages.js";
import type { Model } from "../../types/model.js";
import type { LlmContext, ToolSpec } from "../../types/stream.js";
import { acceptsImages, IMAGE_OMITTED, toolResultText } from "../message-content.js";
import { type TranscriptTarget, transcriptForModel } from "../transcript-for-model.js";
import { signatureOptions } from "./provider-metadata.js";

/**
 * The agent context as an AI SDK prompt (`LanguageModelV3Prompt`) for the model `target` names.
 * The transcript first goes through `transcriptForModel` (another provider's thinking becomes text,
 * foreign tool call ids are made portable, missing tool results are filled in). Then:
 *
 * - the system prompt is a `system` message (none when empty);
 * - images in user messages and tool results are `file` / `image-data` parts, or a placeholder text
 *   when `model.input` says the model cannot see images;
 * - thinking blocks are `reasoning` parts carrying their signature back as provider options
 *   (`signatureOptions`), redacted ones with their data; text and tool calls carry theirs too;
 * - consecutive tool results are one `tool` message, errors as `error-text`.
 *
 * Contract: pure, never throws.
 */
export function toAiSdkPrompt(
  model: Model,
  context: LlmContext,
  target: TranscriptTarget,
  family: string,
): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  if (context.systemPrompt !== "") prompt.push({ role: "system", content: context.systemPrompt });
  const images = acceptsImages(model);
  for (const message of transcriptForModel(context.messages, target)) {
    const converted = convertMessage(message, images, family);
    if (converted === undefined) continue;
    const last = prompt[prompt.length - 1];
    if (converted.role === "tool" && last?.role === "tool") last.content.push(...converted.content);
    else prompt.push(converted);
  }
  return prompt;
}

/** Tool specs as AI SDK function tools. */
export function toAiSdkTools(tools: readonly ToolSpec[]): LanguageModelV3FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
  }));
}

function convertMessage(
  message: Message,
  images: boolean,
  family: string,
): LanguageModelV3Message | undefined {
  switch (message.role) {
    case "user": {
      if (typeof message.content === "string") {
        return { role: "user", content: [{ type: "text", text: message.content }] };
      }
      const content = message.content.map((part) =>
        part.type === "text"
          ? { type: "text" as const, text: part.text }
          : images
            ? { type: "file" as const, mediaType: part.mimeType, data: part.data }
            : { type: "text" as const, text: IMAGE_OMITTED },
      );
      return content.length === 0 ? undefined : { role: "user", content };
    }
    case "assistant":
      return convertAssistant(message, family);
    case "toolResult":
      return { role: "tool", content: [toolResultPart(message, images)] };
  }
}

function convertAssistant(message: AssistantMessage, family: string): LanguageModelV3Message | undefined {
  const content: Extract<LanguageModelV3Message, { role: "assistant" }>["content"] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text === "") continue;
      const providerOptions = signatureOptions(block.textSignature, family);
      content.push(
        providerOptions
          ? { type: "text", text: block.text, providerOptions }
          : { type: "text", text: block.text },
      );
    } else if (block.type === "thinking") {
      const providerOptions = signatureOptions(block.thinkingSignature, family, block.redacted === true);
      if (block.thinking === "" && providerOptions === undefined) continue;
      content.push({ type: "reasoning", text: block.thinking, ...(providerOptions && { providerOptions }) });
    } else {
      const providerOptions = signatureOptions(block.thoughtSignature, family);
      content.push({
        type: "tool-call",
        toolCallId: block.id,
        toolName: block.name,
        input: block.arguments,
        ...(providerOptions && { providerOptions }),
      });
    }
  }
  return content.length === 0 ? undefined : { role: "assistant", content };
}

function toolResultPart(message: ToolResultMessage, images: boolean): LanguageModelV3ToolResultPart {
  return {
    type: "tool-result",
    toolCallId: message.toolCallId,
    toolName: message.toolName,
    output: toolResultOutput(message.content, message.isError, images),
  };
}

function toolResultOutput(
  content: (TextContent | ImageContent)[],
  isError: boolean,
  images: boolean,
): LanguageModelV3ToolResultOutput {
  if (isError || !images || !content.some((part) => part.type === "image")) {
    const value = images ? toolResultText(content) : textWithoutImages(content);
    return isError ? { type: "error-text", value } : { type: "text", value };
  }
  return {
    type: "content",
    value: content.map((part) =>
      part.type === "text"
        ? { type: "text" as const, text: part.text }
        : { type: "image-data" as const, data: part.data, mediaType: part.mimeType },
    ),
  };
}

/** The text of a result for a model that cannot see images, each image replaced by a placeholder. */
function textWithoutImages(content: (TextContent | ImageContent)[]): string {
  return content.map((part) => (part.type === "text" ? part.text : IMAGE_OMITTED)).join("\n");
}

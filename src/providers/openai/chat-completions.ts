import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import type { StopReason } from "../../types/messages.js";
import type { Model } from "../../types/model.js";
import type { LlmContext, StreamOptions } from "../../types/stream.js";
import { toChatMessages, toChatTools } from "./convert-messages.js";
import type { PartialMessageBuilder } from "./partial-message.js";
import { usageFromTokens } from "./usage.js";
import { type ChunkHandler, reasoningEffort, type WireProtocol } from "./wire-protocol.js";

/**
 * Delta fields some OpenAI-compatible servers add for reasoning text: `reasoning_content`
 * (DeepSeek, llama.cpp, vLLM) and `reasoning` (Ollama, OpenRouter, newer vLLM). The first non-empty
 * one is used; its name is kept as the thinking block's `thinkingSignature`.
 */
const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_text"] as const;

/** The Chat Completions wire protocol (`POST /chat/completions`, `stream: true`). */
export const chatCompletionsProtocol: WireProtocol<ChatCompletionChunk> = {
  api: "openai-chat",
  buildPayload: buildChatPayload,
  request: (client, body, requestOptions) =>
    client.chat.completions.create(body as ChatCompletionCreateParamsStreaming, requestOptions),
  createHandler: (builder, model) => new ChatChunkHandler(builder, model),
};

/** The streaming request body for one reply. Usage is requested with `stream_options`. */
export function buildChatPayload(
  model: Model,
  context: LlmContext,
  options: StreamOptions,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    model: model.id,
    messages: toChatMessages(model, context),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (context.tools.length > 0) payload.tools = toChatTools(context.tools);
  if (options.maxTokens !== undefined) payload.max_completion_tokens = options.maxTokens;
  if (options.temperature !== undefined) payload.temperature = options.temperature;
  const effort = reasoningEffort(model, options);
  if (effort !== undefined) payload.reasoning_effort = effort;
  return payload;
}

class ChatChunkHandler implements ChunkHandler<ChatCompletionChunk> {
  private finishReason: string | undefined;

  constructor(
    private readonly builder: PartialMessageBuilder,
    private readonly model: Model,
  ) {}

  onChunk(chunk: ChatCompletionChunk): void {
    if (chunk.usage) {
      this.builder.message.usage = usageFromTokens(
        {
          promptTokens: chunk.usage.prompt_tokens ?? 0,
          cachedTokens: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
          outputTokens: chunk.usage.completion_tokens ?? 0,
        },
        this.model,
      );
    }
    const choice = chunk.choices?.[0];
    if (choice === undefined) return;
    const delta = choice.delta as (ChatCompletionChunk.Choice.Delta & Record<string, unknown>) | undefined;
    if (delta) this.applyDelta(delta);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  onStreamEnd(): void {
    const reason = this.finishReason;
    if (reason === undefined) {
      this.builder.finish(
        "error",
        "The stream ended before the server sent a finish reason (connection closed?)",
      );
      return;
    }
    if (reason === "content_filter") {
      this.builder.finish(
        "error",
        "The provider's content filter stopped the reply (finish_reason: content_filter)",
      );
      return;
    }
    this.builder.finish(mapFinishReason(reason));
  }

  private applyDelta(delta: ChatCompletionChunk.Choice.Delta & Record<string, unknown>): void {
    for (const field of REASONING_FIELDS) {
      const reasoning = delta[field];
      if (typeof reasoning === "string" && reasoning !== "") {
        this.builder.appendThinking(reasoning, "", field);
        break;
      }
    }
    if (typeof delta.content === "string" && delta.content !== "") this.builder.appendText(delta.content);
    const toolCalls = delta.tool_calls;
    if (!toolCalls) return;
    for (let position = 0; position < toolCalls.length; position++) {
      const call = toolCalls[position]!;
      const key = call.index ?? position;
      this.builder.upsertToolCall(key, call.id ?? undefined, call.function?.name ?? undefined);
      const argumentsDelta = call.function?.arguments;
      if (argumentsDelta) this.builder.appendToolCallArguments(key, argumentsDelta);
    }
  }
}

/** Chat `finish_reason` → `StopReason`; unknown reasons from other servers count as a normal stop. */
function mapFinishReason(reason: string): StopReason {
  switch (reason) {
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "toolUse";
    default:
      return "stop";
  }
}

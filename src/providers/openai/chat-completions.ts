import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import type { ResponseFormatJSONObject, ResponseFormatJSONSchema } from "openai/resources/shared";
import type { StopReason } from "../../types/messages.js";
import type { Model } from "../../types/model.js";
import type { LlmContext, OutputRequest, StreamOptions } from "../../types/stream.js";
import type { PartialMessageBuilder } from "../partial-message.js";
import { ServerStreamError } from "../provider-errors.js";
import { toChatMessages, toChatTools } from "./convert-messages.js";
import { quoteTruncated } from "./event-stream.js";
import {
  effectiveOutputMode,
  type StructuredOutputMode,
  schemaForServer,
  systemPromptWithOutput,
} from "./structured-output.js";
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

/**
 * The streaming request body for one reply. Usage is requested with `stream_options`. A context
 * with `output` gets `response_format` as `outputMode` says (see `StructuredOutputMode`); in the
 * modes that describe the schema in words, that description ends the system message.
 */
export function buildChatPayload(
  model: Model,
  context: LlmContext,
  options: StreamOptions,
  outputMode: StructuredOutputMode,
): Record<string, unknown> {
  const systemPrompt = systemPromptWithOutput(context, outputMode);
  const payload: Record<string, unknown> = {
    model: model.id,
    messages: toChatMessages(
      model,
      systemPrompt === context.systemPrompt ? context : { ...context, systemPrompt },
    ),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (context.tools.length > 0) payload.tools = toChatTools(context.tools);
  const responseFormat = context.output && chatResponseFormat(context.output, outputMode);
  if (responseFormat) payload.response_format = responseFormat;
  if (options.maxTokens !== undefined) payload.max_completion_tokens = options.maxTokens;
  if (options.temperature !== undefined) payload.temperature = options.temperature;
  const effort = reasoningEffort(model, options);
  if (effort !== undefined) payload.reasoning_effort = effort;
  return payload;
}

/** Chat `response_format` for `output` in `mode` (see `effectiveOutputMode`); none in `"instructions"` mode. */
function chatResponseFormat(
  output: OutputRequest,
  mode: StructuredOutputMode,
): ResponseFormatJSONSchema | ResponseFormatJSONObject | undefined {
  switch (effectiveOutputMode(output, mode)) {
    case "json_schema":
      return {
        type: "json_schema",
        json_schema: { name: output.name, schema: schemaForServer(output.schema), strict: output.strict },
      };
    case "json_object":
      return { type: "json_object" };
    case "instructions":
      return undefined;
  }
}

/** A chunk's fields as read here; everything is checked, since servers send all kinds of shapes. */
type ChunkRecord = Record<string, unknown>;

/**
 * Applies Chat Completions chunks. Rules for what real servers send:
 *
 * - only one choice is read: the first index seen (0 for every known server), matched by
 *   `choice.index` in every chunk, so `n > 1` streams are not merged;
 * - `delta.refusal` becomes a text block marked `textSignature: "refusal"`;
 * - a tool call is keyed by its `index`; without one (Gemini) by its `id`, and a fragment with
 *   neither continues the call before it;
 * - a chunk whose `choices`, choice, `delta` or `tool_calls` is not the shape the protocol defines
 *   throws `ServerStreamError` (`malformed_event`) naming what was wrong.
 */
class ChatChunkHandler implements ChunkHandler<ChatCompletionChunk> {
  private finishReason: string | undefined;
  private choiceIndex: number | undefined;
  /** Builder keys of the calls seen without an `index`, by their id. */
  private readonly callKeysById = new Map<string, string>();
  private lastCallKey: string | number | undefined;

  constructor(
    private readonly builder: PartialMessageBuilder,
    private readonly model: Model,
  ) {}

  onChunk(payload: ChatCompletionChunk): void {
    const chunk = payload as unknown as ChunkRecord;
    if (chunk.usage) this.recordUsage(chunk.usage, chunk);
    const choices = chunk.choices;
    if (choices === undefined || choices === null) return;
    if (!Array.isArray(choices)) malformed("`choices` is not a list", chunk);
    for (let position = 0; position < choices.length; position++) {
      const choice = choices[position] as unknown;
      if (typeof choice !== "object" || choice === null)
        malformed(`choices[${position}] is ${String(choice)}`, chunk);
      const index = (choice as ChunkRecord).index;
      const choiceIndex = typeof index === "number" ? index : 0;
      this.choiceIndex ??= choiceIndex;
      if (choiceIndex === this.choiceIndex) this.applyChoice(choice as ChunkRecord, chunk);
    }
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

  private applyChoice(choice: ChunkRecord, chunk: ChunkRecord): void {
    const delta = choice.delta;
    if (delta !== undefined && delta !== null) {
      if (typeof delta !== "object") malformed("`delta` is not an object", chunk);
      this.applyDelta(delta as ChunkRecord, chunk);
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
      this.finishReason = choice.finish_reason;
    }
  }

  private applyDelta(delta: ChunkRecord, chunk: ChunkRecord): void {
    for (const field of REASONING_FIELDS) {
      const reasoning = delta[field];
      if (typeof reasoning === "string" && reasoning !== "") {
        this.builder.appendThinking(reasoning, "", field);
        break;
      }
    }
    if (typeof delta.content === "string" && delta.content !== "") this.builder.appendText(delta.content);
    if (typeof delta.refusal === "string" && delta.refusal !== "") this.builder.appendRefusal(delta.refusal);
    const toolCalls = delta.tool_calls;
    if (toolCalls === undefined || toolCalls === null) return;
    if (!Array.isArray(toolCalls)) malformed("`tool_calls` is not a list", chunk);
    for (let position = 0; position < toolCalls.length; position++) {
      const call = toolCalls[position] as unknown;
      if (typeof call !== "object" || call === null)
        malformed(`tool_calls[${position}] is ${String(call)}`, chunk);
      this.applyToolCall(call as ChunkRecord, position);
    }
  }

  private applyToolCall(call: ChunkRecord, position: number): void {
    const id = typeof call.id === "string" && call.id !== "" ? call.id : undefined;
    const fn = (
      typeof call.function === "object" && call.function !== null ? call.function : {}
    ) as ChunkRecord;
    const key = this.toolCallKey(call.index, id, position);
    this.builder.upsertToolCall(key, id, typeof fn.name === "string" && fn.name !== "" ? fn.name : undefined);
    if (typeof fn.arguments === "string" && fn.arguments !== "")
      this.builder.appendToolCallArguments(key, fn.arguments);
  }

  /** The builder key of a call fragment: its index; else its id; else the call before it. */
  private toolCallKey(index: unknown, id: string | undefined, position: number): string | number {
    let key: string | number;
    if (typeof index === "number") key = index;
    else if (id !== undefined) {
      key = this.callKeysById.get(id) ?? `id:${id}`;
      this.callKeysById.set(id, key);
    } else key = this.lastCallKey ?? position;
    this.lastCallKey = key;
    return key;
  }

  private recordUsage(usage: unknown, chunk: ChunkRecord): void {
    if (typeof usage !== "object" || usage === null) malformed("`usage` is not an object", chunk);
    const counts = usage as ChatCompletionChunk["usage"] & object;
    this.builder.message.usage = usageFromTokens(
      {
        promptTokens: counts.prompt_tokens ?? 0,
        cachedTokens: counts.prompt_tokens_details?.cached_tokens ?? 0,
        outputTokens: counts.completion_tokens ?? 0,
        reasoningTokens: counts.completion_tokens_details?.reasoning_tokens ?? undefined,
        totalTokens: counts.total_tokens ?? undefined,
      },
      this.model,
    );
  }
}

/** Throws the error for a chunk of a shape no server means, quoting the chunk (truncated). */
function malformed(problem: string, chunk: ChunkRecord): never {
  throw new ServerStreamError(`${problem} in ${quoteTruncated(JSON.stringify(chunk))}`, "malformed_event");
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

import type {
  Response,
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
  ResponseTextConfig,
} from "openai/resources/responses/responses";
import type { Model } from "../../types/model.js";
import type { LlmContext, OutputRequest, StreamOptions } from "../../types/stream.js";
import type { PartialMessageBuilder } from "../partial-message.js";
import { toResponsesInput, toResponsesTools } from "./convert-responses-input.js";
import {
  effectiveOutputMode,
  type StructuredOutputMode,
  schemaForServer,
  systemPromptWithOutput,
} from "./structured-output.js";
import { usageFromTokens } from "./usage.js";
import { type ChunkHandler, reasoningEffort, type WireProtocol } from "./wire-protocol.js";

/** The Responses API wire protocol (`POST /responses`, `stream: true`, `store: false`). */
export const responsesProtocol: WireProtocol<ResponseStreamEvent> = {
  api: "openai-responses",
  buildPayload: buildResponsesPayload,
  request: (client, body, requestOptions) =>
    client.responses.create(body as ResponseCreateParamsStreaming, requestOptions),
  createHandler: (builder, model) => new ResponsesEventHandler(builder, model),
};

/**
 * The streaming request body for one reply. The system prompt goes in `instructions`; reasoning
 * models get `reasoning: {effort, summary: "auto"}` so their summaries stream as thinking. A context
 * with `output` gets `text.format` as `outputMode` says (see `StructuredOutputMode`); in the modes
 * that describe the schema in words, that description ends the `instructions`.
 */
export function buildResponsesPayload(
  model: Model,
  context: LlmContext,
  options: StreamOptions,
  outputMode: StructuredOutputMode,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    model: model.id,
    input: toResponsesInput(model, context.messages),
    stream: true,
    store: false,
  };
  const instructions = systemPromptWithOutput(context, outputMode);
  if (instructions !== "") payload.instructions = instructions;
  if (context.tools.length > 0) payload.tools = toResponsesTools(context.tools);
  const text = context.output && responsesTextFormat(context.output, outputMode);
  if (text) payload.text = text;
  if (options.maxTokens !== undefined) payload.max_output_tokens = options.maxTokens;
  if (options.temperature !== undefined) payload.temperature = options.temperature;
  const effort = reasoningEffort(model, options);
  if (effort !== undefined) payload.reasoning = { effort, summary: "auto" };
  return payload;
}

/** Responses `text` (its `format`) for `output` in `mode` (see `effectiveOutputMode`); none in `"instructions"` mode. */
function responsesTextFormat(
  output: OutputRequest,
  mode: StructuredOutputMode,
): ResponseTextConfig | undefined {
  switch (effectiveOutputMode(output, mode)) {
    case "json_schema":
      return {
        format: {
          type: "json_schema",
          name: output.name,
          schema: schemaForServer(output.schema),
          strict: output.strict,
        },
      };
    case "json_object":
      return { format: { type: "json_object" } };
    case "instructions":
      return undefined;
  }
}

class ResponsesEventHandler implements ChunkHandler<ResponseStreamEvent> {
  private final: Response | undefined;
  private streamError: string | undefined;
  /** Last reasoning summary part seen per item, to separate parts with a blank line. */
  private readonly summaryParts = new Map<string, number>();

  constructor(
    private readonly builder: PartialMessageBuilder,
    private readonly model: Model,
  ) {}

  onChunk(event: ResponseStreamEvent): void {
    const builder = this.builder;
    switch (event.type) {
      case "response.output_text.delta":
        if (event.delta !== "") builder.appendText(event.delta, event.item_id);
        break;
      case "response.refusal.delta":
        if (event.delta !== "") builder.appendRefusal(event.delta, event.item_id);
        break;
      case "response.reasoning_summary_text.delta":
        this.appendSummary(event.item_id, event.summary_index, event.delta);
        break;
      case "response.reasoning_text.delta":
        if (event.delta !== "") builder.appendThinking(event.delta, event.item_id);
        break;
      case "response.output_item.added":
        if (event.item.type === "function_call") {
          builder.upsertToolCall(event.output_index, event.item.call_id, event.item.name);
          if (event.item.arguments) builder.appendToolCallArguments(event.output_index, event.item.arguments);
        }
        break;
      case "response.function_call_arguments.delta":
        builder.upsertToolCall(event.output_index, undefined, undefined);
        builder.appendToolCallArguments(event.output_index, event.delta);
        break;
      case "response.output_item.done":
        if (event.item.type === "function_call") {
          builder.upsertToolCall(event.output_index, event.item.call_id, event.item.name);
          builder.endToolCall(event.output_index, event.item.arguments);
        } else if (event.item.type === "message" || event.item.type === "reasoning") {
          builder.closeSequential();
        }
        break;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        this.final = event.response;
        this.recordUsage(event.response);
        break;
      case "error":
        this.streamError = `${this.model.provider} stream error${event.code ? ` ${event.code}` : ""}: ${event.message}`;
        break;
    }
  }

  onStreamEnd(): void {
    const final = this.final;
    if (this.streamError !== undefined) {
      this.builder.finish("error", this.streamError);
    } else if (final === undefined) {
      this.builder.finish(
        "error",
        "The stream ended before the server sent response.completed (connection closed?)",
      );
    } else if (final.status === "failed") {
      const detail = final.error ? `${final.error.code}: ${final.error.message}` : "no details";
      this.builder.finish("error", `${this.model.provider} response failed (${detail})`);
    } else if (final.status === "incomplete") {
      const reason = final.incomplete_details?.reason;
      if (reason === "content_filter") {
        this.builder.finish(
          "error",
          "The provider's content filter stopped the reply (incomplete: content_filter)",
        );
      } else {
        this.builder.finish("length");
      }
    } else {
      this.builder.finish("stop");
    }
  }

  private appendSummary(itemId: string, summaryIndex: number, delta: string): void {
    const previous = this.summaryParts.get(itemId);
    this.summaryParts.set(itemId, summaryIndex);
    const text = previous !== undefined && previous !== summaryIndex ? `\n\n${delta}` : delta;
    if (text !== "") this.builder.appendThinking(text, itemId);
  }

  private recordUsage(response: Response): void {
    const usage = response.usage;
    if (!usage) return;
    this.builder.message.usage = usageFromTokens(
      {
        promptTokens: usage.input_tokens ?? 0,
        cachedTokens: usage.input_tokens_details?.cached_tokens ?? 0,
        outputTokens: usage.output_tokens ?? 0,
        reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? undefined,
        totalTokens: usage.total_tokens ?? undefined,
      },
      this.model,
    );
  }
}

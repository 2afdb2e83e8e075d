import type OpenAI from "openai";
import type { APIPromise } from "openai";
import type { Model } from "../../types/model.js";
import type { LlmContext, StreamOptions } from "../../types/stream.js";
import type { PartialMessageBuilder } from "../partial-message.js";
import type { StructuredOutputMode } from "./structured-output.js";

/** The per-request SDK options this provider sets (a subset of the SDK's `RequestOptions`). */
export interface RequestOptions {
  signal: AbortSignal;
  /** Always 0: `sendWithRetries` retries, so a server that cannot be reached is not retried for seconds. */
  maxRetries: 0;
  /** Milliseconds until the response headers must have arrived (SDK `timeout`). */
  timeout?: number;
  headers?: Record<string, string>;
}

/** Feeds the chunks of one streamed reply into a `PartialMessageBuilder`. */
export interface ChunkHandler<TChunk> {
  /**
   * Applies one decoded stream payload (queues events on the builder). The payload is a JSON object
   * as the server sent it, not validated: a shape no server means throws `ServerStreamError`
   * (`malformed_event`).
   */
  onChunk(chunk: TChunk): void;
  /** Called once the stream ended without abort: queues the final event via `builder.finish`. */
  onStreamEnd(): void;
}

/** What differs between Chat Completions and the Responses API; `run-stream.ts` does the rest. */
export interface WireProtocol<TChunk> {
  /** `AssistantMessage.api` of replies produced with this protocol. */
  readonly api: "openai-chat" | "openai-responses";
  /** The request body (before `onPayload`); `outputMode` says how a context's `output` is asked for. */
  buildPayload(
    model: Model,
    context: LlmContext,
    options: StreamOptions,
    outputMode: StructuredOutputMode,
  ): Record<string, unknown>;
  /** Starts the streaming request (one attempt); the body is whatever `onPayload` left. */
  request(client: OpenAI, body: unknown, requestOptions: RequestOptions): APIPromise<unknown>;
  createHandler(builder: PartialMessageBuilder, model: Model): ChunkHandler<TChunk>;
}

/** `options.reasoning` as an OpenAI `reasoning_effort`; "xhigh" is sent as "high". */
export function reasoningEffort(
  model: Model,
  options: StreamOptions,
): "minimal" | "low" | "medium" | "high" | undefined {
  if (!model.reasoning || options.reasoning === undefined) return undefined;
  return options.reasoning === "xhigh" ? "high" : options.reasoning;
}

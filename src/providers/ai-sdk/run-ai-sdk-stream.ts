import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamResult,
} from "@ai-sdk/provider";
import type { Model } from "../../types/model.js";
import type { AssistantMessageEvent, StreamOptions } from "../../types/stream.js";
import { abortableDelay } from "../abortable-delay.js";
import type { PartialMessageBuilder } from "../partial-message.js";
import { ServerUnreachableError } from "../provider-errors.js";
import { retryDelayMs } from "../retry-delay.js";
import {
  describeAiSdkError,
  isApiCallError,
  isRetryableRequestError,
  isUnreachableError,
} from "./ai-sdk-errors.js";
import { StreamPartHandler } from "./stream-parts.js";
import { usageFromAiSdk } from "./usage.js";

/** Wait before the single retry of a server that could not be reached at all. */
const UNREACHABLE_RETRY_MS = 250;

/** What one streamed reply through an AI SDK model needs besides the model and the builder. */
export interface AiSdkRequest {
  languageModel: LanguageModelV3;
  /** The name errors are reported under ("anthropic"). */
  family: string;
  /** The call options, built inside the stream so that a failure to build them becomes an error event. */
  callOptions: (signal: AbortSignal) => LanguageModelV3CallOptions;
  /** Retries of a first request the provider calls retryable (429, 5xx, overload, connection errors). */
  maxRetries: number;
}

/**
 * Streams one reply of `request.languageModel` as `AssistantMessageEvent`s. Never throws: a failed
 * request (after the retries of what the provider marks retryable, before any part arrived), an
 * `error` part mid-stream, a stream that breaks or ends without `finish`, and an abort all end with
 * an `error` event that keeps the partial content. Once parts have arrived nothing is sent again:
 * the harness decides whether to retry the turn.
 */
export async function* runAiSdkStream(
  request: AiSdkRequest,
  builder: PartialMessageBuilder,
  model: Model,
  options: StreamOptions,
): AsyncGenerator<AssistantMessageEvent, void, undefined> {
  const controller = new AbortController();
  const userSignal = options.signal;
  const abortFromUser = () => controller.abort(userSignal?.reason);
  if (userSignal?.aborted) controller.abort(userSignal.reason);
  else userSignal?.addEventListener("abort", abortFromUser, { once: true });
  let reader: ReadableStreamDefaultReader<unknown> | undefined;
  try {
    let callOptions = request.callOptions(controller.signal);
    if (options.onPayload) {
      const replaced = await options.onPayload(callOptions, model);
      if (replaced !== undefined) callOptions = replaced as LanguageModelV3CallOptions;
    }
    const result = await startWithRetries(request, callOptions, controller.signal);
    if (options.onResponse)
      await options.onResponse({ status: 200, headers: result.response?.headers ?? {} }, model);
    builder.start();
    const handler = new StreamPartHandler(builder, request.family);
    const parts = result.stream.getReader();
    reader = parts;
    for (;;) {
      const { value, done } = await parts.read();
      if (done) break;
      const failure = handler.onPart(value);
      const events = builder.takeEvents();
      for (let i = 0; i < events.length; i++) yield events[i]!;
      if (failure !== undefined) throw failure.error;
    }
    reader = undefined;
    if (controller.signal.aborted) builder.fail("Request was aborted", true);
    else finish(builder, handler, model, request.family);
  } catch (error) {
    if (controller.signal.aborted) builder.fail("Request was aborted", true);
    else builder.fail(describeAiSdkError(error, request.family), false);
  } finally {
    userSignal?.removeEventListener("abort", abortFromUser);
    // Stops the HTTP request when the reply failed or the consumer stopped iterating early.
    reader?.cancel().catch(() => {});
    builder.abandonToolCalls();
    if (!controller.signal.aborted) controller.abort();
  }
  const events = builder.takeEvents();
  for (let i = 0; i < events.length; i++) yield events[i]!;
}

function finish(
  builder: PartialMessageBuilder,
  handler: StreamPartHandler,
  model: Model,
  family: string,
): void {
  const finished = handler.finished;
  if (finished === undefined) {
    builder.fail(`${family} stream ended before the reply finished (no finish part)`, false);
    return;
  }
  builder.message.usage = usageFromAiSdk(finished.usage, model);
  const reason = finished.errorMessage === undefined ? undefined : `${family} ${finished.errorMessage}`;
  builder.finish(finished.stopReason, reason);
}

/**
 * Calls `doStream`, retrying what the provider marks retryable up to `maxRetries` times (waiting as
 * the server's `retry-after` asks, else with backoff); a server nobody answers at is retried at most
 * once and reported as unreachable. Every wait ends when `signal` aborts.
 */
async function startWithRetries(
  request: AiSdkRequest,
  callOptions: LanguageModelV3CallOptions,
  signal: AbortSignal,
): Promise<LanguageModelV3StreamResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await request.languageModel.doStream(callOptions);
    } catch (error) {
      if (signal.aborted) throw error;
      const unreachable = isUnreachableError(error);
      if (unreachable && attempt >= Math.min(request.maxRetries, 1)) {
        throw new ServerUnreachableError(error.url, error);
      }
      if (!unreachable && (attempt >= request.maxRetries || !isRetryableRequestError(error))) throw error;
      const headers = isApiCallError(error) ? error.responseHeaders : undefined;
      await abortableDelay(
        unreachable ? UNREACHABLE_RETRY_MS : retryDelayMs((name) => headers?.[name], attempt),
        signal,
      );
      if (signal.aborted) throw error;
    }
  }
}

import type OpenAI from "openai";
import type { Model } from "../../types/model.js";
import type { AssistantMessageEvent, LlmContext, StreamOptions } from "../../types/stream.js";
import { PartialMessageBuilder } from "../partial-message.js";
import { ServerStreamError } from "../provider-errors.js";
import { describeError } from "./errors.js";
import { decodeEventStream } from "./event-stream.js";
import { sendWithRetries } from "./request-retry.js";
import {
  isOutputFormatRejection,
  type StructuredOutputMode,
  type StructuredOutputModes,
} from "./structured-output.js";
import type { RequestOptions, WireProtocol } from "./wire-protocol.js";

/** Settings of one streamed request, resolved from the factory options and the call's options. */
export interface StreamSettings {
  /** Resolves the SDK client; called inside the stream so a failing constructor becomes an error event. */
  client: () => OpenAI;
  /**
   * Longest silence tolerated while the body streams (ms; default: the client's timeout). The SDK
   * timeout only covers the wait for the response headers.
   */
  idleTimeoutMs: number | undefined;
  maxRetries: number | undefined;
  timeoutMs: number | undefined;
  /** How `LlmContext.output` is asked for, per server and model (shared by the StreamFn's calls). */
  outputModes: StructuredOutputModes;
}

/**
 * Streams one assistant reply over `protocol` as `AssistantMessageEvent`s. Never throws: every
 * failure (hooks, HTTP errors after the retries, connection loss, malformed events, stalls,
 * abort) ends the stream with an `error` event whose message keeps the partial content.
 */
export async function* runStream<TChunk>(
  protocol: WireProtocol<TChunk>,
  settings: StreamSettings,
  model: Model,
  context: LlmContext,
  options: StreamOptions,
): AsyncGenerator<AssistantMessageEvent, void, undefined> {
  const builder = new PartialMessageBuilder(model, protocol.api);
  const controller = new AbortController();
  const userSignal = options.signal;
  const abortFromUser = () => controller.abort(userSignal?.reason);
  if (userSignal?.aborted) controller.abort(userSignal.reason);
  else userSignal?.addEventListener("abort", abortFromUser, { once: true });
  let watchdog: IdleWatchdog | undefined;
  try {
    const client = settings.client();
    watchdog = new IdleWatchdog(controller, settings.idleTimeoutMs ?? client.timeout);
    const requestOptions: RequestOptions = { signal: controller.signal, maxRetries: 0 };
    if (settings.timeoutMs !== undefined) requestOptions.timeout = settings.timeoutMs;
    if (options.headers) requestOptions.headers = options.headers;
    const send = async (outputMode: StructuredOutputMode): Promise<Response> => {
      let body: unknown = protocol.buildPayload(model, context, options, outputMode);
      if (options.onPayload) {
        const replaced = await options.onPayload(body, model);
        if (replaced !== undefined) body = replaced;
      }
      controller.signal.throwIfAborted();
      return sendWithRetries(
        () => protocol.request(client, body, requestOptions).asResponse(),
        settings.maxRetries ?? client.maxRetries,
        client.baseURL,
        controller.signal,
      );
    };
    const response = await sendWithOutputFallback(
      send,
      settings.outputModes,
      client.baseURL,
      model,
      context,
      controller.signal,
    );
    if (options.onResponse) await options.onResponse(responseInfo(response), model);
    if (response.body === null)
      throw new ServerStreamError("sent a reply without a body", "not_an_event_stream");
    builder.start();
    const handler = protocol.createHandler(builder, model);
    watchdog.arm();
    for await (const chunk of decodeEventStream(response.body)) {
      watchdog.lastActivity = Date.now();
      handler.onChunk(chunk as TChunk);
      const events = builder.takeEvents();
      for (let i = 0; i < events.length; i++) yield events[i]!;
    }
    if (controller.signal.aborted) failAfterAbort(builder, watchdog, userSignal);
    else handler.onStreamEnd();
  } catch (error) {
    if (controller.signal.aborted) failAfterAbort(builder, watchdog, userSignal);
    else builder.fail(describeError(error, model.provider), false);
  } finally {
    watchdog?.disarm();
    userSignal?.removeEventListener("abort", abortFromUser);
    // A consumer that stopped iterating early keeps a message of plain data.
    builder.abandonToolCalls();
    // Stops the HTTP request when the consumer stops iterating early.
    if (!controller.signal.aborted) controller.abort();
  }
  const events = builder.takeEvents();
  for (let i = 0; i < events.length; i++) yield events[i]!;
}

/**
 * Sends the request in the output mode `outputModes` holds for this server and model. When the
 * context asks for output and the server rejects the requested format itself
 * (`isOutputFormatRejection`), the rejection is remembered and the request is sent once more, built
 * in `"instructions"` mode; not after an abort. Rejects with the last attempt's error.
 */
async function sendWithOutputFallback(
  send: (outputMode: StructuredOutputMode) => Promise<Response>,
  outputModes: StructuredOutputModes,
  baseURL: string,
  model: Model,
  context: LlmContext,
  signal: AbortSignal,
): Promise<Response> {
  const outputMode =
    context.output === undefined ? outputModes.configured : outputModes.modeFor(baseURL, model);
  try {
    return await send(outputMode);
  } catch (error) {
    const retryable =
      context.output !== undefined &&
      outputMode !== "instructions" &&
      !signal.aborted &&
      isOutputFormatRejection(error);
    if (!retryable) throw error;
    outputModes.fallBack(baseURL, model);
    return send("instructions");
  }
}

function failAfterAbort(
  builder: PartialMessageBuilder,
  watchdog: IdleWatchdog | undefined,
  userSignal: AbortSignal | undefined,
): void {
  if (watchdog?.fired && !userSignal?.aborted) {
    builder.fail(`The server sent no data for ${watchdog.timeoutMs} ms; the request was cancelled`, false);
  } else {
    builder.fail("Request was aborted", true);
  }
}

function responseInfo(response: Response): { status: number; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return { status: response.status, headers };
}

/**
 * Cancels the request when the body stalls. One timer per request that re-arms itself for the
 * remaining time, so a chunk costs only a `Date.now()`.
 */
class IdleWatchdog {
  lastActivity = 0;
  fired = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly controller: AbortController,
    readonly timeoutMs: number,
  ) {}

  arm(): void {
    this.lastActivity = Date.now();
    this.schedule(this.timeoutMs);
  }

  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => this.check(), delay);
    (this.timer as { unref?: () => void }).unref?.();
  }

  private check(): void {
    const remaining = this.lastActivity + this.timeoutMs - Date.now();
    if (remaining > 0) {
      this.schedule(remaining);
      return;
    }
    this.timer = undefined;
    this.fired = true;
    this.controller.abort(new Error("idle timeout"));
  }
}

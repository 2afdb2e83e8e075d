import OpenAI from "openai";
import type { Model, ModelInput } from "../../types/model.js";
import { resolveModel } from "../../types/resolve-model.js";
import type { AssistantMessageEvent, LlmContext, StreamOptions } from "../../types/stream.js";
import { chatCompletionsProtocol } from "./chat-completions.js";
import { responsesProtocol } from "./responses.js";
import { runStream } from "./run-stream.js";
import { type StructuredOutputMode, StructuredOutputModes } from "./structured-output.js";
import type { WireProtocol } from "./wire-protocol.js";

/** Options of the `openai()` provider factory. */
export interface OpenAIProviderOptions {
  /** API key; falls back to `OPENAI_API_KEY`, then to "not-needed" (local servers ignore it). */
  apiKey?: string;
  /** Server base URL, e.g. `http://localhost:11434/v1`; falls back to `model.baseUrl`, then `OPENAI_BASE_URL`. */
  baseURL?: string;
  /** A ready SDK client; when given, `apiKey`, `baseURL` and `defaultHeaders` are ignored. */
  client?: OpenAI;
  /**
   * Wire protocol for models whose `api` does not pin one ("openai", the default of model records):
   * Chat Completions (default) or the Responses API. A model with `api: "openai-chat"` or
   * `api: "openai-responses"` always uses that protocol.
   */
  api?: "chat" | "responses";
  /**
   * Retries of 408/409/429/5xx, connection errors and timeouts (the SDK's rules: exponential backoff,
   * honours `retry-after`); a server that cannot be reached at all is retried at most once, quickly.
   * Default: the client's `maxRetries` (SDK default 2).
   */
  maxRetries?: number;
  /** Milliseconds to wait for the response headers, and the longest silence tolerated while streaming. SDK default: 10 min. */
  timeoutMs?: number;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
  /**
   * How a request whose context has `output` asks for the typed value (docs/providers.md, "Typed
   * output"): `"json_schema"` (default) gives the server the schema (Chat `response_format`,
   * Responses `text.format`); `"json_object"` asks for any JSON object and describes the schema at
   * the end of the system prompt; `"instructions"` only describes it there, for servers that take
   * neither. A server that rejects the requested format (an HTTP error naming `response_format`,
   * `text.format`, `json_schema` or `json_object` as unsupported) is asked once more in
   * `"instructions"` mode, and gets that mode for that model for the rest of this StreamFn's life.
   */
  structuredOutput?: StructuredOutputMode;
}

/**
 * The StreamFn `openai()` returns: a `StreamFn` whose result is always an async iterable (an async
 * generator), so it can be consumed directly with `for await`. `model` may also be a catalogue id
 * or a partial record (see `resolveModel`); `options` may be omitted.
 */
export type OpenAIStreamFn = (
  model: ModelInput,
  context: LlmContext,
  options?: StreamOptions,
) => AsyncIterable<AssistantMessageEvent>;

/** Used when no API key is configured anywhere; local OpenAI-compatible servers accept any key. */
export const PLACEHOLDER_API_KEY = "not-needed";

/**
 * A `StreamFn` over the official `openai` SDK, for OpenAI and any OpenAI-compatible server
 * (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, …). The protocol is the model's: `api:
 * "openai-chat"` or `"openai-responses"`; a model that does not pin one (`api: "openai"`, the
 * default of records and catalogue models) gets `providerOptions.api` (Chat Completions by default).
 *
 * Returns an async iterable of `AssistantMessageEvent`s that never throws: HTTP errors (after the
 * retries of 429/5xx), connection loss, timeouts and malformed streams end with an
 * `error` event (`stopReason: "error"`, `errorMessage` with the HTTP status and the server's
 * message); an aborted `options.signal` cancels the request and ends with
 * `error {reason: "aborted"}`, keeping the partial content. A tool call whose JSON arguments are
 * malformed does not fail the reply: it ends with `arguments: {}` and `invalidArguments` (see
 * `ToolCall`), and the loop answers it with an error result. `toolcall_delta` events carry the
 * arguments parsed so far in `partial.content[contentIndex].arguments`. Per-call `options.apiKey`,
 * `options.maxRetries`, `options.timeoutMs` and `options.headers` override the factory's. A context
 * with `output` asks for JSON text matching its schema, as `providerOptions.structuredOutput` says
 * (default: the schema as `response_format` / `text.format`, falling back to instructions for a
 * server that refuses it).
 *
 * ```ts
 * import { openai } from "agentchart/openai";
 * const streamFn = openai({ baseURL: "http://localhost:11434/v1" });
 * const messages = [{ role: "user" as const, content: "Hello", timestamp: Date.now() }];
 * for await (const event of streamFn("qwen3:8b", { systemPrompt: "", messages, tools: [] })) {
 *   if (event.type === "text_delta") process.stdout.write(event.delta);
 * }
 * ```
 */
export function openai(providerOptions: OpenAIProviderOptions = {}): OpenAIStreamFn {
  const clients = new Map<string, OpenAI>();
  const outputModes = new StructuredOutputModes(providerOptions.structuredOutput ?? "json_schema");
  const defaultProtocol = providerOptions.api === "responses" ? responsesProtocol : chatCompletionsProtocol;
  /** The model's own protocol when its `api` names one, else the factory's. */
  const protocolFor = (model: Model) =>
    (model.api === "openai-responses"
      ? responsesProtocol
      : model.api === "openai-chat"
        ? chatCompletionsProtocol
        : defaultProtocol) as WireProtocol<unknown>;

  const clientFor = (model: Model, apiKey: string | undefined): OpenAI => {
    const base = providerOptions.client ?? sharedClient(model);
    return apiKey !== undefined && apiKey !== base.apiKey ? base.withOptions({ apiKey }) : base;
  };

  const sharedClient = (model: Model): OpenAI => {
    const baseURL = providerOptions.baseURL ?? model.baseUrl ?? env("OPENAI_BASE_URL");
    const cacheKey = baseURL ?? "";
    let client = clients.get(cacheKey);
    if (client === undefined) {
      client = new OpenAI({
        apiKey: providerOptions.apiKey ?? env("OPENAI_API_KEY") ?? PLACEHOLDER_API_KEY,
        baseURL: baseURL ?? null,
        defaultHeaders: providerOptions.defaultHeaders,
        // Failures are reported in the reply's errorMessage; the SDK's console logging would duplicate them.
        logLevel: env("OPENAI_LOG") === undefined ? "off" : undefined,
      });
      clients.set(cacheKey, client);
    }
    return client;
  };

  return (
    modelInput: ModelInput,
    context: LlmContext,
    options: StreamOptions = {},
  ): AsyncIterable<AssistantMessageEvent> => {
    const model = resolveModel(modelInput);
    const timeoutMs = options.timeoutMs ?? providerOptions.timeoutMs;
    return runStream(
      protocolFor(model),
      {
        client: () => clientFor(model, options.apiKey),
        idleTimeoutMs: timeoutMs,
        maxRetries: options.maxRetries ?? providerOptions.maxRetries,
        timeoutMs,
        outputModes,
      },
      model,
      context,
      options,
    );
  };
}

function env(name: string): string | undefined {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
    name
  ];
  return value === "" ? undefined : value;
}

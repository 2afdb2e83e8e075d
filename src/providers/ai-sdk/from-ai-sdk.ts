import type { LanguageModelV3, LanguageModelV3CallOptions, SharedV3ProviderOptions } from "@ai-sdk/provider";
import type { Model, ModelInput, ModelRecord } from "../../types/model.js";
import { resolveModel } from "../../types/resolve-model.js";
import type { AssistantMessageEvent, LlmContext, StreamOptions } from "../../types/stream.js";
import { PartialMessageBuilder } from "../partial-message.js";
import type { TranscriptTarget } from "../transcript-for-model.js";
import { toAiSdkPrompt, toAiSdkTools } from "./convert-prompt.js";
import { asLanguageModelV3 } from "./language-model.js";
import { addCachePoints, type CacheRetention } from "./prompt-cache.js";
import { providerFamily } from "./provider-metadata.js";
import { reasoningOptions } from "./reasoning-options.js";
import { runAiSdkStream } from "./run-ai-sdk-stream.js";

/** Options of `fromAiSdk`. */
export interface FromAiSdkOptions {
  /**
   * Fields of the agentchart `Model` to set or override (context window, output cap, prices,
   * `reasoning`, `input`); the rest comes from the catalogue entry of the model's id, if any.
   */
  model?: Partial<Omit<ModelRecord, "id">>;
  /**
   * Provider options sent with every request, merged per provider under the adapter's own
   * (thinking, cache points), e.g. `{ anthropic: { disableParallelToolUse: true } }`.
   */
  providerOptions?: SharedV3ProviderOptions;
  /**
   * Prompt caching when a request does not say (`StreamOptions.cacheRetention`): Anthropic models
   * default to "short" (cache points on the system prompt, the last tool and the last message);
   * other providers cache on their own.
   */
  cacheRetention?: CacheRetention;
  /**
   * Retries of a first request the provider marks retryable (429, 5xx, `overloaded_error` before
   * the first part, connection errors); default 2. A reply that already streamed is never re-sent.
   */
  maxRetries?: number;
}

/**
 * The StreamFn `fromAiSdk` returns: a `StreamFn` whose result is an async iterable, for any
 * agentchart model record (`model` sets the caps, prices and reasoning; the request always goes to
 * the AI SDK model given to `fromAiSdk`).
 */
export type AiSdkStreamFn = (
  model: ModelInput,
  context: LlmContext,
  options?: StreamOptions,
) => AsyncIterable<AssistantMessageEvent>;

/** What `fromAiSdk` returns: spread it into `new Agent({ ...fromAiSdk(model), tools })`. */
export interface AiSdkModel {
  /** The agentchart model: the catalogue's entry for the id when it has one, with `api` and `provider` of the AI SDK model. */
  model: Model;
  streamFn: AiSdkStreamFn;
}

/**
 * Turns an AI SDK language model (`LanguageModelV3`, from `@ai-sdk/provider` 3.x: the provider
 * packages of the `ai` 6 line, e.g. `anthropic("claude-sonnet-4-5")` from `@ai-sdk/anthropic`,
 * `google("gemini-2.5-flash")`, `bedrock(…)`, `mistral(…)`) into an agentchart model and StreamFn.
 *
 * - The `model` is the catalogue's entry for `languageModel.modelId` when it knows the id (window,
 *   output cap, prices with cache prices, reasoning), else the defaults; `api` is the AI SDK
 *   provider id ("anthropic.messages"), `provider` its family ("anthropic").
 * - Replies stream text, reasoning (signatures and redacted reasoning kept on the blocks, and sent
 *   back on the next request to the same model), tool calls with their arguments as they arrive, and
 *   usage in the project's meaning (`input` without cache reads and writes).
 * - A transcript written by another model is adapted first (`transcriptForModel`).
 * - `options.reasoning` (the agent's thinking level) asks Anthropic, Google and OpenAI models to
 *   think (`reasoningOptions`); Anthropic prompts get cache points (`addCachePoints`).
 * - The StreamFn never throws: provider errors end the reply with an `error` event in the OpenAI
 *   provider's wording, so the harness retries the same ones (an overload mid-stream is retryable,
 *   a context overflow is compacted); `options.signal` cancels the request (the connection closes)
 *   and ends with `error {reason: "aborted"}`.
 *
 * Contract: synchronous; throws `AiSdkSetupError` (`not_an_ai_sdk_model`, `unsupported_specification`)
 * when `languageModel` is not an AI SDK model of specification "v3". A missing API key is reported
 * by the provider before it sends anything: the reply is an error naming the variable.
 *
 * ```ts
 * import { anthropic } from "@ai-sdk/anthropic";
 * import { Agent } from "agentchart";
 * import { fromAiSdk } from "agentchart/ai-sdk";
 * const agent = new Agent({ ...fromAiSdk(anthropic("claude-sonnet-4-5")), tools });
 * ```
 */
export function fromAiSdk(languageModel: LanguageModelV3, options: FromAiSdkOptions = {}): AiSdkModel {
  const checked = asLanguageModelV3(languageModel);
  const family = providerFamily(checked.provider);
  const target: TranscriptTarget = { api: checked.provider, provider: family, model: checked.modelId };
  const model: Model = {
    ...resolveModel({ id: checked.modelId, ...options.model }),
    api: checked.provider,
    provider: family,
  };
  const defaultRetention: CacheRetention =
    options.cacheRetention ?? (family === "anthropic" ? "short" : "none");
  const streamFn: AiSdkStreamFn = (modelInput, context, streamOptions = {}) => {
    const requestModel = resolveModel(modelInput);
    const builder = new PartialMessageBuilder(
      { ...requestModel, provider: family, id: checked.modelId },
      checked.provider,
    );
    const callOptions = (signal: AbortSignal): LanguageModelV3CallOptions => {
      const prompt = toAiSdkPrompt(requestModel, context, target, family);
      const tools = context.tools.length > 0 ? toAiSdkTools(context.tools) : undefined;
      addCachePoints(family, streamOptions.cacheRetention ?? defaultRetention, prompt, tools);
      const reasoning = requestModel.reasoning ? streamOptions.reasoning : undefined;
      const call: LanguageModelV3CallOptions = { prompt, abortSignal: signal };
      if (tools) call.tools = tools;
      if (context.output) {
        call.responseFormat = { type: "json", schema: context.output.schema, name: context.output.name };
      }
      if (streamOptions.maxTokens !== undefined) call.maxOutputTokens = streamOptions.maxTokens;
      if (streamOptions.temperature !== undefined) call.temperature = streamOptions.temperature;
      if (streamOptions.headers) call.headers = streamOptions.headers;
      const providerOptions = mergeProviderOptions(
        options.providerOptions,
        reasoningOptions(family, checked.modelId, reasoning),
      );
      if (providerOptions) call.providerOptions = providerOptions;
      return call;
    };
    return runAiSdkStream(
      {
        languageModel: checked,
        family,
        callOptions,
        maxRetries: streamOptions.maxRetries ?? options.maxRetries ?? 2,
      },
      builder,
      requestModel,
      streamOptions,
    );
  };
  return { model, streamFn };
}

/** `base` with `extra`'s options merged in per provider (`extra` wins on a clash). */
function mergeProviderOptions(
  base: SharedV3ProviderOptions | undefined,
  extra: SharedV3ProviderOptions | undefined,
): SharedV3ProviderOptions | undefined {
  if (extra === undefined) return base;
  if (base === undefined) return extra;
  const merged: SharedV3ProviderOptions = { ...base };
  for (const [provider, values] of Object.entries(extra)) merged[provider] = { ...base[provider], ...values };
  return merged;
}

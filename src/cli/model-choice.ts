import type { CompactionSettings } from "../harness/compaction/port.js";
import { errorText } from "../types/error-text.js";
import type { Model } from "../types/model.js";
import { resolveModel } from "../types/resolve-model.js";
import type { StreamFn } from "../types/stream.js";
import { CliError } from "./cli-error.js";
import { OFFLINE_COMPACTION, OFFLINE_MODEL, offlineModel } from "./offline-model.js";

/** The model the CLI talks to, how to reach it, and a one-line description for the banner. */
export interface ModelChoice {
  model: Model;
  streamFn: StreamFn;
  offline: boolean;
  banner: string;
  /** Compaction settings for this model (default: the harness's). */
  compaction?: Partial<CompactionSettings>;
}

export interface ModelChoiceOptions {
  /**
   * `--provider`; else `AGENTCHART_PROVIDER`; else "openai" (OpenAI or any OpenAI-compatible
   * server). "anthropic" and "google" go through `agentchart/ai-sdk` and need their package
   * (`@ai-sdk/anthropic`, `@ai-sdk/google`) and key (`ANTHROPIC_API_KEY`, `GOOGLE_GENERATIVE_AI_API_KEY`).
   */
  provider?: string;
  /** `--model`; else `AGENTCHART_MODEL`; else the provider's default (`gpt-4o-mini` for OpenAI) / `offline`. */
  modelId?: string;
  /** `--base-url`; else `OPENAI_BASE_URL` (for "openai"; other providers: their API's default). */
  baseUrl?: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The provider named by `--provider` (or `AGENTCHART_PROVIDER`): "anthropic" or "google" through
 * the AI SDK (`chooseAiSdkModel`), else OpenAI: online when `OPENAI_API_KEY` is set or a server URL
 * is given (`--base-url` or `OPENAI_BASE_URL`; local servers need no key), through the `openai()`
 * provider. Otherwise the offline script (`offlineModel`), which the banner says.
 *
 * Contract: async; rejects with `CliError` (exit code 2) for an unknown provider, and for a named AI
 * SDK provider whose key is not set (naming the variable) or whose package is not installed (naming
 * the `npm install`).
 */
export async function chooseModel(options: ModelChoiceOptions): Promise<ModelChoice> {
  const provider = options.provider ?? options.env.AGENTCHART_PROVIDER ?? "openai";
  const modelId = options.modelId ?? options.env.AGENTCHART_MODEL;
  if (provider !== "openai") return chooseAiSdkModel(provider, modelId, options);
  const baseUrl = options.baseUrl ?? options.env.OPENAI_BASE_URL;
  if (options.env.OPENAI_API_KEY || baseUrl !== undefined) {
    const id = modelId ?? "gpt-4o-mini";
    // A catalogue model (`gpt-4.1-mini`, `qwen3:8b`…) brings its window, output cap and prices.
    const model = resolveModel(baseUrl === undefined ? id : { id, baseUrl });
    // Loaded only when needed: the offline path does not pay for the SDK.
    const { openai } = await import("../providers/openai/openai-provider.js");
    return {
      model,
      // No silent retries in the SDK: the harness retries transient errors itself, and says so.
      streamFn: openai({ apiKey: options.env.OPENAI_API_KEY, baseURL: baseUrl, maxRetries: 0 }),
      offline: false,
      banner: `model ${id} via ${baseUrl ?? "api.openai.com"}`,
    };
  }
  return {
    model: modelId === undefined ? OFFLINE_MODEL : { ...OFFLINE_MODEL, id: modelId },
    streamFn: offlineModel(),
    offline: true,
    compaction: OFFLINE_COMPACTION,
    banner: "offline: scripted model (set OPENAI_API_KEY or OPENAI_BASE_URL for a real one)",
  };
}

/**
 * A provider of `agentchart/ai-sdk` (`AI_SDK_PROVIDERS`) by name, with its usual API key variable.
 * The StreamFn asks the provider for the model of each request's id, so `/model` switches models.
 */
async function chooseAiSdkModel(
  provider: string,
  modelId: string | undefined,
  options: ModelChoiceOptions,
): Promise<ModelChoice> {
  const { AI_SDK_PROVIDERS, loadAiSdkProvider } = await import("../providers/ai-sdk/provider-packages.js");
  const known = (AI_SDK_PROVIDERS as Record<string, { defaultModel: string; apiKeyVariable: string }>)[
    provider
  ];
  if (known === undefined) {
    throw new CliError(
      `unknown provider "${provider}": choose openai (also any OpenAI-compatible server), ${Object.keys(
        AI_SDK_PROVIDERS,
      )
        .filter((name) => name !== "openai")
        .join(", ")}`,
      2,
    );
  }
  const { env } = options;
  let modelFor: Awaited<ReturnType<typeof loadAiSdkProvider>>;
  try {
    // No silent retries: the harness retries transient errors itself, and says so.
    modelFor = await loadAiSdkProvider({ provider, env, baseURL: options.baseUrl, maxRetries: 0 });
  } catch (error) {
    throw new CliError(errorText(error), 2);
  }
  const id = modelId ?? known.defaultModel;
  const streamFn: StreamFn = (model, context, streamOptions) =>
    modelFor(model.id).streamFn(model, context, streamOptions);
  return {
    model: modelFor(id).model,
    streamFn,
    offline: false,
    banner: `model ${id} via ${provider} (AI SDK)${options.baseUrl === undefined ? "" : ` at ${options.baseUrl}`}`,
  };
}

/** The same model with another id (for `/model` and sessions that recorded another model). */
export function withModelId(model: Model, id: string): Model {
  const { name: _name, ...rest } = model;
  return { ...rest, id };
}

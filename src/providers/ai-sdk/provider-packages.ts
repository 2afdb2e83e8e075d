import type { LanguageModelV3 } from "@ai-sdk/provider";
import { importOptionalPeer } from "../../types/optional-peer.js";
import { AiSdkSetupError } from "./ai-sdk-setup-error.js";
import { type AiSdkModel, type FromAiSdkOptions, fromAiSdk } from "./from-ai-sdk.js";

/** A provider package `aiSdkModel` can load by name: its package, environment variable and default model. */
interface KnownProvider {
  packageName: "@ai-sdk/anthropic" | "@ai-sdk/google" | "@ai-sdk/openai";
  /** The factory the package exports (`createAnthropic`, …). */
  factory: string;
  apiKeyVariable: string;
  defaultModel: string;
}

/** The providers `aiSdkModel` knows by name; any other AI SDK provider works through `fromAiSdk`. */
export const AI_SDK_PROVIDERS = {
  anthropic: {
    packageName: "@ai-sdk/anthropic",
    factory: "createAnthropic",
    apiKeyVariable: "ANTHROPIC_API_KEY",
    defaultModel: "claude-sonnet-4-5",
  },
  google: {
    packageName: "@ai-sdk/google",
    factory: "createGoogleGenerativeAI",
    apiKeyVariable: "GOOGLE_GENERATIVE_AI_API_KEY",
    defaultModel: "gemini-2.5-flash",
  },
  openai: {
    packageName: "@ai-sdk/openai",
    factory: "createOpenAI",
    apiKeyVariable: "OPENAI_API_KEY",
    defaultModel: "gpt-5-mini",
  },
} as const satisfies Record<string, KnownProvider>;

/** A provider name `aiSdkModel` knows. */
export type AiSdkProviderName = keyof typeof AI_SDK_PROVIDERS;

/** Options of `aiSdkModel`. */
export interface AiSdkModelOptions extends FromAiSdkOptions {
  /** "anthropic", "google" or "openai". */
  provider: string;
  /** The model id; default: the provider's (see `AI_SDK_PROVIDERS`). */
  modelId?: string;
  /** API key; default: the provider's environment variable (`ANTHROPIC_API_KEY`, …). */
  apiKey?: string;
  /** Server base URL, for proxies and gateways; default: the provider's. */
  baseURL?: string;
  /** Where the API key variable is read (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/**
 * Loads a provider package by name and makes its model an agentchart model and StreamFn
 * (`fromAiSdk`), for apps and the CLI that pick the provider at run time.
 *
 * Contract: async; rejects with `AiSdkSetupError` `unknown_provider` (naming the known ones) and
 * `missing_api_key` (naming the variable and `apiKey`; nothing is sent) before loading anything,
 * and with `MissingPeerDependencyError` (naming the `npm install` to run) when the package is not
 * installed.
 *
 * ```ts
 * const { model, streamFn } = await aiSdkModel({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
 * ```
 */
export async function aiSdkModel(options: AiSdkModelOptions): Promise<AiSdkModel> {
  const modelFor = await loadAiSdkProvider(options);
  return modelFor(
    options.modelId ?? (AI_SDK_PROVIDERS as Record<string, KnownProvider>)[options.provider]!.defaultModel,
  );
}

/**
 * Like `aiSdkModel`, but returns a function that makes the provider's model of any id (memoised),
 * for apps that switch models within one provider (the CLI's `/model`). `options.modelId` is ignored.
 *
 * Contract: async; rejects as `aiSdkModel` does; the returned function is synchronous and throws
 * nothing for an id the provider does not know (its server will say).
 */
export async function loadAiSdkProvider(
  options: AiSdkModelOptions,
): Promise<(modelId: string) => AiSdkModel> {
  const known = (AI_SDK_PROVIDERS as Record<string, KnownProvider>)[options.provider];
  if (known === undefined) {
    throw new AiSdkSetupError(
      "unknown_provider",
      `Unknown provider "${options.provider}": choose ${Object.keys(AI_SDK_PROVIDERS).join(", ")}, ` +
        `or pass any AI SDK model to fromAiSdk().`,
    );
  }
  const env =
    options.env ?? (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const apiKey = options.apiKey ?? nonEmpty(env?.[known.apiKeyVariable]);
  if (apiKey === undefined) {
    throw new AiSdkSetupError(
      "missing_api_key",
      `No API key for ${options.provider}: set ${known.apiKeyVariable} or pass apiKey.`,
    );
  }
  const module = await importOptionalPeer<Record<string, unknown>>(known.packageName, "agentchart/ai-sdk");
  const create = module[known.factory] as (settings: {
    apiKey: string;
    baseURL?: string;
  }) => (id: string) => LanguageModelV3;
  const provider = create(options.baseURL === undefined ? { apiKey } : { apiKey, baseURL: options.baseURL });
  const models = new Map<string, AiSdkModel>();
  return (modelId) => {
    let model = models.get(modelId);
    if (model === undefined) {
      model = fromAiSdk(provider(modelId), options);
      models.set(modelId, model);
    }
    return model;
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

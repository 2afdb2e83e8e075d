import type { CompactionSettings } from "../harness/compaction/port.js";
import type { Model } from "../types/model.js";
import { resolveModel } from "../types/resolve-model.js";
import type { StreamFn } from "../types/stream.js";
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
  /** `--model`; else `AGENTCHART_MODEL`; else `gpt-4o-mini` (online) / `offline`. */
  modelId?: string;
  /** `--base-url`; else `OPENAI_BASE_URL`. */
  baseUrl?: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Online when `OPENAI_API_KEY` is set or a server URL is given (`--base-url` or `OPENAI_BASE_URL`;
 * local servers need no key): the `openai()` provider. Otherwise the offline script (`offlineModel`), which the banner says.
 */
export async function chooseModel(options: ModelChoiceOptions): Promise<ModelChoice> {
  const baseUrl = options.baseUrl ?? options.env.OPENAI_BASE_URL;
  const modelId = options.modelId ?? options.env.AGENTCHART_MODEL;
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

/** The same model with another id (for `/model` and sessions that recorded another model). */
export function withModelId(model: Model, id: string): Model {
  const { name: _name, ...rest } = model;
  return { ...rest, id };
}

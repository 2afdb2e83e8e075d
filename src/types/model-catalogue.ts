import type { Model } from "./model.js";

/** A catalogue entry: a model record, plus other ids servers know it by (Ollama tags). */
export interface CatalogueModel extends Model {
  aliases?: readonly string[];
}

/**
 * Sources and dates.
 *
 * OpenAI models: context window, max output tokens and prices (USD per 1M tokens: input, cached
 * input, output; OpenAI charges nothing for writing the prompt cache, hence `cacheWrite: 0`) as
 * OpenAI publishes them on platform.openai.com/docs/models/<id> and openai.com/api/pricing (standard
 * tier, not Batch or Flex), as known in August 2025 and checked on 2026-12-01 against third-party
 * listings that mirror them (models.dev-based model pages). Prices change: pass `cost` to override.
 *
 * Open-weight models: context window from each model card on huggingface.co/<id> (the native
 * window, without YaRN extension), as of 2025-08. They have no price of their own — it depends on
 * who serves them (a local server is free) — so they carry no `cost`. `maxTokens` is the
 * generation length the card states (Qwen2.5: 8,192; Qwen3: 32,768 recommended; DeepSeek-R1:
 * 32,768 in its evaluations); Llama cards and DeepSeek-V3 state none beyond the context window, so
 * they get agentchart's default cap of 8,192. A server may run a model with a smaller window
 * (Ollama's `num_ctx`): give `contextWindow` yourself then. Their ids are the Hugging Face ids
 * (vLLM, SGLang, TGI serve them under these; OpenRouter under the same in lower case), with
 * Ollama's tags as aliases.
 */
const OPENAI: CatalogueModel[] = [
  openaiModel("gpt-5", "GPT-5", 400_000, 128_000, [1.25, 0.125, 10], { reasoning: true }),
  openaiModel("gpt-5-mini", "GPT-5 mini", 400_000, 128_000, [0.25, 0.025, 2], { reasoning: true }),
  openaiModel("gpt-5-nano", "GPT-5 nano", 400_000, 128_000, [0.05, 0.005, 0.4], { reasoning: true }),
  openaiModel("gpt-4.1", "GPT-4.1", 1_047_576, 32_768, [2, 0.5, 8]),
  openaiModel("gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, [0.4, 0.1, 1.6]),
  openaiModel("gpt-4.1-nano", "GPT-4.1 nano", 1_047_576, 32_768, [0.1, 0.025, 0.4]),
  openaiModel("gpt-4o", "GPT-4o", 128_000, 16_384, [2.5, 1.25, 10]),
  openaiModel("gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, [0.15, 0.075, 0.6]),
  openaiModel("o3", "o3", 200_000, 100_000, [2, 0.5, 8], { reasoning: true }),
  openaiModel("o4-mini", "o4-mini", 200_000, 100_000, [1.1, 0.275, 4.4], { reasoning: true }),
  openaiModel("o3-mini", "o3-mini", 200_000, 100_000, [1.1, 0.55, 4.4], { reasoning: true, input: ["text"] }),
];

const OPEN_WEIGHTS: CatalogueModel[] = [
  openModel("meta-llama/Llama-3.1-8B-Instruct", "Llama 3.1 8B Instruct", 131_072, 8_192, [
    "llama3.1:8b",
    "llama3.1",
  ]),
  openModel("meta-llama/Llama-3.1-70B-Instruct", "Llama 3.1 70B Instruct", 131_072, 8_192, ["llama3.1:70b"]),
  openModel("meta-llama/Llama-3.2-3B-Instruct", "Llama 3.2 3B Instruct", 131_072, 8_192, [
    "llama3.2:3b",
    "llama3.2",
  ]),
  openModel("meta-llama/Llama-3.3-70B-Instruct", "Llama 3.3 70B Instruct", 131_072, 8_192, [
    "llama3.3:70b",
    "llama3.3",
  ]),
  openModel("Qwen/Qwen2.5-7B-Instruct", "Qwen2.5 7B Instruct", 32_768, 8_192, ["qwen2.5:7b", "qwen2.5"]),
  openModel("Qwen/Qwen2.5-72B-Instruct", "Qwen2.5 72B Instruct", 32_768, 8_192, ["qwen2.5:72b"]),
  openModel("Qwen/Qwen2.5-Coder-32B-Instruct", "Qwen2.5 Coder 32B Instruct", 32_768, 8_192, [
    "qwen2.5-coder:32b",
  ]),
  openModel("Qwen/Qwen3-8B", "Qwen3 8B", 32_768, 32_768, ["qwen3:8b", "qwen3"], true),
  openModel("Qwen/Qwen3-32B", "Qwen3 32B", 32_768, 32_768, ["qwen3:32b"], true),
  openModel("Qwen/Qwen3-30B-A3B", "Qwen3 30B A3B", 32_768, 32_768, ["qwen3:30b-a3b", "qwen3:30b"], true),
  openModel(
    "Qwen/Qwen3-235B-A22B",
    "Qwen3 235B A22B",
    32_768,
    32_768,
    ["qwen3:235b-a22b", "qwen3:235b"],
    true,
  ),
  openModel("deepseek-ai/DeepSeek-V3", "DeepSeek-V3", 131_072, 8_192, ["deepseek-v3:671b", "deepseek-v3"]),
  openModel("deepseek-ai/DeepSeek-R1", "DeepSeek-R1", 131_072, 32_768, ["deepseek-r1:671b"], true),
];

/** The built-in catalogue: common OpenAI models and open-weight models served by OpenAI-compatible servers. */
export const MODEL_CATALOGUE: readonly CatalogueModel[] = [...OPENAI, ...OPEN_WEIGHTS];

const byId = new Map<string, CatalogueModel>(
  MODEL_CATALOGUE.flatMap((entry) =>
    [entry.id, ...(entry.aliases ?? [])].map((id) => [id.toLowerCase(), entry]),
  ),
);

/**
 * The catalogue's record for `id` (its id or an alias, in any case), with `id` as given — the id
 * sent to the server — or `undefined` when the catalogue does not know it.
 *
 * Contract: synchronous, never throws.
 *
 * ```ts
 * findModel("llama3.1:8b")?.contextWindow; // 131072
 * ```
 */
export function findModel(id: string): Model | undefined {
  const entry = byId.get(id.toLowerCase());
  if (entry === undefined) return undefined;
  const { aliases: _aliases, ...model } = entry;
  return { ...model, id };
}

/** Thrown by `getModel` for an id the catalogue does not know. */
export class UnknownModelError extends Error {
  readonly code = "unknown_model";
  constructor(readonly modelId: string) {
    super(
      `Unknown model "${modelId}": the catalogue knows ${MODEL_CATALOGUE.map((entry) => entry.id).join(", ")}. ` +
        `For another model, pass a record: { id: "${modelId}", contextWindow, maxTokens } (the rest is defaulted).`,
    );
    this.name = "UnknownModelError";
  }
}

/**
 * The catalogue's record for `id` (its id or an alias, in any case), with `id` as given.
 *
 * Contract: synchronous; throws {@link UnknownModelError} (`code: "unknown_model"`) for an id the
 * catalogue does not know.
 *
 * ```ts
 * const model = getModel("gpt-4.1-mini"); // contextWindow 1047576, cost.input 0.4 …
 * ```
 */
export function getModel(id: string): Model {
  const model = findModel(id);
  if (model === undefined) throw new UnknownModelError(id);
  return model;
}

function openaiModel(
  id: string,
  name: string,
  contextWindow: number,
  maxTokens: number,
  [input, cacheRead, output]: [number, number, number],
  extra: Partial<Model> = {},
): CatalogueModel {
  return {
    id,
    name,
    api: "openai",
    provider: "openai",
    reasoning: false,
    input: ["text", "image"],
    contextWindow,
    maxTokens,
    cost: { input, output, cacheRead, cacheWrite: 0 },
    ...extra,
  };
}

function openModel(
  id: string,
  name: string,
  contextWindow: number,
  maxTokens: number,
  aliases: readonly string[],
  reasoning = false,
): CatalogueModel {
  return {
    id,
    name,
    api: "openai",
    provider: "openai",
    reasoning,
    input: ["text"],
    contextWindow,
    maxTokens,
    aliases,
  };
}

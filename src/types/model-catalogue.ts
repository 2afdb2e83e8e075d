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
 * Anthropic models (api "anthropic-messages"): context window, max output tokens and prices (USD per
 * 1M tokens: input, output, cache hits, 5-minute cache writes; the 1-hour lifetime costs twice the
 * input price to write) as Anthropic publishes them on docs.anthropic.com (models overview and
 * pricing pages), as listed there and on third-party price lists in 2026 (deploybase.ai, March
 * 2026). The window is the standard 200k; the 4.6 models have 1M at standard prices (same sources).
 * Dated ids are aliases.
 *
 * Google models (api "google-generative-ai"): the Gemini API's published window (1,048,576) and
 * output cap (65,536), and standard-tier prices for prompts up to 200k tokens (input, output, cached
 * input at a tenth of the input price; implicit caching writes nothing, explicit cache storage is
 * billed per hour and not modelled), as ai.google.dev/pricing lists them and price lists mirror them
 * (morphllm.com, 2026). Longer prompts cost more on Pro models: pass `cost` to override.
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
  openaiModel("gpt-5.1", "GPT-5.1", 400_000, 128_000, [1.25, 0.125, 10], { reasoning: true }),
  openaiModel("gpt-4.1", "GPT-4.1", 1_047_576, 32_768, [2, 0.5, 8]),
  openaiModel("gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, [0.4, 0.1, 1.6]),
  openaiModel("gpt-4.1-nano", "GPT-4.1 nano", 1_047_576, 32_768, [0.1, 0.025, 0.4]),
  openaiModel("gpt-4o", "GPT-4o", 128_000, 16_384, [2.5, 1.25, 10]),
  openaiModel("gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, [0.15, 0.075, 0.6]),
  openaiModel("o3", "o3", 200_000, 100_000, [2, 0.5, 8], { reasoning: true }),
  openaiModel("o4-mini", "o4-mini", 200_000, 100_000, [1.1, 0.275, 4.4], { reasoning: true }),
  openaiModel("o3-mini", "o3-mini", 200_000, 100_000, [1.1, 0.55, 4.4], { reasoning: true, input: ["text"] }),
];

const ANTHROPIC: CatalogueModel[] = [
  claudeModel("claude-opus-4-6", "Claude Opus 4.6", 128_000, [5, 25, 0.5, 6.25], [], 1_000_000),
  claudeModel("claude-sonnet-4-6", "Claude Sonnet 4.6", 64_000, [3, 15, 0.3, 3.75], [], 1_000_000),
  claudeModel("claude-opus-4-5", "Claude Opus 4.5", 64_000, [5, 25, 0.5, 6.25], ["claude-opus-4-5-20251101"]),
  claudeModel(
    "claude-sonnet-4-5",
    "Claude Sonnet 4.5",
    64_000,
    [3, 15, 0.3, 3.75],
    ["claude-sonnet-4-5-20250929"],
  ),
  claudeModel(
    "claude-haiku-4-5",
    "Claude Haiku 4.5",
    64_000,
    [1, 5, 0.1, 1.25],
    ["claude-haiku-4-5-20251001"],
  ),
  claudeModel(
    "claude-opus-4-1",
    "Claude Opus 4.1",
    32_000,
    [15, 75, 1.5, 18.75],
    ["claude-opus-4-1-20250805"],
  ),
  claudeModel(
    "claude-sonnet-4-0",
    "Claude Sonnet 4",
    64_000,
    [3, 15, 0.3, 3.75],
    ["claude-sonnet-4-20250514"],
  ),
];

const GOOGLE: CatalogueModel[] = [
  geminiModel("gemini-3-pro-preview", "Gemini 3 Pro (preview)", [2, 12]),
  geminiModel("gemini-3-flash-preview", "Gemini 3 Flash (preview)", [0.5, 3]),
  geminiModel("gemini-2.5-pro", "Gemini 2.5 Pro", [1.25, 10]),
  geminiModel("gemini-2.5-flash", "Gemini 2.5 Flash", [0.3, 2.5]),
  geminiModel("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", [0.1, 0.4]),
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

/**
 * The built-in catalogue: common OpenAI, Anthropic and Google models, and open-weight models served
 * by OpenAI-compatible servers.
 */
export const MODEL_CATALOGUE: readonly CatalogueModel[] = [
  ...OPENAI,
  ...ANTHROPIC,
  ...GOOGLE,
  ...OPEN_WEIGHTS,
];

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

/** A Claude model: 200k window unless given, text and images, extended thinking; `[input, output, cacheRead, cacheWrite]`. */
function claudeModel(
  id: string,
  name: string,
  maxTokens: number,
  [input, output, cacheRead, cacheWrite]: [number, number, number, number],
  aliases: readonly string[] = [],
  contextWindow = 200_000,
): CatalogueModel {
  return {
    id,
    name,
    api: "anthropic-messages",
    provider: "anthropic",
    reasoning: true,
    input: ["text", "image"],
    contextWindow,
    maxTokens,
    cost: { input, output, cacheRead, cacheWrite },
    aliases,
  };
}

/** A Gemini model: 1M window, 65,536 output tokens, thinking; cached input at a tenth of `input`. */
function geminiModel(id: string, name: string, [input, output]: [number, number]): CatalogueModel {
  return {
    id,
    name,
    api: "google-generative-ai",
    provider: "google",
    reasoning: true,
    input: ["text", "image"],
    contextWindow: 1_048_576,
    maxTokens: 65_536,
    cost: { input, output, cacheRead: Math.round(input * 100) / 1000, cacheWrite: 0 },
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

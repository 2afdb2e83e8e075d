import type { Usage } from "../../types/messages.js";
import { emptyUsage } from "../../types/messages.js";
import type { Model } from "../../types/model.js";

/** Token counts as both OpenAI APIs report them, normalised. */
export interface ReportedTokens {
  /** All prompt tokens, cached ones included (OpenAI's convention). */
  promptTokens: number;
  /** Prompt tokens served from the provider's cache. */
  cachedTokens: number;
  /** Generated tokens, reasoning tokens included. */
  outputTokens: number;
}

/**
 * Converts reported token counts to a `Usage`, pricing them with `model.cost` ($ per 1M tokens).
 * `input` excludes cached tokens, which are counted (and priced) as `cacheRead`. OpenAI reports no
 * cache writes, so `cacheWrite` stays 0. A model without `cost` yields zero cost.
 */
export function usageFromTokens(tokens: ReportedTokens, model: Model): Usage {
  const usage = emptyUsage();
  const cacheRead = Math.min(Math.max(tokens.cachedTokens, 0), tokens.promptTokens);
  usage.input = tokens.promptTokens - cacheRead;
  usage.cacheRead = cacheRead;
  usage.output = tokens.outputTokens;
  usage.totalTokens = usage.input + usage.cacheRead + usage.output;
  const price = model.cost;
  if (price !== undefined) {
    usage.cost.input = (usage.input * price.input) / 1_000_000;
    usage.cost.cacheRead = (usage.cacheRead * price.cacheRead) / 1_000_000;
    usage.cost.output = (usage.output * price.output) / 1_000_000;
    usage.cost.total = usage.cost.input + usage.cost.cacheRead + usage.cost.output;
  }
  return usage;
}

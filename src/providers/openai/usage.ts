import type { Usage } from "../../types/messages.js";
import { emptyUsage } from "../../types/messages.js";
import type { Model } from "../../types/model.js";
import { priceUsage } from "../usage-cost.js";

/** Token counts as both OpenAI APIs report them, normalised. */
export interface ReportedTokens {
  /** All prompt tokens, cached ones included (OpenAI's convention). */
  promptTokens: number;
  /** Prompt tokens served from the provider's cache. */
  cachedTokens: number;
  /** Generated tokens as reported (`completion_tokens` / `output_tokens`). */
  outputTokens: number;
  /** Reasoning tokens, when reported (`*_tokens_details.reasoning_tokens`). */
  reasoningTokens?: number;
  /** All tokens of the request, when reported (`total_tokens`). */
  totalTokens?: number;
}

/**
 * The generated tokens the counts imply, reasoning included. OpenAI counts reasoning inside
 * `completion_tokens`; xAI reports it apart (`completion_tokens` 2, `reasoning_tokens` 340,
 * `total_tokens` 354 for a 12-token prompt). So the largest of `outputTokens`, `totalTokens − promptTokens`
 * and — when reasoning exceeds the output, which then cannot include it — `outputTokens + reasoningTokens`.
 */
function impliedOutputTokens(tokens: ReportedTokens): number {
  let output = tokens.outputTokens;
  const reasoning = tokens.reasoningTokens ?? 0;
  if (reasoning > output) output += reasoning;
  if (tokens.totalTokens !== undefined) output = Math.max(output, tokens.totalTokens - tokens.promptTokens);
  return output;
}

/**
 * Converts reported token counts to a `Usage`, pricing them with `model.cost` ($ per 1M tokens).
 * `input` excludes cached tokens, which are counted (and priced) as `cacheRead`. OpenAI reports no
 * cache writes, so `cacheWrite` stays 0. `output` includes reasoning tokens also when a server reports
 * them apart (see `impliedOutputTokens`). A model without `cost` yields zero cost.
 */
export function usageFromTokens(tokens: ReportedTokens, model: Model): Usage {
  const usage = emptyUsage();
  const cacheRead = Math.min(Math.max(tokens.cachedTokens, 0), tokens.promptTokens);
  usage.input = tokens.promptTokens - cacheRead;
  usage.cacheRead = cacheRead;
  usage.output = impliedOutputTokens(tokens);
  return priceUsage(usage, model);
}

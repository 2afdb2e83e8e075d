import type { Usage } from "../types/messages.js";
import type { Model } from "../types/model.js";

/**
 * Fills `usage.cost` from its token counts and `model.cost` ($ per 1M tokens: input, output, cache
 * reads, cache writes), and `totalTokens` as the sum of the four counts. A model without `cost`
 * leaves every cost at zero. Returns `usage`, changed in place.
 *
 * Contract: synchronous, never throws.
 *
 * ```ts
 * import { emptyUsage, getModel } from "agentchart";
 * priceUsage({ ...emptyUsage(), input: 1000, output: 100 }, getModel("claude-sonnet-4-5")).cost.total; // 0.0045
 * ```
 */
export function priceUsage(usage: Usage, model: Model): Usage {
  usage.totalTokens = usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
  const price = model.cost;
  if (price === undefined) return usage;
  usage.cost.input = (usage.input * price.input) / 1_000_000;
  usage.cost.output = (usage.output * price.output) / 1_000_000;
  usage.cost.cacheRead = (usage.cacheRead * price.cacheRead) / 1_000_000;
  usage.cost.cacheWrite = (usage.cacheWrite * price.cacheWrite) / 1_000_000;
  usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cacheRead + usage.cost.cacheWrite;
  return usage;
}

import type { LanguageModelV3Usage } from "@ai-sdk/provider";
import { emptyUsage, type Usage } from "../../types/messages.js";
import type { Model } from "../../types/model.js";
import { priceUsage } from "../usage-cost.js";

/**
 * An AI SDK usage report in the project's meaning, priced with `model.cost`: `input` is the prompt
 * tokens read neither from nor into the cache (`noCache`, else the total less both), `cacheRead` and
 * `cacheWrite` the cached ones, `output` every generated token, reasoning included. Counts a
 * provider did not report are 0.
 *
 * Contract: pure, never throws.
 */
export function usageFromAiSdk(reported: LanguageModelV3Usage | undefined, model: Model): Usage {
  const usage = emptyUsage();
  if (reported === undefined) return usage;
  const { inputTokens, outputTokens } = reported;
  usage.cacheRead = count(inputTokens?.cacheRead);
  usage.cacheWrite = count(inputTokens?.cacheWrite);
  usage.input =
    inputTokens?.noCache !== undefined
      ? count(inputTokens.noCache)
      : Math.max(0, count(inputTokens?.total) - usage.cacheRead - usage.cacheWrite);
  usage.output =
    outputTokens?.total !== undefined
      ? count(outputTokens.total)
      : count(outputTokens?.text) + count(outputTokens?.reasoning);
  return priceUsage(usage, model);
}

function count(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

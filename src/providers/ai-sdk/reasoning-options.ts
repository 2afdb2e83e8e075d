import type { SharedV3ProviderOptions } from "@ai-sdk/provider";
import type { ThinkingLevel } from "../../types/model.js";

/** Thinking budget (tokens) per level, for providers that take a budget (Anthropic, Gemini 2.5). */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ThinkingLevel, "off">, number>> = {
  minimal: 1_024,
  low: 2_048,
  medium: 8_192,
  high: 16_384,
  xhigh: 32_768,
};

/**
 * The provider options that ask `family`'s models to think at `level`:
 *
 * - Anthropic: extended thinking with the level's budget (`thinking: { type: "enabled", budgetTokens }`);
 *   the provider adds the budget to the reply's token cap;
 * - Google: Gemini 3 models get a `thinkingLevel` ("low" up to low, else "high"), earlier ones the
 *   level's `thinkingBudget`; both with `includeThoughts`, so the reasoning is streamed;
 * - OpenAI: `reasoningEffort` (xhigh is sent as "high") with a reasoning summary;
 * - any other provider: nothing (set its options through `fromAiSdk`'s `providerOptions`).
 *
 * Contract: pure, never throws; `undefined` when nothing is to be sent.
 */
export function reasoningOptions(
  family: string,
  modelId: string,
  level: Exclude<ThinkingLevel, "off"> | undefined,
): SharedV3ProviderOptions | undefined {
  if (level === undefined) return undefined;
  const budget = THINKING_BUDGETS[level];
  switch (family) {
    case "anthropic":
      return { anthropic: { thinking: { type: "enabled", budgetTokens: budget } } };
    case "google":
      return {
        google: {
          thinkingConfig: /gemini-3/i.test(modelId)
            ? {
                thinkingLevel: level === "minimal" || level === "low" ? "low" : "high",
                includeThoughts: true,
              }
            : { thinkingBudget: budget, includeThoughts: true },
        },
      };
    case "openai":
      return { openai: { reasoningEffort: level === "xhigh" ? "high" : level, reasoningSummary: "auto" } };
    default:
      return undefined;
  }
}

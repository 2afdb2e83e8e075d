import type { LanguageModelV3Usage } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { emptyUsage, getModel } from "../../src/index.js";
import { usageFromAiSdk } from "../../src/providers/ai-sdk/usage.js";
import type { Model } from "../../src/types/model.js";

// `usageFromAiSdk` directly: which AI SDK count lands in which field, and what an odd report counts.

const unpriced: Model = { ...getModel("claude-sonnet-4-5"), cost: undefined };

function report(
  inputTokens: Partial<LanguageModelV3Usage["inputTokens"]> | undefined,
  outputTokens: Partial<LanguageModelV3Usage["outputTokens"]> | undefined,
): LanguageModelV3Usage {
  // Providers may leave out whole groups; the adapter must count them as 0, so the cast is the point.
  return { inputTokens, outputTokens } as LanguageModelV3Usage;
}

function tokens(usage: ReturnType<typeof usageFromAiSdk>) {
  const { input, output, cacheRead, cacheWrite, totalTokens } = usage;
  return { input, output, cacheRead, cacheWrite, totalTokens };
}

describe("usageFromAiSdk", () => {
  it("no report is an empty usage", () => {
    expect(usageFromAiSdk(undefined, unpriced)).toEqual(emptyUsage());
  });

  it("a report without its input and output groups counts every field as 0", () => {
    expect(usageFromAiSdk(report(undefined, undefined), unpriced)).toEqual(emptyUsage());
  });

  it("input is the reported noCache count, not the total less the cache", () => {
    const usage = usageFromAiSdk(
      report({ total: 100, noCache: 55, cacheRead: 30, cacheWrite: 10 }, { total: 7 }),
      unpriced,
    );
    expect(tokens(usage)).toEqual({ input: 55, output: 7, cacheRead: 30, cacheWrite: 10, totalTokens: 102 });
  });

  it("a reported noCache of 0 stays 0 even when the total says otherwise", () => {
    const usage = usageFromAiSdk(report({ total: 100, noCache: 0, cacheRead: 100 }, { total: 1 }), unpriced);
    expect(usage.input).toBe(0);
  });

  it("without noCache, input is the total less cache reads and writes", () => {
    const usage = usageFromAiSdk(
      report({ total: 100, cacheRead: 30, cacheWrite: 10 }, { total: 1 }),
      unpriced,
    );
    expect(tokens(usage)).toEqual({ input: 60, output: 1, cacheRead: 30, cacheWrite: 10, totalTokens: 101 });
  });

  it("without noCache and without cache counts, input is the total", () => {
    expect(usageFromAiSdk(report({ total: 42 }, { total: 1 }), unpriced).input).toBe(42);
  });

  it("a total smaller than the cached counts gives input 0, never a negative count", () => {
    const usage = usageFromAiSdk(
      report({ total: 20, cacheRead: 30, cacheWrite: 10 }, { total: 1 }),
      unpriced,
    );
    expect(usage.input).toBe(0);
  });

  it("output is the reported total, else text plus reasoning", () => {
    expect(usageFromAiSdk(report({ total: 1 }, { total: 9, text: 2, reasoning: 3 }), unpriced).output).toBe(
      9,
    );
    expect(usageFromAiSdk(report({ total: 1 }, { text: 4, reasoning: 3 }), unpriced).output).toBe(7);
    expect(usageFromAiSdk(report({ total: 1 }, { text: 4 }), unpriced).output).toBe(4);
    expect(usageFromAiSdk(report({ total: 1 }, { reasoning: 3 }), unpriced).output).toBe(3);
  });

  it("negative, NaN, infinite and non-number counts are 0", () => {
    for (const odd of [-5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, "12"]) {
      const bad = odd as number;
      const usage = usageFromAiSdk(
        report({ total: 10, noCache: bad, cacheRead: bad, cacheWrite: bad }, { total: bad }),
        unpriced,
      );
      expect(tokens(usage), String(odd)).toEqual({
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
      });
    }
  });

  it("an odd total falls back to 0 before the cache is subtracted", () => {
    expect(usageFromAiSdk(report({ total: -50 }, { total: 1 }), unpriced).input).toBe(0);
    expect(usageFromAiSdk(report({ total: 1 }, { text: -4, reasoning: 3 }), unpriced).output).toBe(3);
  });

  it("the counts are priced with the model's cost", () => {
    const model = getModel("claude-sonnet-4-5");
    const cost = model.cost;
    if (cost === undefined) throw new Error("the catalogue model has a price");
    const usage = usageFromAiSdk(
      report({ noCache: 1_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000 }, { total: 1_000_000 }),
      model,
    );
    expect(usage.cost).toEqual({
      input: cost.input,
      output: cost.output,
      cacheRead: cost.cacheRead,
      cacheWrite: cost.cacheWrite,
      total: cost.input + cost.output + cost.cacheRead + cost.cacheWrite,
    });
  });
});

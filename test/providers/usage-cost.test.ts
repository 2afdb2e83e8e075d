import { describe, expect, it } from "vitest";
import { priceUsage } from "../../src/providers/usage-cost.js";
import { emptyUsage } from "../../src/types/messages.js";
import type { Model } from "../../src/types/model.js";

const model: Model = {
  id: "priced",
  api: "test",
  provider: "test",
  contextWindow: 100_000,
  maxTokens: 4_096,
  cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};

describe("priceUsage", () => {
  it("prices each count per million tokens, sums the total, and counts every token", () => {
    const usage = {
      ...emptyUsage(),
      input: 1_000_000,
      output: 200_000,
      cacheRead: 500_000,
      cacheWrite: 400_000,
    };
    const priced = priceUsage(usage, model);
    expect(priced).toBe(usage);
    expect(priced.totalTokens).toBe(2_100_000);
    expect(priced.cost).toEqual({ input: 3, output: 3, cacheRead: 0.15, cacheWrite: 1.5, total: 7.65 });
  });

  it("leaves the cost at zero for a model without prices, but still counts the tokens", () => {
    const { cost: _prices, ...free } = model;
    const priced = priceUsage({ ...emptyUsage(), input: 10, output: 5, cacheRead: 2, cacheWrite: 1 }, free);
    expect(priced.totalTokens).toBe(18);
    expect(priced.cost).toEqual(emptyUsage().cost);
  });
});

import { describe, expect, it } from "vitest";
import { checkBudget, checkBudgetLimits } from "../../src/loop/budget-check.js";
import { type AgentBudget, BudgetError, type BudgetLimits } from "../../src/types/budget.js";
import type { Model } from "../../src/types/model.js";
import { testModel } from "../support/loop-harness.js";

const priced: Model = { ...testModel, cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } };

/** The BudgetError `check` throws (fails the test when it throws nothing or something else). */
function refusal(check: () => void): BudgetError {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(BudgetError);
    return error as BudgetError;
  }
  throw new Error("expected a BudgetError");
}

describe("budget checks", () => {
  it("accepts every limit as a finite number, zero or more, or left undefined", () => {
    const limits: BudgetLimits = {
      maxTokens: 0,
      maxCostUsd: 0.5,
      maxModelCalls: 3,
      maxToolCalls: 10,
      maxToolCallsPerTool: 2,
      maxTurns: 4,
      maxWallMs: 60_000,
      maxIdenticalCalls: 3,
      maxFailedRepeats: 2,
      maxRepeatedReplies: 2,
    };
    expect(() => checkBudgetLimits(limits, "budget")).not.toThrow();
    expect(() => checkBudgetLimits({ maxTokens: undefined }, "budget")).not.toThrow();
    expect(() => checkBudgetLimits({}, "budget")).not.toThrow();
  });

  it("refuses what is not an object of limits", () => {
    for (const bad of [null, undefined, 5, "maxTokens"]) {
      const error = refusal(() => checkBudgetLimits(bad as unknown as BudgetLimits, "raise"));
      expect(error.code).toBe("invalid_budget");
      expect(error.message).toBe("raise: a budget is an object of limits");
    }
  });

  it("refuses an unknown limit, naming it and the limits there are", () => {
    const error = refusal(() => checkBudgetLimits({ maxTokens: 5, maxTokenz: 5 } as BudgetLimits, "budget"));
    expect(error.code).toBe("invalid_budget");
    expect(error.message).toBe(
      'budget: "maxTokenz" is not a budget limit (the limits: maxTokens, maxCostUsd, maxModelCalls, maxToolCalls, maxToolCallsPerTool, maxTurns, maxWallMs, maxIdenticalCalls, maxFailedRepeats, maxRepeatedReplies)',
    );
  });

  it("refuses a limit that is negative, not finite or not a number, showing the value", () => {
    const cases: [unknown, string][] = [
      [-1, "-1"],
      [Number.NaN, "null"],
      [Number.POSITIVE_INFINITY, "null"],
      ["5", '"5"'],
      [null, "null"],
      [() => 5, "() => 5"],
    ];
    for (const [value, shown] of cases) {
      const error = refusal(() => checkBudgetLimits({ maxTurns: value } as BudgetLimits, "budget"));
      expect(error.code).toBe("invalid_budget");
      expect(error.message).toBe(`budget: maxTurns must be a finite number, zero or more (got ${shown})`);
    }
  });

  it("onExceeded is one action, or one per limit: pause, stop or warn", () => {
    const ok: AgentBudget[] = [
      { maxTurns: 2 },
      { maxTurns: 2, onExceeded: "pause" },
      { maxTurns: 2, onExceeded: "stop" },
      { maxTurns: 2, onExceeded: "warn" },
      { maxTurns: 2, onExceeded: { maxTurns: "warn", maxTokens: "stop" } },
    ];
    for (const budget of ok) expect(() => checkBudget(budget, testModel, "budget")).not.toThrow();
    const whole = refusal(() =>
      checkBudget({ onExceeded: "explode" } as unknown as AgentBudget, testModel, "budget"),
    );
    expect(whole.code).toBe("invalid_budget");
    expect(whole.message).toBe('budget: onExceeded must be "pause", "stop" or "warn" (got "explode")');
    const one = refusal(() =>
      checkBudget(
        { onExceeded: { maxTurns: "stop", maxTokens: 3 } } as unknown as AgentBudget,
        testModel,
        "run",
      ),
    );
    expect(one.message).toBe('run: onExceeded.maxTokens must be "pause", "stop" or "warn" (got 3)');
    expect(one.code).toBe("invalid_budget");
    const unknown = refusal(() =>
      checkBudget({ onExceeded: { maxTokenz: "stop" } } as unknown as AgentBudget, testModel, "run"),
    );
    expect(unknown.message).toBe('run: onExceeded names "maxTokenz", which is not a budget limit');
    expect(unknown.code).toBe("invalid_budget");
    const nullAction = refusal(() =>
      checkBudget({ onExceeded: null } as unknown as AgentBudget, testModel, "run"),
    );
    expect(nullAction.message).toBe('run: onExceeded must be "pause", "stop" or "warn" (got null)');
  });

  it("checks the limits before onExceeded", () => {
    const error = refusal(() =>
      checkBudget({ maxTurns: -1, onExceeded: "explode" } as never, testModel, "budget"),
    );
    expect(error.message).toMatch(/maxTurns must be a finite number/);
  });

  it("a cost limit needs the model's prices", () => {
    const error = refusal(() => checkBudget({ maxCostUsd: 1 }, testModel, "agent"));
    expect(error.code).toBe("no_model_price");
    expect(error.message).toBe(
      'agent: maxCostUsd needs the model\'s prices, and the model "scripted-1" has none: give it a cost ({ input, output, cacheRead, cacheWrite } in USD per million tokens)',
    );
    expect(() => checkBudget({ maxCostUsd: 1 }, priced, "agent")).not.toThrow();
    expect(() => checkBudget({ maxCostUsd: 1 }, undefined, "agent")).not.toThrow();
    expect(() => checkBudget({ maxTokens: 1 }, testModel, "agent")).not.toThrow();
  });
});

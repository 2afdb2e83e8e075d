import type { BudgetLimits } from "../../types/budget.js";
import { createScorer, type Scorer } from "../scorer.js";

/** Limits of {@link withinBudget}: the agent budget's names for usage, and the run's wall time. */
export interface EvalBudget
  extends Pick<BudgetLimits, "maxTokens" | "maxCostUsd" | "maxModelCalls" | "maxToolCalls"> {
  maxLatencyMs?: number;
}

/**
 * Scores 1 when the run stayed within every limit given (tokens, dollars, model calls, tool calls,
 * latency); else 0 naming each limit exceeded and by how much.
 *
 * Contract: returns a {@link Scorer} named `withinBudget`; throws `RangeError` for a negative or
 * non-numeric limit.
 *
 * @example
 * ```ts
 * withinBudget({ maxTokens: 2_000, maxModelCalls: 3, maxLatencyMs: 10_000 });
 * ```
 */
export function withinBudget(budget: EvalBudget): Scorer {
  for (const [name, limit] of Object.entries(budget)) {
    if (!(typeof limit === "number" && limit >= 0)) {
      throw new RangeError(`withinBudget: ${name} must be a number ≥ 0, not ${String(limit)}`);
    }
  }
  return createScorer({
    name: "withinBudget",
    score(run) {
      const used: [keyof EvalBudget, number][] = [
        ["maxTokens", run.usage.tokens],
        ["maxCostUsd", run.usage.costUsd],
        ["maxModelCalls", run.usage.modelCalls],
        ["maxToolCalls", run.usage.toolCalls],
        ["maxLatencyMs", run.latencyMs],
      ];
      const over = used
        .filter(([name, value]) => budget[name] !== undefined && value > (budget[name] as number))
        .map(([name, value]) => `${name} ${budget[name]} exceeded: ${round(value)}`);
      return over.length === 0
        ? { score: 1, reason: "within budget" }
        : { score: 0, reason: over.join("; ") };
    },
  });
}

function round(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}

import { type AgentBudget, BudgetError, type BudgetLimits, type BudgetName } from "../types/budget.js";
import type { Model } from "../types/model.js";

const LIMITS: readonly BudgetName[] = [
  "maxTokens",
  "maxCostUsd",
  "maxModelCalls",
  "maxToolCalls",
  "maxToolCallsPerTool",
  "maxTurns",
  "maxWallMs",
  "maxIdenticalCalls",
  "maxFailedRepeats",
  "maxRepeatedReplies",
];
const ACTIONS = ["pause", "stop", "warn"];

/**
 * Checks limits given to a budget or to a raise: each a finite number, zero or more; no other key.
 *
 * Contract: throws `BudgetError` (`invalid_budget`) naming the first limit refused; returns nothing.
 */
export function checkBudgetLimits(limits: BudgetLimits, where: string): void {
  if (typeof limits !== "object" || limits === null)
    throw new BudgetError("invalid_budget", `${where}: a budget is an object of limits`);
  for (const [name, value] of Object.entries(limits)) {
    if (name === "onExceeded") continue;
    if (!LIMITS.includes(name as BudgetName))
      throw new BudgetError(
        "invalid_budget",
        `${where}: "${name}" is not a budget limit (the limits: ${LIMITS.join(", ")})`,
      );
    if (value === undefined) continue;
    // `Number.isFinite` is false for anything but a finite number (a string, null, NaN).
    if (!Number.isFinite(value) || value < 0)
      throw new BudgetError(
        "invalid_budget",
        `${where}: ${name} must be a finite number, zero or more (got ${JSON.stringify(value) ?? String(value)})`,
      );
  }
}

/**
 * Checks a budget for a run of `model`: its limits, its `onExceeded`, and a price for the model when it
 * sets `maxCostUsd` (the cost of a call is computed from the model's `cost` prices).
 *
 * Contract: throws `BudgetError` — `invalid_budget` naming the limit refused, `no_model_price` naming
 * the model; returns nothing.
 */
export function checkBudget(budget: AgentBudget, model: Model | undefined, where: string): void {
  checkBudgetLimits(budget, where);
  const onExceeded = budget.onExceeded;
  const actions =
    typeof onExceeded === "object" && onExceeded !== null
      ? Object.entries(onExceeded)
      : onExceeded === undefined
        ? []
        : [["onExceeded", onExceeded] as const];
  for (const [name, action] of actions) {
    if (name !== "onExceeded" && !LIMITS.includes(name as BudgetName))
      throw new BudgetError(
        "invalid_budget",
        `${where}: onExceeded names "${name}", which is not a budget limit`,
      );
    if (!ACTIONS.includes(action as string))
      throw new BudgetError(
        "invalid_budget",
        `${where}: onExceeded${name === "onExceeded" ? "" : `.${name}`} must be "pause", "stop" or "warn" (got ${JSON.stringify(action)})`,
      );
  }
  if (budget.maxCostUsd !== undefined && model && !model.cost)
    throw new BudgetError(
      "no_model_price",
      `${where}: maxCostUsd needs the model's prices, and the model "${model.id}" has none: give it a cost ({ input, output, cacheRead, cacheWrite } in USD per million tokens)`,
    );
}

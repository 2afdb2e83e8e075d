import { openLedger } from "../../src/loop/budget-ledger.js";
import * as steps from "../../src/loop/run-steps.js";
import type { AgentMachineContext, RunState } from "../../src/machines/agent/agent.context.js";
import type { AgentBudget, BudgetLedger, BudgetUsage } from "../../src/types/budget.js";
import { deepFreeze, idleContext } from "./loop-context.js";

/** A time far in the future: a ledger clocked there never adds wall time at a check made now. */
export const FUTURE = Date.now() + 1e12;

/** A ledger of `budget` that already used `used` (`extra`: its other fields), clocked at `FUTURE`. */
export function ledgerOf(
  budget: AgentBudget,
  used: Partial<BudgetUsage> = {},
  extra: Partial<BudgetLedger> = {},
): BudgetLedger {
  const opened = openLedger(budget, FUTURE);
  return { ...opened, usage: { ...opened.usage, ...used }, ...extra };
}

/** A frozen context in a run with `ledger` (none: no budget), the context and run patched. */
export function withLedger(
  ledger: BudgetLedger | undefined,
  patch: Partial<AgentMachineContext> = {},
  run: Partial<RunState> = {},
): AgentMachineContext {
  const begun = steps.beginRun(idleContext(patch), [], false).context;
  return deepFreeze({ ...begun, run: { ...begun.run!, ledger, ...run } });
}

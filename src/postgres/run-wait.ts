import type { PersistedAgentMachine, PersistedChild } from "../agent/agent-snapshot.js";
import { type AgentAddress, callKey } from "../commands/addressed-command.js";
import type { AgentHarness } from "../harness/agent-harness.js";
import type { BudgetPause } from "../types/budget.js";

/** What a run waits for a person for, read from the harness's state. */
export interface RunWait {
  /** Calls waiting for approval at every depth, by `callKey`, in source order. */
  approvals: string[];
  /**
   * The runs of the tree waiting at a budget limit or loop breaker (`state.awaitingBudget`): the
   * root's first, each sub-agent's with its `agentPath`.
   */
  awaitingBudget: BudgetPause[];
  /**
   * Whether the run waits for a person and for nothing else (no call, reply or sub-agent still
   * working): such a run can be persisted and finished on any worker.
   */
  onlyForPeople: boolean;
}

/**
 * Where a harness's run stands: who waits (`state.awaitingApproval`, `state.awaitingBudget`) and —
 * from its persisted agent, the one place that can say it — whether anything else still works.
 *
 * Contract: reads the harness; never throws.
 */
export function runWaitOf(harness: AgentHarness): RunWait {
  const { awaitingApproval } = harness.state;
  const approvals = awaitingApproval.map((call) => callKey(call));
  const awaitingBudget = [...harness.state.awaitingBudget];
  const waits = approvals.length > 0 || awaitingBudget.length > 0;
  const onlyForPeople = waits && !worksBelow(harness.agent.persist().snapshot);
  return { approvals, awaitingBudget, onlyForPeople };
}

/**
 * Whether one of `pauses` is the run of the agent at `address` (the root's: no path) — where a
 * `RAISE_BUDGET` or `CONTINUE_ONCE` addressed there applies.
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * const pause = { budget: "maxModelCalls", limit: 1, used: 1, action: "pause", before: "modelCall" } as const;
 * pausedAt([{ ...pause, agentPath: ["s1"] }], { agentPath: ["s1"] }); // true
 * pausedAt([{ ...pause, agentPath: ["s1"] }], {}); // false: the root does not wait
 * ```
 */
export function pausedAt(pauses: readonly BudgetPause[], address: AgentAddress): boolean {
  const path = (address.agentPath ?? []).join("/");
  return pauses.some((pause) => (pause.agentPath ?? []).join("/") === path);
}

/**
 * Whether a call of the agent (at any depth) still works: anything but a finished call, one waiting
 * for approval, or one running a sub-agent that itself waits for a person and for nothing else.
 */
function worksBelow(agent: PersistedAgentMachine): boolean {
  for (const call of Object.values(agent.children ?? {}) as PersistedChild[]) {
    const { status, value } = call.snapshot;
    if (status === "done" || value === "awaitingApproval") continue;
    const child = call.snapshot.children?.agent as PersistedChild | undefined;
    if (value !== "delegating" || !child) return true;
    const below = child.snapshot as unknown as PersistedAgentMachine;
    if (worksBelow(below) || !waitsForPeople(below)) return true;
  }
  return false;
}

/** Whether a persisted agent waits for a person: a call awaiting approval, or a budget pause, below it. */
function waitsForPeople(agent: PersistedAgentMachine): boolean {
  if (JSON.stringify(agent.value).includes("budgetExceeded")) return true;
  return (Object.values(agent.children ?? {}) as PersistedChild[]).some(({ snapshot }) => {
    if (snapshot.value === "awaitingApproval") return true;
    const child = snapshot.children?.agent as PersistedChild | undefined;
    return child !== undefined && waitsForPeople(child.snapshot as unknown as PersistedAgentMachine);
  });
}

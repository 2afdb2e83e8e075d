import type { WaitingToolCall } from "../agent/agent-state.js";
import type { BudgetLimits, BudgetPause, BudgetUsage } from "../types/budget.js";

/**
 * A tool call that waits for approval or for the client's answer.
 * @deprecated Since 0.3: the agent's `WaitingToolCall` (the same fields). Removed in 0.4.
 */
export type PendingApproval = WaitingToolCall;

/**
 * What the server shares of the agent in `STATE_SNAPSHOT` events: whether a run goes on, the calls
 * waiting for approval or for the client (calls of client tools) and the queued steering and
 * follow-up messages (as text). JSON-safe.
 */
export interface SharedAgentState {
  /** `running` while the run goes on, `waiting` while a call waits for approval or the run for the client. */
  phase: "idle" | "running" | "waiting";
  /** Calls waiting for `APPROVE_TOOL` / `DENY_TOOL`, at every depth (a sub-agent's with its `agentPath`). */
  awaitingApproval: WaitingToolCall[];
  /** Calls of client tools waiting for the client's answer (a `tool` message in the next run). */
  awaitingClient: WaitingToolCall[];
  queued: { steering: string[]; followUp: string[] };
  /**
   * The runs waiting at a budget limit or a loop breaker, at every depth (`state.awaitingBudget`; a
   * sub-agent's with its `agentPath`): the interrupts the client answers (`RAISE_BUDGET`,
   * `CONTINUE_ONCE`, or a resume entry with `interruptId: "budget"`). Absent when none waits.
   */
  awaitingBudget?: BudgetPause[];
  /** The current run's budget: its limits and what it used (absent without a run or a budget). */
  budget?: { limits: BudgetLimits; usage: BudgetUsage };
}

export type { BudgetPause };

/** Names of the CUSTOM events the server sends besides the standard AG-UI events. */
export const CUSTOM_EVENT = {
  /** A tool call waits for approval; `value` is a `WaitingToolCall`. */
  approvalRequest: "agentchart.tool_approval_request",
  /** A call of a client tool waits for the client's answer; `value` is a `WaitingToolCall`. */
  clientRequest: "agentchart.tool_client_request",
  /** The harness waits before retrying a failed model request; `value` is the harness's `retry` event. */
  retry: "agentchart.retry",
  /** The typed output parsed so far from the streaming reply; `value` is `{ partial }`. */
  outputDelta: "agentchart.output_delta",
  /** A guardrail tripped; `value` is `{ guardrail, kind, reason, threw? }` (see docs/output-and-guardrails.md). */
  guardrailTripped: "agentchart.guardrail_tripped",
  /** A limit of the run's budget reached; `value` is the `budget_exceeded` event (see docs/budgets.md). */
  budgetExceeded: "agentchart.budget_exceeded",
  /** A loop breaker; `value` is the `loop_detected` event. */
  loopDetected: "agentchart.loop_detected",
} as const;

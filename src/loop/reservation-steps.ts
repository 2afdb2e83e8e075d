import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import type { BudgetExceeded, BudgetLedger, BudgetReservation, ReservationAnswer } from "../types/budget.js";
import type { AgentEvent } from "../types/events.js";
import type { ToolCall } from "../types/messages.js";
import { budgetExceededEvent, budgetStopText, checkSubAgentCall, pauseLedger } from "./budget-ledger.js";
import { requestEstimate } from "./budget-steps.js";
import { failTurn, type StepResult } from "./run-steps.js";

// One ledger shared down a tree of agents (see docs/budgets.md, "Sub-agents"): a sub-agent whose
// ancestors keep a budget (`sharesLedger`) reserves each model call and tool call with them before it
// starts. The reservation climbs one agent at a time (`RESERVE` → its call → `SUB_AGENT_RESERVE`); each
// agent with a ledger admits it (reserving it there), holds it while that agent waits at a limit, or
// refuses it at a `stop` limit; the answer (`RESERVATION`) climbs back down the same path. Reservations
// of parallel sub-agents reach an ancestor one event at a time, so none starts past its caps.

/** What reservations came to at this agent: answers to send down, reservations to send up, or held. */
export interface Admission extends StepResult {
  /** Answers for sub-agents, each to the one at the end of its `path` (tool call ids from this agent). */
  answers: { path: string[]; answer: ReservationAnswer }[];
  /** Reservations admitted here that this agent's own ancestors must admit too (`RESERVE` to its parent). */
  forward: BudgetReservation[];
}

const GRANTED: ReservationAnswer = { granted: true };

/** This agent's next model call, to reserve with its ancestors: it carries the request's estimate. */
export function modelCallReservation(ctx: AgentMachineContext): BudgetReservation {
  return { path: [], before: "modelCall", estimate: requestEstimate(ctx) };
}

/** This agent's tool call, to reserve with its ancestors. */
export function toolCallReservation(call: ToolCall): BudgetReservation {
  return { path: [], before: "toolCall", toolName: call.name };
}

/**
 * `SUB_AGENT_RESERVE`: a call of the sub-agent run by the call `toolCallId` (or of one below it) reached
 * this agent. It is checked against this run's ledger: admitted (reserved here, then sent up if this
 * agent shares its ancestors' ledgers, else granted), held (a `pause` limit: `budget_exceeded` naming
 * the sub-agent, and this run waits like at its own limit), or refused (a `stop` limit: this run ends at
 * its next model call). An agent without a ledger passes it up, or grants it.
 *
 * Contract: pure; `ctx` is in a run (the machine's `executingTools`, where its sub-agents run).
 */
export function admitSubAgentCall(
  ctx: AgentMachineContext,
  toolCallId: string,
  reservation: BudgetReservation,
): Admission {
  return admitAll(ctx, [{ ...reservation, path: [toolCallId, ...reservation.path] }]);
}

/**
 * After `RAISE_BUDGET` or `CONTINUE_ONCE`: the reservations held at this run's pause, checked again in
 * the order they came (one may pause the run again; the rest then stay held).
 *
 * Contract: pure; never throws.
 */
export function admitHeldReservations(ctx: AgentMachineContext): Admission {
  const ledger = ctx.run?.ledger;
  if (!ledger?.held || ledger.paused) return { context: ctx, events: [], answers: [], forward: [] };
  const { held, ...rest } = ledger;
  return admitAll(withLedger(ctx, rest), held);
}

function admitAll(ctx: AgentMachineContext, reservations: readonly BudgetReservation[]): Admission {
  let context = ctx;
  const events: AgentEvent[] = [];
  const answers: Admission["answers"] = [];
  const forward: BudgetReservation[] = [];
  const admitted = (reservation: BudgetReservation) => {
    if (context.sharesLedger) forward.push(reservation);
    else answers.push({ path: reservation.path, answer: GRANTED });
  };
  for (const reservation of reservations) {
    const ledger = context.run!.ledger;
    if (!ledger) {
      admitted(reservation);
      continue;
    }
    if (ledger.paused) {
      context = withLedger(context, hold(ledger, reservation));
      continue;
    }
    if (ledger.stoppedBy) {
      answers.push({ path: reservation.path, answer: { granted: false, exceeded: ledger.stoppedBy } });
      continue;
    }
    const verdict = checkSubAgentCall(ledger, reservation, Date.now());
    if (verdict.go) {
      context = withLedger(context, verdict.ledger);
      if (verdict.warning) events.push(budgetExceededEvent(verdict.warning));
      admitted(reservation);
      continue;
    }
    const exceeded = verdict.exceeded;
    events.push(budgetExceededEvent(exceeded));
    if (exceeded.action === "pause") {
      context = withLedger(context, hold(pauseLedger(verdict.ledger, exceeded), reservation));
      continue;
    }
    context = {
      ...context,
      run: { ...context.run!, ledger: { ...verdict.ledger, stoppedBy: exceeded }, stopReason: "budget" },
    };
    answers.push({ path: reservation.path, answer: { granted: false, exceeded } });
  }
  return { context, events, answers, forward };
}

function hold(ledger: BudgetLedger, reservation: BudgetReservation): BudgetLedger {
  return { ...ledger, held: [...(ledger.held ?? []), reservation] };
}

function withLedger(ctx: AgentMachineContext, ledger: BudgetLedger): AgentMachineContext {
  return { ...ctx, run: { ...ctx.run!, ledger } };
}

/**
 * An ancestor refused this agent's model call (`RESERVATION`, a `stop` limit of theirs): the run stops
 * as at its own `stop` limit — the open turn ends with an aborted message naming the ancestor's limit,
 * and the run's stop reason is `budget`. (The ancestor announced the limit with `budget_exceeded`.)
 *
 * Contract: pure; never throws.
 */
export function stopAtAncestorBudget(ctx: AgentMachineContext, exceeded: BudgetExceeded): StepResult {
  const failed = failTurn(ctx, "aborted", budgetStopText(exceeded));
  return { ...failed, context: { ...failed.context, run: { ...failed.context.run!, stopReason: "budget" } } };
}

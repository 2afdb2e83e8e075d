import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import type { BudgetExceeded, BudgetLedger, BudgetLimits, RequestEstimate } from "../types/budget.js";
import type { AgentEvent } from "../types/events.js";
import {
  actionOf,
  type BudgetVerdict,
  budgetExceededEvent,
  budgetStopText,
  checkModelCall,
  clockIn,
  countDescendantEvents,
  loopNotice,
  passOnce,
  pauseLedger,
  raiseLimits,
  restartClock,
  wallTimeLeft,
} from "./budget-ledger.js";
import { userMessage } from "./messages.js";
import { failTurn, injectNext, markWaiting, type StepResult } from "./run-steps.js";
import { estimateContextTokens, estimateTokens } from "./token-estimate.js";

// The budget's steps of a run (see budget-ledger.ts for the ledger itself): the check before a model
// call (the check before a tool call is run-steps.ts' `checkToolStart`, part of the batch's advance),
// the pause, the stop, a raise, a continue-once, a descendant's usage.

const verdicts = new WeakMap<object, BudgetVerdict>();

/**
 * The verdict on the next model call (memoised per ledger: the machine's guards and actions ask for
 * the same one). `undefined`: the run has no budget.
 */
export function modelCallVerdict(ctx: AgentMachineContext): BudgetVerdict | undefined {
  const ledger = ctx.run?.ledger;
  if (!ledger) return undefined;
  let verdict = verdicts.get(ledger);
  if (!verdict) {
    verdict = ledger.stoppedBy
      ? { go: false, ledger, exceeded: ledger.stoppedBy }
      : checkModelCall(ledger, Date.now(), limitsTotals(ledger) ? requestEstimate(ctx) : undefined);
    verdicts.set(ledger, verdict);
  }
  return verdict;
}

/**
 * What the next model call is expected to use: its input (the transcript's last reported usage plus
 * characters / 4 of what came after, and the system prompt) and its output cap when the request sets
 * one (`maxTokens`), priced with the model's `cost`.
 */
export function requestEstimate(ctx: AgentMachineContext): RequestEstimate {
  const input =
    estimateContextTokens(ctx.messages).tokens +
    (ctx.systemPrompt ? estimateTokens(userMessage(ctx.systemPrompt)) : 0);
  const output = ctx.streamOptions.maxTokens ?? 0;
  const price = ctx.model.cost;
  return { tokens: input + output, costUsd: price ? (input * price.input + output * price.output) / 1e6 : 0 };
}

/** Whether a ledger limits tokens or cost (its model calls then reserve their request's estimate). */
function limitsTotals(ledger: BudgetLedger): boolean {
  return ledger.budget.maxTokens !== undefined || ledger.budget.maxCostUsd !== undefined;
}

/** The next model call must wait at a limit (`pause`). */
export function modelCallPauses(ctx: AgentMachineContext): boolean {
  const verdict = modelCallVerdict(ctx);
  return verdict !== undefined && !verdict.go && verdict.exceeded.action === "pause";
}

/** The next model call would go past a limit whose action is `stop` (or a tool call was stopped). */
export function modelCallStops(ctx: AgentMachineContext): boolean {
  const verdict = modelCallVerdict(ctx);
  return verdict !== undefined && !verdict.go && verdict.exceeded.action === "stop";
}

/**
 * The model call goes ahead: reserved in the ledger (a warning, if a `warn` limit was passed; a loop
 * breaker's warning also tells the model, in a user message added before this call).
 */
export function reserveModelCall(ctx: AgentMachineContext): StepResult {
  const verdict = modelCallVerdict(ctx);
  if (!verdict?.go) return { context: ctx, events: [] };
  const reserved = { ...ctx, run: { ...ctx.run!, ledger: verdict.ledger } };
  if (!verdict.warning) return { context: reserved, events: [] };
  const warned = [budgetExceededEvent(verdict.warning)];
  const told = withLoopNotice(reserved, verdict.warning);
  if (told === reserved) return { context: reserved, events: warned };
  const injected = injectNext(told);
  return { context: injected.context, events: [...warned, ...injected.events] };
}

/** The context with the model told about a loop breaker it went past (queued in the run's inbox). */
function withLoopNotice(ctx: AgentMachineContext, exceeded: BudgetExceeded): AgentMachineContext {
  const notice = loopNotice(exceeded);
  if (!notice) return ctx;
  return { ...ctx, run: { ...ctx.run!, inbox: [...ctx.run!.inbox, { message: notice }] } };
}

/** The run waits at the limit the next model call would pass: `budget_exceeded`, the pause recorded. */
export function pauseBeforeModelCall(ctx: AgentMachineContext): StepResult {
  const verdict = modelCallVerdict(ctx);
  if (!verdict || verdict.go) return { context: ctx, events: [] };
  const ledger = pauseLedger(verdict.ledger, verdict.exceeded);
  return {
    context: { ...ctx, run: { ...ctx.run!, ledger } },
    events: [budgetExceededEvent(verdict.exceeded)],
  };
}

/**
 * The run stops at its budget: `budget_exceeded` (unless a refused tool call announced it), the open
 * turn ends with an aborted message naming the limit, and the run's stop reason is `budget`.
 */
export function stopAtBudget(ctx: AgentMachineContext): StepResult {
  const verdict = modelCallVerdict(ctx);
  if (!verdict || verdict.go) return { context: ctx, events: [] };
  const announced = ctx.run!.ledger!.stoppedBy !== undefined;
  const failed = failTurn(ctx, "aborted", budgetStopText(verdict.exceeded));
  return {
    context: { ...failed.context, run: { ...failed.context.run!, stopReason: "budget" } },
    events: announced ? failed.events : [budgetExceededEvent(verdict.exceeded), ...failed.events],
  };
}

/**
 * `RAISE_BUDGET`: the run's limits changed, its pause lifted (it goes on with a new check); the model
 * is told about a loop breaker it was held at.
 */
export function raiseBudget(ctx: AgentMachineContext, limits: BudgetLimits): AgentMachineContext {
  const ledger = ctx.run?.ledger;
  if (!ledger) return ctx;
  const raised = { ...ctx, run: { ...ctx.run!, ledger: raiseLimits(ledger, limits) } };
  return ledger.paused ? withLoopNotice(raised, ledger.paused) : raised;
}

/** `CONTINUE_ONCE`: the pause lifted for the one call it held (the model told about a loop breaker). */
export function continueOnce(ctx: AgentMachineContext): AgentMachineContext {
  const ledger = ctx.run?.ledger;
  if (!ledger) return ctx;
  const passed = { ...ctx, run: { ...ctx.run!, ledger: passOnce(ledger) } };
  return ledger.paused ? withLoopNotice(passed, ledger.paused) : passed;
}

/**
 * Whether the call `toolCallId` (its sub-agent, or one below it) waits at a budget limit or a loop
 * breaker after `events` came up from it: a `pause` event makes it wait, any later event of that
 * sub-tree means it went on. The parent marks the call waiting, so it shows `awaitingHuman` too.
 */
export function markDescendantPause(
  ctx: AgentMachineContext,
  toolCallId: string,
  events: readonly AgentEvent[],
): AgentMachineContext {
  let waits = ctx.run?.batch?.waiting?.includes(toolCallId) ?? false;
  for (const event of events)
    waits = (event.type === "budget_exceeded" || event.type === "loop_detected") && event.action === "pause";
  return markWaiting(ctx, toolCallId, waits);
}

/**
 * What the sub-agent run by the call `toolCallId` (or one below it) used, from its events on their way
 * up, added to this run's totals.
 */
export function countDescendants(
  ctx: AgentMachineContext,
  toolCallId: string,
  events: readonly AgentEvent[],
): AgentMachineContext {
  const ledger = ctx.run?.ledger;
  if (!ledger) return ctx;
  return { ...ctx, run: { ...ctx.run!, ledger: countDescendantEvents(ledger, toolCallId, events) } };
}

/** Whether the run waits at a budget limit. */
export function budgetPaused(ctx: AgentMachineContext): boolean {
  return ctx.run?.ledger?.paused !== undefined;
}

/**
 * Milliseconds until the run's wall time runs out, when its `maxWallMs` action is `stop` (the machine
 * arms a delayed `WALL_TIME_UP` with it while a model call or tool calls run); `undefined`: no timer (no
 * such limit, or the run waits at a limit or already stops).
 */
export function wallTimerDelay(ctx: AgentMachineContext): number | undefined {
  const ledger = ctx.run?.ledger;
  if (!ledger || ledger.paused || ledger.stoppedBy || actionOf(ledger.budget, "maxWallMs") !== "stop")
    return undefined;
  return wallTimeLeft(ledger, Date.now());
}

/**
 * The run's wall time ran out while a call ran (`WALL_TIME_UP`) and its action is `stop`: the ledger
 * clocked in, `budget_exceeded`, the run's stop reason `budget`. The machine then ends the run as an
 * abort does (the call in flight is told to stop; every started call is answered).
 */
export function stopAtWallTime(ctx: AgentMachineContext, before: "modelCall" | "toolCall"): StepResult {
  const ledger = ctx.run?.ledger;
  // A run already stopped by its budget (a refused tool call) announced it.
  if (!ledger || ledger.stoppedBy || ledger.budget.maxWallMs === undefined)
    return { context: ctx, events: [] };
  const clocked = clockIn(ledger, Date.now());
  const exceeded: BudgetExceeded = {
    budget: "maxWallMs",
    limit: ledger.budget.maxWallMs,
    used: clocked.usage.wallMs,
    action: "stop",
    before,
  };
  return {
    context: {
      ...ctx,
      run: { ...ctx.run!, ledger: { ...clocked, stoppedBy: exceeded }, stopReason: "budget" },
    },
    events: [budgetExceededEvent(exceeded)],
  };
}

/** A restored run: its wall-time clock restarts now (the time its process was gone is not counted). */
export function restartWallClock(ctx: AgentMachineContext): AgentMachineContext {
  const ledger = ctx.run?.ledger;
  if (!ledger) return ctx;
  return { ...ctx, run: { ...ctx.run!, ledger: restartClock(ledger, Date.now()) } };
}

import type {
  AgentBudget,
  BudgetAction,
  BudgetExceeded,
  BudgetLedger,
  BudgetLimits,
  BudgetName,
  BudgetReservation,
  BudgetUsage,
  LoopBreakerName,
  RequestEstimate,
} from "../types/budget.js";
import type { AgentEvent } from "../types/events.js";
import type { AssistantMessage, ToolCall, UserMessage } from "../types/messages.js";
import { userMessage } from "./messages.js";

// A run's budget ledger: pure functions over plain data (the time, `now`, is an argument). Counts (model
// calls, tool calls, turns) are reserved when the call is checked, before it starts, so calls started
// one after the other — parallel tool calls are spawned one per step — never go past a cap. Tokens and
// cost are settled from each reply's reported usage; a call is refused once what was used reached the
// limit. Wall time is clocked in at each check: the time since the last one is added, except while the
// run was paused at a limit (the clock stops) or before a restore (it restarts at the restore).

/** The loop breakers' limits when a budget does not set them. */
const LOOP_BREAKER_DEFAULTS: Record<LoopBreakerName, number> = {
  maxIdenticalCalls: 5,
  maxFailedRepeats: 2,
  maxRepeatedReplies: 1,
};

/** Whether a limit is a loop breaker (reaching it emits `loop_detected`). */
export function isLoopBreaker(name: BudgetName): name is LoopBreakerName {
  return name in LOOP_BREAKER_DEFAULTS;
}

/** A loop breaker's limit: the budget's, or its default. */
function loopLimit(budget: AgentBudget, name: LoopBreakerName): number {
  return budget[name] ?? LOOP_BREAKER_DEFAULTS[name];
}

/** JSON with object keys sorted: two equal values give the same text whatever their key order. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
}

/** What makes two tool calls the same call for the loop breakers: the tool and its arguments. */
export function callSignature(call: Pick<ToolCall, "name" | "arguments">): string {
  return `${call.name} ${canonicalJson(call.arguments)}`;
}

/** What makes two replies the same for the loop breakers: their text and their calls, in order. */
function replySignature(message: AssistantMessage): string {
  let signature = "";
  for (const block of message.content)
    if (block.type === "text") signature += `\u0000t${block.text}`;
    else if (block.type === "toolCall") signature += `\u0000c${callSignature(block)}`;
  return signature;
}

/** A ledger with nothing used, its clock started at `now` (epoch ms). */
export function openLedger(budget: AgentBudget, now: number): BudgetLedger {
  return {
    budget: { ...budget },
    usage: { tokens: 0, costUsd: 0, modelCalls: 0, toolCalls: 0, toolCallsByTool: {}, turns: 0, wallMs: 0 },
    warned: [],
    clockedAt: now,
  };
}

/** The ledger with the wall time since its last check point added (a stopped clock starts at `now`). */
export function clockIn(ledger: BudgetLedger, now: number): BudgetLedger {
  if (ledger.clockedAt === undefined) return { ...ledger, clockedAt: now };
  const elapsed = Math.max(0, now - ledger.clockedAt);
  return { ...ledger, usage: { ...ledger.usage, wallMs: ledger.usage.wallMs + elapsed }, clockedAt: now };
}

/** The ledger of a restored run: its clock restarts at `now` (the time the process was gone is not counted). */
export function restartClock(ledger: BudgetLedger, now: number): BudgetLedger {
  return ledger.paused ? ledger : { ...ledger, clockedAt: now };
}

/** The ledger paused at `exceeded`: its clock stops (a pause's time is not counted). */
export function pauseLedger(ledger: BudgetLedger, exceeded: BudgetExceeded): BudgetLedger {
  const { clockedAt: _stopped, ...rest } = ledger;
  return { ...rest, paused: exceeded };
}

/**
 * Milliseconds of wall time the run has left at `now` (`undefined` without a wall-time limit, `0` once it
 * is spent).
 */
export function wallTimeLeft(ledger: BudgetLedger, now: number): number | undefined {
  const limit = ledger.budget.maxWallMs;
  if (limit === undefined) return undefined;
  const running = ledger.clockedAt === undefined ? 0 : Math.max(0, now - ledger.clockedAt);
  return Math.max(0, limit - ledger.usage.wallMs - running);
}

/**
 * What a check decided: the call goes ahead (`warning` set for a warning), or waits / stops the run.
 * Either way `ledger` is the ledger clocked in at the check (and, for a call that goes, with it reserved).
 */
export type BudgetVerdict =
  | { go: true; ledger: BudgetLedger; warning?: BudgetExceeded }
  | { go: false; ledger: BudgetLedger; exceeded: BudgetExceeded };

/** The action of a limit: its own, the budget's, or `pause`. */
export function actionOf(budget: AgentBudget, name: BudgetName): BudgetAction {
  const onExceeded = budget.onExceeded;
  if (typeof onExceeded === "string") return onExceeded;
  return onExceeded?.[name] ?? "pause";
}

/** Nothing expected: a model call whose request was not estimated. */
const NO_ESTIMATE: RequestEstimate = { tokens: 0, costUsd: 0 };

/** A limit passed, before the call and its tool are named. */
type Overrun = Omit<BudgetExceeded, "action" | "before">;

/** A count past its cap once one more is reserved. */
function countPast(budget: BudgetName, limit: number | undefined, used: number): Overrun | undefined {
  return limit !== undefined && used + 1 > limit ? { budget, limit, used } : undefined;
}

/**
 * A total that reached its limit, or would pass it with the calls in flight (`inFlight`: sub-agents'
 * model calls reserved and not yet settled) and this one's estimate (`expected`) reserved.
 */
function totalPast(
  budget: BudgetName,
  limit: number | undefined,
  used: number,
  expected: number,
  inFlight = 0,
): Overrun | undefined {
  if (limit === undefined || (used < limit && used + inFlight + expected <= limit)) return undefined;
  return { budget, limit, used, ...(expected > 0 ? { estimate: expected } : {}) };
}

/** What sub-agents' model calls in flight reserved and no reply has settled yet. */
function inFlightBelow(ledger: BudgetLedger): RequestEstimate {
  let tokens = 0;
  let costUsd = 0;
  for (const estimate of Object.values(ledger.reservedBelow ?? {})) {
    tokens += estimate.tokens;
    costUsd += estimate.costUsd;
  }
  return { tokens, costUsd };
}

/** The first of a model call's totals (tokens, cost, wall time) it would pass with `estimate` reserved. */
function modelCallTotalPast(ledger: BudgetLedger, estimate: RequestEstimate): Overrun | undefined {
  const { budget, usage } = ledger;
  const below = inFlightBelow(ledger);
  return (
    totalPast("maxTokens", budget.maxTokens, usage.tokens, estimate.tokens, below.tokens) ??
    totalPast("maxCostUsd", budget.maxCostUsd, usage.costUsd, estimate.costUsd, below.costUsd) ??
    totalPast("maxWallMs", budget.maxWallMs, usage.wallMs, 0)
  );
}

/**
 * The first limit a model call would go past: a count reserved past its cap, or a total that reached
 * its limit or would pass it with the request's estimate reserved.
 */
function modelCallOverrun(
  ledger: BudgetLedger,
  estimate: RequestEstimate,
): Omit<BudgetExceeded, "action"> | undefined {
  const { budget, usage } = ledger;
  const overrun =
    countPast("maxModelCalls", budget.maxModelCalls, usage.modelCalls) ??
    countPast("maxTurns", budget.maxTurns, usage.turns) ??
    modelCallTotalPast(ledger, estimate);
  return overrun ? { ...overrun, before: "modelCall" } : repeatedReplyOverrun(ledger, "modelCall");
}

/** The run's last replies repeat one another past `maxRepeatedReplies`. */
function repeatedReplyOverrun(
  ledger: BudgetLedger,
  before: "modelCall" | "toolCall",
  toolName?: string,
): Omit<BudgetExceeded, "action"> | undefined {
  const limit = loopLimit(ledger.budget, "maxRepeatedReplies");
  const used = ledger.replyRepeats ?? 0;
  if (used < limit) return undefined;
  return { budget: "maxRepeatedReplies", limit, used, before, ...(toolName ? { toolName } : {}) };
}

/** A call made past `maxIdenticalCalls`, or made again after failing `maxFailedRepeats` times. */
function loopingCallOverrun(
  ledger: BudgetLedger,
  call: ToolCall,
): Omit<BudgetExceeded, "action"> | undefined {
  const seen = ledger.calls?.[callSignature(call)];
  if (!seen) return undefined;
  const base = { before: "toolCall" as const, toolName: call.name };
  const identical = loopLimit(ledger.budget, "maxIdenticalCalls");
  if (seen.made + 1 > identical)
    return { budget: "maxIdenticalCalls", limit: identical, used: seen.made, ...base };
  const failures = loopLimit(ledger.budget, "maxFailedRepeats");
  if (seen.failed >= failures)
    return { budget: "maxFailedRepeats", limit: failures, used: seen.failed, ...base };
  return undefined;
}

/** The first limit `call` would go past. */
function toolCallOverrun(ledger: BudgetLedger, call: ToolCall): Omit<BudgetExceeded, "action"> | undefined {
  const { budget, usage } = ledger;
  const overrun =
    countPast("maxToolCalls", budget.maxToolCalls, usage.toolCalls) ??
    countPast("maxToolCallsPerTool", budget.maxToolCallsPerTool, usage.toolCallsByTool[call.name] ?? 0) ??
    totalPast("maxWallMs", budget.maxWallMs, usage.wallMs, 0);
  if (overrun) return { ...overrun, before: "toolCall", toolName: call.name };
  return loopingCallOverrun(ledger, call) ?? repeatedReplyOverrun(ledger, "toolCall", call.name);
}

/**
 * The first limit of this run a sub-agent's call would go past: for a model call, the run's model calls
 * and its totals with the call's estimate; for a tool call, the run's tool calls and wall time. (The
 * run's turns, per-tool counts and loop breakers count its own calls only.)
 */
function subAgentCallOverrun(
  ledger: BudgetLedger,
  reservation: BudgetReservation,
): Omit<BudgetExceeded, "action"> | undefined {
  const { budget, usage } = ledger;
  const overrun =
    reservation.before === "modelCall"
      ? (countPast("maxModelCalls", budget.maxModelCalls, usage.modelCalls) ??
        modelCallTotalPast(ledger, reservation.estimate ?? NO_ESTIMATE))
      : (countPast("maxToolCalls", budget.maxToolCalls, usage.toolCalls) ??
        totalPast("maxWallMs", budget.maxWallMs, usage.wallMs, 0));
  if (!overrun) return undefined;
  const toolName = reservation.toolName ? { toolName: reservation.toolName } : {};
  return { ...overrun, before: reservation.before, ...toolName, subAgentPath: reservation.path };
}

/**
 * Checks a model call against the ledger clocked in at `now` and, if it may start, reserves it: a model
 * call, a turn, and its request's `estimate` of tokens and cost (until `settleReply`).
 *
 * Contract: pure; never throws.
 */
export function checkModelCall(
  ledger: BudgetLedger,
  now: number,
  estimate: RequestEstimate = NO_ESTIMATE,
): BudgetVerdict {
  const clocked = clockIn(ledger, now);
  const verdict = decide(clocked, modelCallOverrun(clocked, estimate), (usage) => ({
    ...usage,
    modelCalls: usage.modelCalls + 1,
    turns: usage.turns + 1,
  }));
  return verdict.go ? { ...verdict, ledger: { ...verdict.ledger, reserved: estimate } } : verdict;
}

/**
 * Checks `call` against the ledger clocked in at `now` and, if it may start, reserves it (a tool call,
 * one of its tool, one of its signature).
 *
 * Contract: pure; never throws.
 */
export function checkToolCall(ledger: BudgetLedger, call: ToolCall, now: number): BudgetVerdict {
  const clocked = clockIn(ledger, now);
  const verdict = decide(clocked, toolCallOverrun(clocked, call), (usage) => ({
    ...usage,
    toolCalls: usage.toolCalls + 1,
    toolCallsByTool: { ...usage.toolCallsByTool, [call.name]: (usage.toolCallsByTool[call.name] ?? 0) + 1 },
  }));
  if (!verdict.go) return verdict;
  const signature = callSignature(call);
  const seen = verdict.ledger.calls?.[signature] ?? { made: 0, failed: 0 };
  const calls = { ...verdict.ledger.calls, [signature]: { ...seen, made: seen.made + 1 } };
  return { ...verdict, ledger: { ...verdict.ledger, calls } };
}

/**
 * Checks a sub-agent's call (`reservation`, on its way up) against this run's ledger clocked in at
 * `now` and, if it may start, reserves it here: a model call (and its estimate, until the sub-agent's
 * reply settles it) or a tool call. One sub-agent has one model call in flight at a time.
 *
 * Contract: pure; never throws.
 */
export function checkSubAgentCall(
  ledger: BudgetLedger,
  reservation: BudgetReservation,
  now: number,
): BudgetVerdict {
  const clocked = clockIn(ledger, now);
  const modelCall = reservation.before === "modelCall";
  const verdict = decide(clocked, subAgentCallOverrun(clocked, reservation), (usage) =>
    modelCall ? { ...usage, modelCalls: usage.modelCalls + 1 } : { ...usage, toolCalls: usage.toolCalls + 1 },
  );
  if (!verdict.go || !modelCall || !reservation.estimate) return verdict;
  const reservedBelow = {
    ...verdict.ledger.reservedBelow,
    [pathKey(reservation.path)]: reservation.estimate,
  };
  return { ...verdict, ledger: { ...verdict.ledger, reservedBelow } };
}

/** The key of a path down to a sub-agent in `reservedBelow`. */
function pathKey(path: readonly string[]): string {
  return path.join("/");
}

/** The ledger with a failure of `call` (an error result) remembered for `maxFailedRepeats`. */
export function recordCallFailure(ledger: BudgetLedger, call: ToolCall): BudgetLedger {
  const signature = callSignature(call);
  const seen = ledger.calls?.[signature] ?? { made: 0, failed: 0 };
  return { ...ledger, calls: { ...ledger.calls, [signature]: { ...seen, failed: seen.failed + 1 } } };
}

function decide(
  ledger: BudgetLedger,
  overrun: Omit<BudgetExceeded, "action"> | undefined,
  reserve: (usage: BudgetUsage) => BudgetUsage,
): BudgetVerdict {
  // A repeated reply let through (continue-once, warn) is spent: the run's next replies count afresh.
  const spent = overrun?.budget === "maxRepeatedReplies" ? { ...ledger, replyRepeats: 0 } : ledger;
  if (overrun === undefined || ledger.passOnce) {
    const { passOnce: _spent, ...rest } = spent;
    return { go: true, ledger: { ...rest, usage: reserve(ledger.usage) } };
  }
  const exceeded: BudgetExceeded = { ...overrun, action: actionOf(ledger.budget, overrun.budget) };
  if (exceeded.action !== "warn") return { go: false, ledger, exceeded };
  const reserved = { ...spent, usage: reserve(ledger.usage) };
  if (ledger.warned.includes(overrun.budget)) return { go: true, ledger: reserved };
  return { go: true, ledger: { ...reserved, warned: [...ledger.warned, overrun.budget] }, warning: exceeded };
}

/**
 * The ledger with a reply settled: its reported tokens and cost added in place of the estimate its call
 * reserved (a reply that reports no usage counts that estimate), and whether it repeats the previous one.
 */
export function settleReply(ledger: BudgetLedger, message: AssistantMessage): BudgetLedger {
  const signature = replySignature(message);
  const repeats = signature === ledger.lastReply ? (ledger.replyRepeats ?? 0) + 1 : 0;
  const { reserved, ...rest } = ledger;
  const settled = { ...rest, lastReply: signature, replyRepeats: repeats };
  return message.usage || !reserved ? countReply(settled, message) : countEstimate(settled, reserved);
}

/** The ledger with an estimate counted as used (a reply that reported no usage). */
function countEstimate(ledger: BudgetLedger, estimate: RequestEstimate): BudgetLedger {
  return {
    ...ledger,
    usage: {
      ...ledger.usage,
      tokens: ledger.usage.tokens + estimate.tokens,
      costUsd: ledger.usage.costUsd + estimate.costUsd,
    },
  };
}

/** The ledger with a reply's reported tokens and cost added. */
function countReply(ledger: BudgetLedger, message: AssistantMessage): BudgetLedger {
  const usage = message.usage;
  if (!usage) return ledger;
  return {
    ...ledger,
    usage: {
      ...ledger.usage,
      tokens: ledger.usage.tokens + (usage.totalTokens ?? 0),
      costUsd: ledger.usage.costUsd + (usage.cost?.total ?? 0),
    },
  };
}

/**
 * The ledger with what the sub-agent run by the call `toolCallId` (or one below it) used, from its events
 * on their way up: each reply's reported tokens and cost, in place of the estimate its model call
 * reserved here (a reply that reports no usage counts that estimate). Its calls were counted when they
 * were reserved (`checkSubAgentCall`).
 */
export function countDescendantEvents(
  ledger: BudgetLedger,
  toolCallId: string,
  events: readonly AgentEvent[],
): BudgetLedger {
  let counted = ledger;
  for (const event of events) {
    if (event.type !== "message_end" || (event.message as AssistantMessage).role !== "assistant") continue;
    const message = event.message as AssistantMessage;
    const key = pathKey([toolCallId, ...(event.agentPath ?? [])]);
    const estimate = counted.reservedBelow?.[key];
    if (estimate) {
      const { [key]: _settled, ...rest } = counted.reservedBelow!;
      counted = { ...counted, reservedBelow: rest };
    }
    counted = message.usage || !estimate ? countReply(counted, message) : countEstimate(counted, estimate);
  }
  return counted;
}

/** The ledger with `limits` raised (or lowered) and its pause lifted. */
export function raiseLimits(ledger: BudgetLedger, limits: BudgetLimits): BudgetLedger {
  const { paused: _lifted, ...rest } = ledger;
  return { ...rest, budget: { ...ledger.budget, ...limits } };
}

/** The ledger whose pause is lifted for one call (`CONTINUE_ONCE`). */
export function passOnce(ledger: BudgetLedger): BudgetLedger {
  const { paused: _lifted, ...rest } = ledger;
  return { ...rest, passOnce: true };
}

/** The event of a limit reached: `loop_detected` for a loop breaker, else `budget_exceeded`. */
export function budgetExceededEvent(exceeded: BudgetExceeded): AgentEvent {
  return { type: isLoopBreaker(exceeded.budget) ? "loop_detected" : "budget_exceeded", ...exceeded };
}

/**
 * What the model is told when a run goes on past a loop breaker: a user message, injected before its
 * next model call. `undefined` for a budget limit (the model is not told about those).
 */
export function loopNotice(exceeded: BudgetExceeded): UserMessage | undefined {
  return isLoopBreaker(exceeded.budget) ? userMessage(loopNoticeText(exceeded)) : undefined;
}

function loopNoticeText(exceeded: BudgetExceeded): string {
  const what =
    exceeded.budget === "maxIdenticalCalls"
      ? `you called "${exceeded.toolName}" with the same arguments ${exceeded.used} times in this run`
      : exceeded.budget === "maxFailedRepeats"
        ? `the call of "${exceeded.toolName}" you are repeating failed ${exceeded.used} times with the same arguments`
        : "your last reply repeated the one before it";
  return `[loop breaker] The run was held because ${what}. It goes on now: do not repeat it; change the approach, or say what blocks you.`;
}

/** The text a run stopped by its budget ends with (and a tool call it refused gets). */
export function budgetStopText(exceeded: BudgetExceeded): string {
  const what = exceeded.toolName ? `${exceeded.budget} for "${exceeded.toolName}"` : exceeded.budget;
  return `Run stopped: the budget ${what} (${exceeded.limit}) was reached (used: ${exceeded.used})`;
}

import type {
  AgentMachineContext,
  InboxMessage,
  QueueName,
  RunState,
  ToolCallOutcome,
} from "../machines/agent/agent.context.js";
import type { ResumedCallState } from "../machines/agent/agent.events.js";
import type { AgentBudget, ReservationAnswer } from "../types/budget.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentMessage, AssistantMessage, ToolCall } from "../types/messages.js";
import type { RunOutputState, RunStopReason } from "../types/output.js";
import { takeFromQueue } from "./between-turns.js";
import {
  budgetExceededEvent,
  budgetStopText,
  checkToolCall,
  clockIn,
  loopNotice,
  openLedger,
  pauseLedger,
  recordCallFailure,
  settleReply,
} from "./budget-ledger.js";
import { failedAssistantMessage } from "./messages.js";
import {
  ABORTED_CALL_TEXT,
  batchTerminates,
  createToolBatch,
  DUPLICATE_ID_CALL_TEXT,
  duplicateCallId,
  FAILED_REPLY_CALL_TEXT,
  INTERRUPTED_CALL_TEXT,
  isBatchSettled,
  nextBatchStep,
  phaseOf,
  SKIPPED_CALL_TEXT,
  settle,
  TRUNCATED_CALL_TEXT,
  takeResultMessages,
  unsettledCalls,
  withPhase,
  withWaiting,
} from "./tool-batch.js";
import { errorOutcome } from "./tool-outcome.js";
import { appendMessages } from "./transcript-growth.js";

// The loop's steps: pure functions from the agent's context (and an input) to the next context and
// the AgentEvents to emit, in the order the docs (docs/concepts.md) prescribe. The machine applies the
// context with `assign` and emits the events; no step mutates what it is given.

/** What a step produces. */
export interface StepResult {
  context: AgentMachineContext;
  events: AgentEvent[];
}

/**
 * Builds one step's result: a private copy of the context that the step may change, and its events.
 * The copy (and its run's) is made at the step's first change and changed in place after that: the
 * context given to the step is never changed, and neither is one a result has handed out. Messages
 * appended during the step are added to the transcript with one copy, when the result is taken (a
 * transcript is never changed in place: every snapshot keeps its own).
 */
export class Step {
  readonly events: AgentEvent[] = [];
  #context: AgentMachineContext;
  /** `#context` is this step's own copy (else: the context given, or one a result handed out). */
  #ownContext = false;
  /** `#context.run` is this step's own copy. */
  #ownRun = false;
  readonly #appended: AgentMessage[] = [];
  constructor(context: AgentMachineContext) {
    this.#context = context;
  }
  get context(): AgentMachineContext {
    return this.#context;
  }
  get run(): RunState {
    return this.#context.run!;
  }
  setRun(patch: Partial<RunState>): void {
    const context = this.#own();
    if (!this.#ownRun) {
      context.run = { ...context.run!, ...patch };
      this.#ownRun = true;
    } else Object.assign(context.run!, patch);
  }
  set(patch: Partial<AgentMachineContext>): void {
    Object.assign(this.#own(), patch);
    // A new run object (or none) in the patch is not this step's own copy.
    if ("run" in patch) this.#ownRun = false;
  }
  emit(event: AgentEvent): void {
    this.events.push(event);
  }
  append(message: AgentMessage, emitStart = true): void {
    if (emitStart) this.emit({ type: "message_start", message });
    this.#appended.push(message);
    this.emit({ type: "message_end", message });
  }
  openTurn(): void {
    if (this.run.turnOpen) return;
    this.setRun({ turnOpen: true });
    this.emit({ type: "turn_start" });
  }
  result(): StepResult {
    if (this.#appended.length > 0) {
      const appended = this.#appended.splice(0);
      const context = this.#own();
      context.messages = appendMessages(context.messages, appended);
      if (context.run) this.setRun({ newMessages: context.run.newMessages.concat(appended) });
    }
    // The context is handed out: a later change copies it again.
    this.#ownContext = false;
    this.#ownRun = false;
    return { context: this.#context, events: this.events };
  }
  #own(): AgentMachineContext {
    if (!this.#ownContext) {
      this.#context = { ...this.#context };
      this.#ownContext = true;
      this.#ownRun = false;
    }
    return this.#context;
  }
}

/** What a run starts with besides its messages. */
export interface RunStart {
  /** The typed output the run expects. */
  output?: RunOutputState;
  /** Check the prompts with the input guardrails (runs started by a prompt). */
  checkInput?: boolean;
  /** The run's budget, instead of the agent's. */
  budget?: AgentBudget;
}

/** Starts a run: `agent_start`; the prompts wait in the inbox until the first decision injects them. */
export function beginRun(
  ctx: AgentMachineContext,
  prompts: InboxMessage[],
  steeringSpent: boolean,
  start: RunStart = {},
): StepResult {
  const run: RunState = {
    newMessages: [],
    inbox: prompts,
    turns: 0,
    turnOpen: false,
    batch: undefined,
    lastTurn: undefined,
    toolsWantReply: false,
    steeringSpent,
    failure: undefined,
  };
  if (start.output) run.output = start.output;
  const budget = start.budget ?? ctx.budget;
  if (budget) run.ledger = openLedger(budget, Date.now());
  const input = start.checkInput ? ctx.guardrails.input : [];
  if (input.length > 0) run.inputCheck = input.some((g) => g.mode === "blocking") ? "blocking" : "parallel";
  return { context: { ...ctx, run, errorMessage: undefined }, events: [{ type: "agent_start" }] };
}

/**
 * Starts a run from the transcript: after an assistant message, from the next queued steering
 * message(s) by the queue's mode (which spends the run's first steering drain point), else follow-ups;
 * otherwise the model is asked again. The caller checks that there is something to continue from.
 */
export function continueRun(ctx: AgentMachineContext, start: RunStart = {}): StepResult {
  const last = ctx.messages.at(-1) as { role?: string } | undefined;
  if (last?.role === "assistant") {
    for (const queue of ["steering", "followUp"] as const) {
      const mode = queue === "steering" ? ctx.settings.steeringMode : ctx.settings.followUpMode;
      const taken = takeFromQueue(ctx[queue], mode);
      if (taken.length === 0) continue;
      const rest = { ...ctx, [queue]: ctx[queue].slice(taken.length) };
      return beginRun(
        rest,
        taken.map((message) => ({ message, from: queue })),
        queue === "steering",
        start,
      );
    }
  }
  return beginRun(ctx, [], false, start);
}

/** Messages of external sources (`getSteeringMessages`…) that an ended run hands back, by queue. */
export type ExternalReturns = { queue: QueueName; messages: AgentMessage[] }[];

/**
 * Ends the run: messages drained but not injected go back to the front of their queue (external
 * sources' ones are returned for `restoreQueuedMessages`), then `agent_end`.
 */
export function endRun(ctx: AgentMachineContext): StepResult & { returned: ExternalReturns } {
  const step = new Step(ctx);
  const returned: ExternalReturns = [];
  for (const queue of ["steering", "followUp"] as const) {
    const back = step.run.inbox.filter((entry) => entry.from === queue);
    const own = back.filter((entry) => !entry.external).map((entry) => entry.message);
    const theirs = back.filter((entry) => entry.external).map((entry) => entry.message);
    if (own.length > 0) step.set({ [queue]: [...own, ...step.context[queue]] });
    if (theirs.length > 0) returned.push({ queue, messages: theirs });
  }
  const run = step.run;
  const output = run.output;
  step.emit({
    type: "agent_end",
    messages: run.newMessages,
    stopReason: runStopReason(run),
    ...(output?.accepted ? { output: output.value } : {}),
    ...(output?.failure ? { outputFailure: output.failure } : {}),
    ...(run.tripped ? { guardrail: run.tripped } : {}),
    // The wall time up to the run's end counts (the last check was before its last call).
    ...(run.ledger ? { budgetUsage: clockIn(run.ledger, Date.now()).usage } : {}),
  });
  step.set({ run: undefined });
  return { ...step.result(), returned };
}

/**
 * How a run ended: a guardrail trip, output that never validated, an explicit error or abort, else
 * the stop reason of the run's last reply (`stop` when it added none).
 */
function runStopReason(run: RunState): RunStopReason {
  if (run.tripped) return "guardrail";
  if (run.output?.failure) return "error";
  if (run.stopReason) return run.stopReason;
  const last = run.newMessages.findLast(
    (m): m is AssistantMessage => (m as AssistantMessage).role === "assistant",
  );
  return last?.stopReason ?? "stop";
}

/**
 * Ends the current turn with a failure message. Prompts the run has not injected yet are injected
 * first (a prompt is never lost); an abort between turns with nothing to inject adds nothing: the last
 * turn already ended cleanly.
 */
export function failTurn(ctx: AgentMachineContext, reason: "error" | "aborted", text: string): StepResult {
  const step = new Step(ctx);
  step.setRun({ stopReason: reason });
  const prompts = step.run.inbox.filter((entry) => entry.from === undefined);
  if (reason === "aborted" && !step.run.turnOpen && prompts.length === 0) return step.result();
  step.openTurn();
  step.setRun({ inbox: step.run.inbox.filter((entry) => entry.from !== undefined) });
  for (const prompt of prompts) step.append(prompt.message);
  const message = failedAssistantMessage(ctx.model, reason, text);
  step.append(message);
  step.setRun({ turnOpen: false });
  step.set({ errorMessage: text });
  step.emit({ type: "turn_end", message, toolResults: [] });
  return step.result();
}

/** Opens the turn (once) and injects the next inbox message, if any. */
export function injectNext(ctx: AgentMachineContext): StepResult {
  const step = new Step(ctx);
  step.openTurn();
  const [next, ...rest] = step.run.inbox;
  if (!next) return step.result();
  step.setRun({ inbox: rest });
  step.append(next.message);
  return step.result();
}

export function startToolCall(step: Step, call: ToolCall): void {
  step.emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
}

export function endToolCall(step: Step, outcome: ToolCallOutcome): void {
  let batch = settle(step.run.batch!, outcome);
  step.emit({
    type: "tool_execution_end",
    toolCallId: outcome.toolCall.id,
    toolName: outcome.toolCall.name,
    result: outcome.result,
    isError: outcome.isError,
  });
  if (batch.sequential) {
    const { batch: after, taken } = takeResultMessages(batch);
    batch = after;
    step.setRun({ batch });
    for (const message of taken) step.append(message);
  } else {
    step.setRun({ batch });
  }
}

/**
 * Records the finished reply; a reply with tool calls opens a tool batch. Calls that will never run
 * (truncated, part of a failed or aborted reply, or sharing an id) are settled at once with an error
 * result.
 */
export function recordReply(
  ctx: AgentMachineContext,
  reply: { message: AssistantMessage; started: boolean; sequential: boolean; held?: boolean },
): StepResult {
  const step = new Step(ctx);
  const failure = step.run.failure;
  // A reply cut short by `FAIL` is recorded as the error that ended the run.
  let message: AssistantMessage =
    failure === undefined ? reply.message : { ...reply.message, stopReason: "error", errorMessage: failure };
  // A held reply that failed is never checked nor released: none of its text is kept.
  const discarded = reply.held === true && isFailed(message);
  if (discarded) message = { ...message, content: message.content.filter((block) => block.type !== "text") };
  if (failure !== undefined) step.setRun({ failure: undefined });
  // The held reply (released now) and a parallel input check (done with the first reply) are over.
  if (step.run.heldReply || step.run.inputCheck === "parallel")
    step.setRun({ heldReply: undefined, inputCheck: undefined });
  step.append(message, !reply.started || discarded);
  if (isFailed(message)) step.set({ errorMessage: message.errorMessage });
  const batch = createToolBatch(message, reply.sequential);
  if (step.run.ledger) step.setRun({ ledger: settleReply(step.run.ledger, message) });
  step.setRun({ turns: step.run.turns + 1, batch: batch.calls.length > 0 ? batch : undefined });
  const reason = message.stopReason;
  const duplicateId = duplicateCallId(batch);
  const runnable = reason !== "length" && reason !== "error" && reason !== "aborted";
  if (runnable && duplicateId === undefined) return step.result();
  for (const call of batch.calls) {
    startToolCall(step, call);
    const text =
      reason === "length"
        ? TRUNCATED_CALL_TEXT(call.name)
        : reason === "aborted"
          ? ABORTED_CALL_TEXT
          : reason === "error"
            ? FAILED_REPLY_CALL_TEXT
            : DUPLICATE_ID_CALL_TEXT(duplicateId!);
    endToolCall(step, errorOutcome(call, text));
  }
  return step.result();
}

function isFailed(message: AssistantMessage): boolean {
  return message.stopReason === "error" || message.stopReason === "aborted";
}

/** Ends the turn: the remaining tool results (source order), then `turn_end`. */
export function closeTurn(ctx: AgentMachineContext): StepResult {
  const step = new Step(ctx);
  const batch = step.run.batch;
  const taken = batch ? takeResultMessages(batch).taken : [];
  for (const message of taken) step.append(message);
  // A resumed batch answers a reply recorded by an earlier run: its turn ends with that reply.
  const message =
    batch?.message ??
    step.run.newMessages.findLast((m): m is AssistantMessage => (m as AssistantMessage).role === "assistant");
  if (!message) return step.result();
  // The same result messages as in the transcript (a second conversion would stamp them anew).
  const toolResults = batch ? [...batch.results, ...taken] : [];
  step.emit({ type: "turn_end", message, toolResults });
  step.setRun({
    turnOpen: false,
    lastTurn: { message, toolResults },
    toolsWantReply: batch !== undefined && !batchTerminates(batch),
    batch: undefined,
  });
  return step.result();
}

/**
 * A command for the machine: spawn a call's actor, let prepared calls execute, or reserve a call with
 * the ancestors' ledgers (a sub-agent that shares them) before it is spawned.
 */
export type ToolBatchCommand =
  | { kind: "spawn"; call: ToolCall }
  | { kind: "execute"; ids: string[] }
  | { kind: "reserve"; call: ToolCall };

/** Moves the batch forward: the next preflight, or the prepared calls that may execute now. */
export function advanceToolBatch(ctx: AgentMachineContext): StepResult & { command?: ToolBatchCommand } {
  const batch = ctx.run?.batch;
  if (!batch) return { context: ctx, events: [] };
  const step = new Step(ctx);
  // Once the budget holds the next call, the calls it admitted still run.
  let held = false;
  for (;;) {
    const current = step.run.batch!;
    const next = nextBatchStep(current, held);
    if (next.kind === "wait") return step.result();
    if (next.kind === "execute") {
      step.setRun({ batch: withPhase(current, next.ids, "executing") });
      return { ...step.result(), command: next };
    }
    // The budget reserves the call before it starts; a refused call is answered and the next one checked.
    const admitted = checkToolStart(step, next.call);
    if (admitted === "wait") held = true;
    if (admitted === "reserve") {
      step.setRun({ batch: { ...step.run.batch!, reserving: next.call.id } });
      return { ...step.result(), command: { kind: "reserve", call: next.call } };
    }
    if (admitted !== "start") continue;
    step.setRun({ batch: withPhase(step.run.batch!, next.call.id, "preparing") });
    startToolCall(step, next.call);
    return { ...step.result(), command: { kind: "spawn", call: next.call } };
  }
}

/**
 * Checks the call the batch is about to start against the ledger (inside `advanceToolBatch`'s step):
 * `start` — reserved, a warning emitted if any; `reserve` — reserved here, and the ancestors' ledgers
 * must admit it too (a sub-agent that shares them); `wait` — the run pauses (`budget_exceeded`);
 * `refused` — a `stop` limit: the call is answered with the stop text and the run ends at its next model
 * call.
 */
function checkToolStart(step: Step, call: ToolCall): "start" | "reserve" | "wait" | "refused" {
  const admitted = step.context.sharesLedger ? "reserve" : "start";
  const ledger = step.run.ledger;
  if (!ledger) return admitted;
  if (ledger.paused) return "wait";
  if (ledger.stoppedBy) {
    startToolCall(step, call);
    endToolCall(step, errorOutcome(call, budgetStopText(ledger.stoppedBy)));
    return "refused";
  }
  const verdict = checkToolCall(ledger, call, Date.now());
  if (verdict.go) {
    step.setRun({ ledger: verdict.ledger });
    if (verdict.warning) {
      step.emit(budgetExceededEvent(verdict.warning));
      // A loop breaker's warning: the model is told before its next call.
      const notice = loopNotice(verdict.warning);
      if (notice) step.setRun({ inbox: [...step.run.inbox, { message: notice }] });
    }
    return admitted;
  }
  const exceeded = verdict.exceeded;
  step.emit(budgetExceededEvent(exceeded));
  if (exceeded.action === "pause") {
    step.setRun({ ledger: pauseLedger(verdict.ledger, exceeded) });
    return "wait";
  }
  step.setRun({ ledger: { ...verdict.ledger, stoppedBy: exceeded }, stopReason: "budget" });
  startToolCall(step, call);
  endToolCall(step, errorOutcome(call, budgetStopText(exceeded)));
  return "refused";
}

/**
 * `RESERVATION` for the call the batch reserves with the ancestors' ledgers (`batch.reserving`): granted,
 * it starts (its actor is spawned); refused (an ancestor's `stop` limit), it is answered with the stop
 * text, the run ends at its next model call, and the batch moves on.
 */
export function answerToolCallReservation(
  ctx: AgentMachineContext,
  answer: ReservationAnswer,
): StepResult & { command?: ToolBatchCommand } {
  const batch = ctx.run?.batch;
  const call = batch?.calls.find((each) => each.id === batch.reserving);
  if (!call) return { context: ctx, events: [] };
  const step = new Step(ctx);
  step.setRun({ batch: { ...batch!, reserving: undefined } });
  startToolCall(step, call);
  if (answer.granted) {
    step.setRun({ batch: withPhase(step.run.batch!, call.id, "preparing") });
    return { ...step.result(), command: { kind: "spawn", call } };
  }
  const ledger = step.run.ledger;
  step.setRun({
    stopReason: "budget",
    ...(ledger ? { ledger: { ...ledger, stoppedBy: answer.exceeded } } : {}),
  });
  endToolCall(step, errorOutcome(call, budgetStopText(answer.exceeded)));
  const refused = step.result();
  const next = advanceToolBatch(refused.context);
  return { ...next, events: [...refused.events, ...next.events] };
}

/** Whether the call has a running child actor (spawned and not yet settled). */
export function hasToolCallChild(ctx: AgentMachineContext, toolCallId: string): boolean {
  const batch = ctx.run?.batch;
  if (!batch) return false;
  // A call not in the batch is pending by `phaseOf`: it has no child.
  const phase = phaseOf(batch, toolCallId);
  return phase !== "pending" && phase !== "settled";
}

export function markPrepared(ctx: AgentMachineContext, toolCallId: string): AgentMachineContext {
  const batch = ctx.run?.batch;
  if (!batch || phaseOf(batch, toolCallId) !== "preparing") return ctx;
  return { ...ctx, run: { ...ctx.run!, batch: withPhase(batch, toolCallId, "prepared") } };
}

/** Notes that call `toolCallId` waits for a person or the client (`waits`), or no longer does. */
export function markWaiting(
  ctx: AgentMachineContext,
  toolCallId: string,
  waits: boolean,
): AgentMachineContext {
  const batch = ctx.run?.batch;
  if (!batch || batch.waiting?.includes(toolCallId) === waits) return ctx;
  return { ...ctx, run: { ...ctx.run!, batch: withWaiting(batch, toolCallId, waits) } };
}

/** Records a settled call (ignored when the call was already answered, e.g. skipped or aborted). */
export function recordToolOutcome(ctx: AgentMachineContext, outcome: ToolCallOutcome): StepResult {
  const batch = ctx.run?.batch;
  if (!batch?.calls.some((call) => call.id === outcome.toolCall.id)) return { context: ctx, events: [] };
  if (phaseOf(batch, outcome.toolCall.id) === "settled") return { context: ctx, events: [] };
  const step = new Step(ctx);
  // A failed call is remembered for the loop breaker `maxFailedRepeats`.
  if (outcome.isError && step.run.ledger)
    step.setRun({ ledger: recordCallFailure(step.run.ledger, outcome.toolCall) });
  endToolCall(step, outcome);
  return step.result();
}

/** Whether steering must be polled now: policy `betweenTools` and calls still unsettled. */
export function wantsSteeringPoll(ctx: AgentMachineContext): boolean {
  const batch = ctx.run?.batch;
  return ctx.settings.steering === "betweenTools" && batch !== undefined && !isBatchSettled(batch);
}

/** Marks a between-tools steering poll as running (or answered). */
export function setSteeringPoll(ctx: AgentMachineContext, polling: boolean): AgentMachineContext {
  const batch = ctx.run?.batch;
  if (!batch) return ctx;
  return { ...ctx, run: { ...ctx.run!, batch: { ...batch, pollingSteering: polling } } };
}

/**
 * Answers every unsettled call with `text`. Returns the ids of the calls whose actors must be stopped
 * (those that were spawned).
 */
export function settleRemaining(step: Step, text: string): string[] {
  const batch = step.run.batch;
  if (!batch) return [];
  const spawned: string[] = [];
  for (const call of unsettledCalls(batch)) {
    if (phaseOf(step.run.batch!, call.id) === "pending") startToolCall(step, call);
    else spawned.push(call.id);
    endToolCall(step, errorOutcome(call, text));
  }
  return spawned;
}

/**
 * Steering arrived between tools: the messages wait in the inbox and every unsettled call is skipped.
 * Returns the children to stop.
 */
export function skipRemainingTools(
  ctx: AgentMachineContext,
  arrived: InboxMessage[],
): StepResult & { stop: string[] } {
  const step = new Step(ctx);
  step.setRun({
    inbox: [...step.run.inbox, ...arrived],
    batch: { ...step.run.batch!, pollingSteering: false },
  });
  const stop = settleRemaining(step, SKIPPED_CALL_TEXT);
  return { ...step.result(), stop };
}

/** External steering that arrived outside a tool batch waits in the inbox for the next injection. */
export function keepInInbox(ctx: AgentMachineContext, external: AgentMessage[]): AgentMachineContext {
  const arrived = external.map((message) => ({ message, from: "steering" as const, external: true }));
  return { ...ctx, run: { ...ctx.run!, inbox: [...ctx.run!.inbox, ...arrived] } };
}

/**
 * Abort (or `FAIL`, with its text) during tools: every unsettled call gets an error result. Returns the
 * children to stop.
 */
export function abortToolBatch(
  ctx: AgentMachineContext,
  text: string = ABORTED_CALL_TEXT,
): StepResult & { stop: string[] } {
  const step = new Step(ctx);
  // A run its wall time stopped (WALL_TIME_UP) aborts its calls with the budget's text and reason.
  const aborted = text === ABORTED_CALL_TEXT;
  const stoppedBy = aborted && step.run.stopReason === "budget" ? step.run.ledger?.stoppedBy : undefined;
  step.setRun({ stopReason: stoppedBy ? "budget" : aborted ? "aborted" : "error" });
  const stop = settleRemaining(step, stoppedBy ? budgetStopText(stoppedBy) : text);
  return { ...step.result(), stop };
}

/** `FAIL` while the reply streams: the reply, once the aborted stream hands it over, ends as this error. */
export function markFailure(ctx: AgentMachineContext, text: string): AgentMachineContext {
  return ctx.run ? { ...ctx, run: { ...ctx.run, failure: text } } : ctx;
}

/**
 * Starts a run that answers the unanswered calls of a reply recorded earlier (a run interrupted by a
 * crash, resumed from its session): `agent_start`, `turn_start`, a tool batch of those calls —
 * interrupted ones answered at once —, then the machine executes the batch like a live one.
 */
export function resumeCalls(
  ctx: AgentMachineContext,
  resume: { message: AssistantMessage; calls: Record<string, ResumedCallState>; sequential: boolean },
): StepResult {
  const begun = beginRun(ctx, [], false);
  const step = new Step(begun.context);
  for (const event of begun.events) step.emit(event);
  step.openTurn();
  const all = createToolBatch(resume.message, resume.sequential);
  const calls = all.calls.filter((call) => resume.calls[call.id] !== undefined);
  const approved = calls.filter((call) => resume.calls[call.id] === "approved").map((call) => call.id);
  step.setRun({ batch: { ...all, calls, approved } });
  for (const call of calls) {
    if (resume.calls[call.id] !== "interrupted") continue;
    startToolCall(step, call);
    endToolCall(step, errorOutcome(call, INTERRUPTED_CALL_TEXT));
  }
  return step.result();
}

/** Messages that reached the agent's queue (`STEER` / `FOLLOW_UP`). */
export function enqueue(
  ctx: AgentMachineContext,
  queue: QueueName,
  message: AgentMessage,
): AgentMachineContext {
  return { ...ctx, [queue]: [...ctx[queue], message] };
}

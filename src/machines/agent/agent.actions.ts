import type { AnyActorRef } from "xstate";
import { decisionWithoutCallbacks, planOf, takeFromQueue } from "../../loop/between-turns.js";
import * as budgetSteps from "../../loop/budget-steps.js";
import * as guardrailSteps from "../../loop/guardrail-steps.js";
import * as handoffSteps from "../../loop/handoff-steps.js";
import { idempotencyKeyOf } from "../../loop/idempotency-key.js";
import type { OutputVerdict } from "../../loop/output-steps.js";
import * as outputSteps from "../../loop/output-steps.js";
import * as reservationSteps from "../../loop/reservation-steps.js";
import * as steps from "../../loop/run-steps.js";
import { isSubAgentProgress } from "../../loop/sub-agent-steps.js";
import { INTERRUPTED_CALL_TEXT, phaseOf, runningCalls } from "../../loop/tool-batch.js";
import { errorOutcome } from "../../loop/tool-outcome.js";
import type { ReservationAnswer } from "../../types/budget.js";
import type { AgentEvent } from "../../types/events.js";
import type { GuardrailOutcome } from "../../types/guardrail.js";
import type { AgentMessage } from "../../types/messages.js";
import type { CallingAgent, SubAgentEnd, ToolCallInput } from "../tool-call/tool-call.context.js";
import type {
  AgentEventsEvent,
  ReservationEvent,
  ReserveEvent,
  SubAgentEndedEvent,
  SubAgentEventsEvent,
  SubAgentReserveEvent,
  ToolAwaitingEvent,
  ToolUpdateEvent,
} from "../tool-call/tool-call.events.js";
import type {
  AgentMachineContext,
  AgentParentEvent,
  InboxMessage,
  QueuedReturns,
  ToolCallOutcome,
} from "./agent.context.js";
import type { AgentMachineEvent, StreamedReply } from "./agent.events.js";
import { agentViewOf } from "./agent.implementations.js";

// The actions of `agentMachine`, one function per name in its `setup()`. They only read the context
// and event and enqueue (the machine wraps them in `enqueueActions`): XState runs them while it
// computes a transition, so they stay pure and apply the steps of `loop/`. Every AgentEvent a step
// makes is an `emit` action (a sub-agent also sends them to its call, `AGENT_EVENTS`, on their way to
// the root). User code runs only in the actors and in the two custom actions `createAgentMachine`
// provides (`pollSteering`, `returnQueuedMessages`), which XState runs after the transition is
// computed; they report back with events.

/** The custom actions `createAgentMachine` provides: they call user code. */
export type ProvidedAction =
  /** Polls the external steering source between tools; answers with `STEERING_POLLED`. */
  | { type: "pollSteering"; params?: undefined }
  /** Gives messages an ended run had drained back to their external source. */
  | { type: "returnQueuedMessages"; params: QueuedReturns };

/** The part of XState's `enqueue` the agent's actions use. */
export interface Enqueue {
  (action: ProvidedAction): void;
  assign(assignment: (() => AgentMachineContext) | Partial<AgentMachineContext>): void;
  emit(event: AgentEvent): void;
  // biome-ignore lint/suspicious/noExplicitAny: internal events of the agent machine and its children
  sendTo(target: any, event: any): void;
  sendParent(event: SubAgentEndedEvent | AgentEventsEvent | ReserveEvent | AgentParentEvent): void;
  spawnChild(src: "toolCall", options: { id: string; input: ToolCallInput }): void;
  spawnChild(src: "turnCallbacks", options: { id: string; input: { context: AgentMachineContext } }): void;
  stopChild(id: string): void;
  raise(event: { type: "WALL_TIME_UP" }, options: { id: string; delay: number }): void;
  cancel(id: string): void;
}

/** What an action gets from `enqueueActions`: the context and event, and what it may enqueue. */
export interface ActionArgs {
  context: AgentMachineContext;
  event: AgentMachineEvent;
  enqueue: Enqueue;
  self: AnyActorRef;
}

/**
 * Applies a step: its context, then its events as `emit` actions (delivered in order once the
 * macrostep ends); a sub-agent also sends them to the call that runs it.
 */
export function apply(enqueue: Enqueue, result: steps.StepResult): AgentMachineContext {
  enqueue.assign(() => result.context);
  emitAll(enqueue, result.context, result.events);
  return result.context;
}

/**
 * Emits `events` in order; a sub-agent (`context.parentToolCallId`) also sends them up to its call, and
 * an agent whose input names `parentEvents` sends its parent those (`AgentParentEvent`).
 */
function emitAll(enqueue: Enqueue, context: AgentMachineContext, events: readonly AgentEvent[]): void {
  if (events.length === 0) return;
  const wanted = context.parentEvents;
  for (const event of events) {
    // The parent machine hears an event before the listeners: it may record what they read.
    if (wanted?.includes(event.type))
      enqueue.sendParent({
        type: `agent.${event.type}`,
        agentId: context.agentId,
        event,
      } as AgentParentEvent);
    enqueue.emit(event);
  }
  if (context.parentToolCallId) enqueue.sendParent({ type: "AGENT_EVENTS", events: [...events] });
}

/** The reply's events that streamed (a batch of one microtask), emitted as they came. */
export function emitReplyEvents({ context, enqueue }: ActionArgs, events: AgentEvent[]): void {
  emitAll(enqueue, context, events);
}

/**
 * The events of a child agent (the call `toolCallId` runs it), emitted with the path from this agent
 * down (a parent's own forwarding prepends its part); the child's own replies and tool executions also
 * become `tool_execution_update` progress of the call.
 */
export function forwardSubAgentEvents({ context, enqueue }: ActionArgs, from: SubAgentEventsEvent): void {
  // What the descendant used counts in this run's budget totals.
  const counted = context.run?.ledger
    ? budgetSteps.countDescendants(context, from.toolCallId, from.events)
    : context;
  // A sub-agent paused at a limit makes its call wait: this agent shows `awaitingHuman` too.
  const marked = budgetSteps.markDescendantPause(counted, from.toolCallId, from.events);
  if (marked !== context) enqueue.assign(() => marked);
  const forwarded: AgentEvent[] = [];
  for (const event of from.events) {
    const emitted: AgentEvent = { ...event, agentPath: [from.toolCallId, ...(event.agentPath ?? [])] };
    forwarded.push(emitted);
    if (event.agentPath === undefined && isSubAgentProgress(event))
      forwarded.push({
        type: "tool_execution_update",
        toolCallId: from.toolCallId,
        toolName: from.toolName,
        args: from.args,
        partialResult: { agentEvent: emitted },
      });
  }
  emitAll(enqueue, context, forwarded);
}

/** An executing tool's progress, as `tool_execution_update`. */
export function emitToolUpdate({ context, enqueue }: ActionArgs, update: ToolUpdateEvent): void {
  emitAll(enqueue, context, [
    {
      type: "tool_execution_update",
      toolCallId: update.toolCallId,
      toolName: update.toolName,
      args: update.args,
      partialResult: update.partialResult,
    },
  ]);
}

/** What a tool call of this agent knows of it (its hooks' view, its child agent's parent). */
function callingAgentOf(context: AgentMachineContext): CallingAgent {
  return {
    ...agentViewOf(context),
    agentId: context.agentId,
    model: context.model,
    path: context.place?.path ?? [],
    ...(context.run?.ledger || context.sharesLedger ? { sharesLedger: true } : {}),
  };
}

/** Moves the tool batch forward: spawns the next call's actor or lets prepared calls execute. */
export function advanceToolBatch({ context, enqueue }: ActionArgs): void {
  runBatchCommand(enqueue, steps.advanceToolBatch(context));
}

/** Applies a batch step and carries out its command: execute calls, spawn one, or reserve one above. */
function runBatchCommand(
  enqueue: Enqueue,
  result: steps.StepResult & { command?: steps.ToolBatchCommand },
): void {
  const context = apply(enqueue, result);
  const command = result.command;
  if (!command) return;
  if (command.kind === "execute") {
    for (const id of command.ids) enqueue.sendTo(id, { type: "EXECUTE" });
    return;
  }
  const call = command.call;
  if (command.kind === "reserve") {
    enqueue.sendParent({ type: "RESERVE", reservation: reservationSteps.toolCallReservation(call) });
    return;
  }
  const batch = context.run!.batch!;
  enqueue.spawnChild("toolCall", {
    id: call.id,
    input: {
      toolCall: call,
      assistantMessage: batch.message,
      idempotencyKey: idempotencyKeyOf(context.agentId, call.id),
      agent: callingAgentOf(context),
      ...(batch.approved.includes(call.id) ? { approved: true } : {}),
    },
  });
}

/** `RESERVATION` for this agent's tool call: it starts, or an ancestor's `stop` limit answers it. */
export function reservedToolCall({ context, enqueue }: ActionArgs, answer: ReservationAnswer): void {
  runBatchCommand(enqueue, steps.answerToolCallReservation(context, answer));
}

/** This sub-agent's model call, reserved here, climbs to its ancestors' ledgers (`RESERVE`). */
export function requestModelCallReservation({ context, enqueue }: ActionArgs): void {
  enqueue.sendParent({ type: "RESERVE", reservation: reservationSteps.modelCallReservation(context) });
}

/** `SUB_AGENT_RESERVE`: a sub-agent's call checked against this run's ledger (see reservation-steps.ts). */
export function admitSubAgentCall({ context, enqueue }: ActionArgs, from: SubAgentReserveEvent): void {
  sendAdmission(enqueue, reservationSteps.admitSubAgentCall(context, from.toolCallId, from.reservation));
}

/** After a raise or a continue-once: the sub-agents' calls held at the pause, checked again. */
export function admitHeldReservations({ context, enqueue }: ActionArgs): void {
  sendAdmission(enqueue, reservationSteps.admitHeldReservations(context));
}

function sendAdmission(enqueue: Enqueue, admission: reservationSteps.Admission): void {
  apply(enqueue, admission);
  for (const { path, answer } of admission.answers) passDown(enqueue, { type: "RESERVATION", path, answer });
  for (const reservation of admission.forward) enqueue.sendParent({ type: "RESERVE", reservation });
}

/** `RESERVATION` for a sub-agent below this agent: on to the call that runs the next one down. */
export function passReservationDown({ enqueue }: ActionArgs, answer: ReservationEvent): void {
  passDown(enqueue, answer);
}

function passDown(enqueue: Enqueue, { path, answer }: ReservationEvent): void {
  const [toolCallId, ...below] = path;
  if (toolCallId !== undefined) enqueue.sendTo(toolCallId, { type: "RESERVATION", path: below, answer });
}

/** An ancestor refused this agent's model call: the run stops at their limit. */
export function stopAtAncestorBudget({ context, enqueue }: ActionArgs, answer: ReservationAnswer): void {
  if (!answer.granted) apply(enqueue, reservationSteps.stopAtAncestorBudget(context, answer.exceeded));
}

/** A between-tools poll answered: steering that arrived skips the remaining calls; else the batch goes on. */
export function steeringPolled({ context, enqueue }: ActionArgs, external: AgentMessage[]): void {
  const own = takeFromQueue(context.steering, context.settings.steeringMode);
  const arrived: InboxMessage[] = [
    ...own.map((message) => ({ message, from: "steering" as const })),
    ...external.map((message) => ({ message, from: "steering" as const, external: true })),
  ];
  if (arrived.length === 0) {
    enqueue.assign(() => steps.setSteeringPoll(context, false));
    return;
  }
  const result = steps.skipRemainingTools(
    { ...context, steering: context.steering.slice(own.length) },
    arrived,
  );
  apply(enqueue, result);
  for (const id of result.stop) enqueue.stopChild(id);
}

/**
 * After a restore in `executingTools`: calls that were executing with `replay: "never"` get an
 * interruption result; calls whose state had an invoked actor re-enter it (a `"safe"` call runs
 * again); calls waiting for approval or the client ask again (only if they still wait: an approval
 * given right after the restore is not undone).
 */
export function resumeToolCalls({ context, event: plan, enqueue }: ActionArgs): void {
  if (plan.type !== "RESUME") return;
  let current = context;
  const batch = context.run?.batch;
  if (!batch) return;
  for (const call of batch.calls) {
    const phase = phaseOf(batch, call.id);
    if (phase === "pending" || phase === "settled") continue;
    if (plan.interrupted.includes(call.id)) {
      enqueue.stopChild(call.id);
      current = apply(enqueue, steps.recordToolOutcome(current, errorOutcome(call, INTERRUPTED_CALL_TEXT)));
    } else if (plan.reenter.includes(call.id)) enqueue.sendTo(call.id, { type: "RESUME" });
    else if (plan.waiting.includes(call.id)) enqueue.sendTo(call.id, { type: "REANNOUNCE" });
  }
}

export function beginRun({ context, event, enqueue }: ActionArgs): void {
  if (event.type === "PROMPT")
    apply(
      enqueue,
      steps.beginRun(
        context,
        event.messages.map((message) => ({ message })),
        false,
        {
          ...(event.output ? { output: event.output } : {}),
          ...(event.budget ? { budget: event.budget } : {}),
          checkInput: true,
        },
      ),
    );
  else if (event.type === "RESUME_CALLS") apply(enqueue, steps.resumeCalls(context, event));
  else if (event.type === "CONTINUE")
    apply(
      enqueue,
      steps.continueRun(context, {
        ...(event.output ? { output: event.output } : {}),
        ...(event.budget ? { budget: event.budget } : {}),
      }),
    );
}

/**
 * Starts the between-turn decision: the `turnCallbacks` actor, or without callbacks a self-sent
 * `DECIDED` — a macrostep on purpose, so that an abort requested in a listener of the last turn's
 * events acts before the decision.
 */
export function startDecision({ context, enqueue, self }: ActionArgs): void {
  if (context.hasTurnCallbacks)
    enqueue.spawnChild("turnCallbacks", { id: "turnCallbacks", input: { context } });
  else enqueue.sendTo(self, { type: "DECIDED", decision: decisionWithoutCallbacks(context) });
}

export function stopDecision({ context, enqueue }: ActionArgs): void {
  if (context.hasTurnCallbacks) enqueue.stopChild("turnCallbacks");
}

export function applyPlan({ context, event, enqueue }: ActionArgs): void {
  if (event.type === "DECIDED") enqueue.assign(() => planOf(context, event.decision).context);
}

/** One queued message per macrostep (self-sent `INJECT`): an abort in its listeners stops the next one. */
export function requestInjectionIfMore({ context, enqueue, self }: ActionArgs): void {
  if ((context.run?.inbox.length ?? 0) > 0) enqueue.sendTo(self, { type: "INJECT" });
}

export function injectNext({ context, enqueue }: ActionArgs): void {
  apply(enqueue, steps.injectNext(context));
}

export function failTurn(
  { context, enqueue }: ActionArgs,
  params: { reason: "error" | "aborted"; text: string },
): void {
  apply(enqueue, steps.failTurn(context, params.reason, params.text));
}

export function endRun({ context, enqueue }: ActionArgs): void {
  const result = steps.endRun(context);
  const returned: QueuedReturns = result.returned;
  if (returned.length > 0) enqueue({ type: "returnQueuedMessages", params: returned });
  // A sub-agent tells the call that runs it first: once a listener sees `agent_end`, the call has
  // its result, so a snapshot taken then never holds an ended child whose call still waits.
  if (context.parentToolCallId)
    enqueue.sendParent({
      type: "SUB_AGENT_ENDED",
      end: result.events.at(-1) as SubAgentEnd,
      errorMessage: result.context.errorMessage,
    } satisfies SubAgentEndedEvent);
  apply(enqueue, result);
}

export function recordReply({ context, enqueue }: ActionArgs, output: StreamedReply): void {
  apply(enqueue, steps.recordReply(context, output));
}

export function holdReply({ context, enqueue }: ActionArgs, reply: StreamedReply): void {
  enqueue.assign(() => ({
    ...context,
    run: {
      ...context.run!,
      heldReply: { message: reply.message, sequential: reply.sequential, events: reply.heldEvents ?? [] },
    },
  }));
}

/** The held reply passed the output guardrails: its events reach the listeners now, in order. */
export function releaseHeldEvents({ context, enqueue }: ActionArgs): void {
  emitAll(enqueue, context, context.run?.heldReply?.events ?? []);
}

export function dropHeldReply({ context, enqueue }: ActionArgs): void {
  if (context.run?.heldReply)
    enqueue.assign(() => ({ ...context, run: { ...context.run!, heldReply: undefined } }));
}

export function tripGuardrail({ context, enqueue }: ActionArgs, outcome: GuardrailOutcome): void {
  apply(
    enqueue,
    guardrailSteps.tripGuardrail(
      context,
      outcome.trip!,
      outcome.replacement,
      context.run?.heldReply?.message,
    ),
  );
}

export function inputPassed({ context, enqueue }: ActionArgs): void {
  const parallel = context.guardrails.input.some((guardrail) => guardrail.mode === "parallel");
  enqueue.assign(() => ({
    ...context,
    run: { ...context.run!, inputCheck: parallel ? "parallel" : undefined },
  }));
}

export function applyOutputVerdict({ context, enqueue }: ActionArgs, verdict: OutputVerdict): void {
  apply(enqueue, outputSteps.applyOutputVerdict(context, verdict));
}

export function markFailure({ context, enqueue }: ActionArgs, text: string): void {
  enqueue.assign(() => steps.markFailure(context, text));
}

export function closeTurn({ context, enqueue }: ActionArgs): void {
  apply(enqueue, steps.closeTurn(context));
}

export function applyHandoff({ context, enqueue }: ActionArgs): void {
  const result = handoffSteps.applyHandoff(context);
  if (result.context !== context) apply(enqueue, result);
}

export function markPrepared({ context, enqueue }: ActionArgs, toolCallId: string): void {
  enqueue.assign(() => steps.markPrepared(context, toolCallId));
}

export function recordToolOutcome({ context, enqueue }: ActionArgs, outcome: ToolCallOutcome): void {
  enqueue.stopChild(outcome.toolCall.id);
  const result = steps.recordToolOutcome(context, outcome);
  apply(enqueue, result);
  if (steps.wantsSteeringPoll(result.context)) {
    enqueue.assign(() => steps.setSteeringPoll(result.context, true));
    enqueue({ type: "pollSteering" });
  }
}

export function keepLateSteering({ context, enqueue }: ActionArgs, external: AgentMessage[]): void {
  if (external.length === 0) return;
  if (context.run) enqueue.assign(() => steps.keepInInbox(context, external));
  else enqueue({ type: "returnQueuedMessages", params: [{ queue: "steering", messages: external }] });
}

export function abortToolBatch({ context, enqueue }: ActionArgs, text: string | undefined): void {
  const result = steps.abortToolBatch(context, text);
  apply(enqueue, result);
  for (const id of result.stop) enqueue.stopChild(id);
}

/** Tells every running call the run ends: a call running a child agent aborts it (its own `agent_end`). */
export function abortCalls({ context, enqueue }: ActionArgs): void {
  const batch = context.run?.batch;
  if (batch) for (const id of runningCalls(batch)) enqueue.sendTo(id, { type: "ABORT" });
}

/**
 * Ends the run in the next macrostep (a self-sent `RUN_ABORTED`, or `RUN_FAILED` with the error of a
 * `FAIL`): the events the aborted calls' child agents send up meanwhile are emitted before this
 * agent's own end.
 */
export function endRunNext({ enqueue, self }: ActionArgs, error: string | undefined): void {
  enqueue.sendTo(self, error === undefined ? { type: "RUN_ABORTED" } : { type: "RUN_FAILED", error });
}

export function forwardToCall({ context, enqueue, event }: ActionArgs): void {
  if (event.type === "APPROVE_TOOL" || event.type === "DENY_TOOL" || event.type === "ANSWER_TOOL")
    enqueue.assign(() => steps.markWaiting(context, event.toolCallId, false));
  if (event.type === "APPROVE_TOOL") enqueue.sendTo(event.toolCallId, { type: "APPROVE" });
  else if (event.type === "DENY_TOOL")
    enqueue.sendTo(event.toolCallId, { type: "DENY", reason: event.reason });
  else if (event.type === "ANSWER_TOOL")
    enqueue.sendTo(event.toolCallId, { type: "ANSWER", result: event.result, isError: event.isError });
}

export function announceWaitingCall({ context, enqueue }: ActionArgs, request: ToolAwaitingEvent): void {
  enqueue.assign(() => steps.markWaiting(context, request.toolCallId, true));
  emitAll(enqueue, context, [
    {
      type: request.type === "TOOL_AWAITING_APPROVAL" ? "tool_approval_request" : "tool_client_request",
      toolCallId: request.toolCallId,
      toolName: request.toolName,
      args: request.args,
    },
  ]);
}

/** A restored run goes on: `agent_resume`; its wall-time clock restarts now. */
export function announceResume(
  { context, enqueue }: ActionArgs,
  from: "preparingTurn" | "streaming" | "validatingOutput" | "executingTools",
): void {
  if (context.run?.ledger) enqueue.assign(() => budgetSteps.restartWallClock(context));
  emitAll(enqueue, context, [{ type: "agent_resume", from }]);
}

/** The id of the delayed `WALL_TIME_UP` a run arms while its calls run. */
const WALL_TIMER = "wallTimer";

/**
 * Arms (again) the delayed `WALL_TIME_UP` for the wall time the run has left, when its `maxWallMs`
 * action is `stop`; otherwise only cancels a timer armed before.
 */
export function armWallTimer({ context, enqueue }: ActionArgs): void {
  enqueue.cancel(WALL_TIMER);
  const delay = budgetSteps.wallTimerDelay(context);
  if (delay !== undefined) enqueue.raise({ type: "WALL_TIME_UP" }, { id: WALL_TIMER, delay });
}

/** Cancels the run's delayed `WALL_TIME_UP` (no call runs, or the run waits at a limit). */
export function disarmWallTimer({ enqueue }: ActionArgs): void {
  enqueue.cancel(WALL_TIMER);
}

/** `WALL_TIME_UP`: the run stops at its wall-time limit (the machine then ends it as an abort does). */
export function stopAtWallTime({ context, enqueue }: ActionArgs, before: "modelCall" | "toolCall"): void {
  apply(enqueue, budgetSteps.stopAtWallTime(context, before));
}

/** The model call goes ahead: reserved in the run's budget ledger (with a `warn` limit's event). */
export function reserveModelCall({ context, enqueue }: ActionArgs): void {
  if (context.run?.ledger) apply(enqueue, budgetSteps.reserveModelCall(context));
}

/** The run waits before its model call at a budget limit: `budget_exceeded`. */
export function pauseForBudget({ context, enqueue }: ActionArgs): void {
  apply(enqueue, budgetSteps.pauseBeforeModelCall(context));
}

/** The run stops at its budget (`stopReason: "budget"`); `endRun` follows. */
export function stopForBudget({ context, enqueue }: ActionArgs): void {
  apply(enqueue, budgetSteps.stopAtBudget(context));
}

/** `RAISE_BUDGET`: the run's limits changed and its pause lifted. */
export function raiseBudget({ context, event, enqueue }: ActionArgs): void {
  if (event.type === "RAISE_BUDGET") enqueue.assign(() => budgetSteps.raiseBudget(context, event.limits));
}

/** `CONTINUE_ONCE`: the call the budget held goes ahead, once. */
export function continueOnce({ context, enqueue }: ActionArgs): void {
  enqueue.assign(() => budgetSteps.continueOnce(context));
}

/** Asks the stream actor to end the reply now: it answers with the partial reply, marked aborted. */
export function abortStream({ enqueue }: ActionArgs): void {
  enqueue.sendTo("stream", { type: "ABORT" });
}

export function enqueueMessage({ context, event, enqueue }: ActionArgs): void {
  if (event.type === "STEER") enqueue.assign(() => steps.enqueue(context, "steering", event.message));
  if (event.type === "FOLLOW_UP") enqueue.assign(() => steps.enqueue(context, "followUp", event.message));
}

export function clearQueues({ event, enqueue }: ActionArgs): void {
  if (event.type !== "CLEAR_QUEUES") return;
  if (event.queue) enqueue.assign({ [event.queue]: [] });
  else enqueue.assign({ steering: [], followUp: [] });
}

export function setModel({ event, enqueue }: ActionArgs): void {
  if (event.type === "SET_MODEL") enqueue.assign({ model: event.model });
}

export function setThinkingLevel({ event, enqueue }: ActionArgs): void {
  if (event.type === "SET_THINKING_LEVEL") enqueue.assign({ thinkingLevel: event.thinkingLevel });
}

export function setSystemPrompt({ event, enqueue }: ActionArgs): void {
  if (event.type === "SET_SYSTEM_PROMPT") enqueue.assign({ systemPrompt: event.systemPrompt });
}

export function setTools({ event, enqueue }: ActionArgs): void {
  if (event.type === "SET_TOOLS") enqueue.assign({ toolNames: [...event.toolNames] });
}

export function setStreamOptions({ event, enqueue }: ActionArgs): void {
  if (event.type === "SET_STREAM_OPTIONS") enqueue.assign({ streamOptions: { ...event.streamOptions } });
}

export function setMessages({ event, enqueue }: ActionArgs): void {
  if (event.type === "SET_MESSAGES") enqueue.assign({ messages: [...event.messages] });
}

export function reset({ enqueue }: ActionArgs): void {
  enqueue.assign({ messages: [], steering: [], followUp: [], errorMessage: undefined });
}

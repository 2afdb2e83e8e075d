import type { AnyActorRef } from "xstate";
import type { GuardrailOutcome } from "../../actors/guardrails.actor.js";
import { type StreamedReply, takeHeldEvents } from "../../actors/stream-reply.actor.js";
import { decisionWithoutCallbacks, planOf, takeFromQueue } from "../../loop/between-turns.js";
import * as guardrailSteps from "../../loop/guardrail-steps.js";
import * as handoffSteps from "../../loop/handoff-steps.js";
import type { OutputVerdict } from "../../loop/output-steps.js";
import * as outputSteps from "../../loop/output-steps.js";
import * as steps from "../../loop/run-steps.js";
import { INTERRUPTED_CALL_TEXT, phaseOf } from "../../loop/tool-batch.js";
import { errorOutcome } from "../../loop/tool-outcome.js";
import type { AgentEvent } from "../../types/events.js";
import { isPromiseLike } from "../../types/maybe-async.js";
import type { AgentMessage, AssistantMessage } from "../../types/messages.js";
import { emitAfterMacrostep } from "../../xstate/internals.js";
import type { SubAgentEnd, ToolCallInput } from "../tool-call/tool-call.context.js";
import type { SubAgentEndedEvent, ToolAwaitingEvent } from "../tool-call/tool-call.events.js";
import type { AgentMachineContext, InboxMessage, QueueName, ToolCallOutcome } from "./agent.context.js";
import type { AgentMachineEvent } from "./agent.events.js";
import { agentEmitter, runtimeOf } from "./agent.runtime.js";

// The actions of `agentMachine`, one function per name in its `setup()`. Two kinds live here. Most
// only read the context and event and enqueue (the machine wraps them in `enqueueActions`): XState
// runs them while it computes a transition, so they stay pure and apply the steps of `loop/`. The
// effects (`abortRun`, `releaseHeldEvents`, and `runDecision`, `pollSteering`, `returnQueuedMessages`,
// `renewController`, which the others enqueue as custom actions) call user code or touch the runtime:
// XState runs them after the transition is computed, and they report back with events.

/** The part of XState's `enqueue` the agent's actions use. */
export interface Enqueue {
  /** A custom action: runs after the transition is computed (user code and the runtime go here). */
  (action: (args: { self: AnyActorRef }) => void): void;
  assign(assignment: (() => AgentMachineContext) | Partial<AgentMachineContext>): void;
  emit(event: AgentEvent): void;
  // biome-ignore lint/suspicious/noExplicitAny: internal events of the agent machine and its children
  sendTo(target: any, event: any): void;
  sendParent(event: SubAgentEndedEvent): void;
  spawnChild(src: "toolCall", options: { id: string; input: ToolCallInput }): void;
  spawnChild(src: "turnCallbacks", options: { id: string; input: { context: AgentMachineContext } }): void;
  stopChild(id: string): void;
}

/** What an action gets from `enqueueActions`: the context and event, and what it may enqueue. */
export interface ActionArgs {
  context: AgentMachineContext;
  event: AgentMachineEvent;
  enqueue: Enqueue;
  self: AnyActorRef;
}

/** What a custom action gets: the agent's actor. */
export interface SelfArgs {
  self: AnyActorRef;
}

/**
 * Applies a step: its context, then its events (delivered after the macrostep, in order, where one
 * `emit` action each would deliver them; one custom action for all of them costs the interpreter less).
 */
export function apply(enqueue: Enqueue, result: steps.StepResult): AgentMachineContext {
  enqueue.assign(() => result.context);
  const events = result.events;
  if (events.length > 0) enqueue(({ self }) => emitAfterMacrostep(self, events));
  return result.context;
}

/** Moves the tool batch forward: spawns the next call's actor or lets prepared calls execute. */
export function advanceToolBatch({ context, enqueue }: ActionArgs): void {
  const result = steps.advanceToolBatch(context);
  apply(enqueue, result);
  const command = result.command;
  if (!command) return;
  if (command.kind === "execute") {
    for (const id of command.ids) enqueue.sendTo(id, { type: "EXECUTE" });
    return;
  }
  const call = command.call;
  const batch = result.context.run!.batch!;
  enqueue.spawnChild("toolCall", {
    id: call.id,
    input: {
      toolCall: call,
      assistantMessage: batch.message,
      idempotencyKey: `${context.agentId}:${call.id}`,
      ...(batch.approved.includes(call.id) ? { approved: true } : {}),
    },
  });
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

/** Messages of external queue sources handed back (`restoreQueuedMessages`), by queue. */
export type QueuedReturns = { queue: QueueName; messages: AgentMessage[] }[];

/** Custom action: gives messages an ended run had drained back to their external source. */
export function returnQueuedMessages(self: AnyActorRef, returned: QueuedReturns): void {
  const restore = runtimeOf(self).callbacks.restoreQueuedMessages;
  for (const { queue, messages } of returned) restore?.(queue, messages);
}

/** Custom action: a run gets a fresh AbortController only when the last one was aborted (they are not free). */
export function renewController(self: AnyActorRef): void {
  const runtime = runtimeOf(self);
  if (runtime.controller.signal.aborted) runtime.controller = new AbortController();
}

/** Custom action: aborts the run's signal (the stream, running tools and pending callbacks follow it). */
export function abortRun({ self }: SelfArgs): void {
  runtimeOf(self).controller.abort();
}

/**
 * Custom action, after a settled call with steering policy `betweenTools`: polls the external steering
 * source and answers with `STEERING_POLLED` (at once when it answers synchronously or there is none).
 * No further call starts until the answer arrives. What a poll returns after its run was aborted goes
 * back to the source.
 */
export function pollSteering(self: AnyActorRef): void {
  const runtime = runtimeOf(self);
  const poll = runtime.callbacks.getSteeringMessages;
  const answer = (external: AgentMessage[]) => self.send({ type: "STEERING_POLLED", external });
  let polled: AgentMessage[] | Promise<AgentMessage[]> | undefined;
  try {
    polled = poll?.();
  } catch {
    // A throwing queue callback is reported by the poll after the turn, which ends the run.
    answer([]);
    return;
  }
  if (!isPromiseLike(polled)) {
    answer((polled as AgentMessage[] | undefined) ?? []);
    return;
  }
  const signal = runtime.controller.signal;
  Promise.resolve(polled as PromiseLike<AgentMessage[]>).then(
    (messages) => {
      if (!signal.aborted) return answer(messages ?? []);
      if (messages?.length) runtime.callbacks.restoreQueuedMessages?.("steering", messages);
    },
    () => answer([]),
  );
}

export function beginRun({ context, event, enqueue }: ActionArgs): void {
  enqueue(({ self }) => renewController(self));
  if (event.type === "PROMPT")
    apply(
      enqueue,
      steps.beginRun(
        context,
        event.messages.map((message) => ({ message })),
        false,
        { ...(event.output ? { output: event.output } : {}), checkInput: true },
      ),
    );
  else if (event.type === "RESUME_CALLS") apply(enqueue, steps.resumeCalls(context, event));
  else if (event.type === "CONTINUE")
    apply(enqueue, steps.continueRun(context, event.output ? { output: event.output } : {}));
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
  if (returned.length > 0) enqueue(({ self }) => returnQueuedMessages(self, returned));
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
    run: { ...context.run!, heldReply: { message: reply.message, sequential: reply.sequential } },
  }));
}

export function releaseHeldEvents({ self }: SelfArgs, reply: AssistantMessage): void {
  const emit = agentEmitter(self);
  for (const event of takeHeldEvents(reply)) emit(event);
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
    enqueue(({ self }) => pollSteering(self));
  }
}

export function keepLateSteering({ context, enqueue }: ActionArgs, external: AgentMessage[]): void {
  if (external.length === 0) return;
  if (context.run) enqueue.assign(() => steps.keepInInbox(context, external));
  else enqueue(({ self }) => returnQueuedMessages(self, [{ queue: "steering", messages: external }]));
}

export function abortToolBatch({ context, enqueue }: ActionArgs, text: string | undefined): void {
  const result = steps.abortToolBatch(context, text);
  // A call running a child agent aborts it first: the child's run ends with its own `agent_end`.
  for (const id of result.stop) enqueue.sendTo(id, { type: "ABORT" });
  apply(enqueue, result);
  for (const id of result.stop) enqueue.stopChild(id);
}

export function forwardToCall({ enqueue, event }: ActionArgs): void {
  if (event.type === "APPROVE_TOOL") enqueue.sendTo(event.toolCallId, { type: "APPROVE" });
  else if (event.type === "DENY_TOOL")
    enqueue.sendTo(event.toolCallId, { type: "DENY", reason: event.reason });
  else if (event.type === "ANSWER_TOOL")
    enqueue.sendTo(event.toolCallId, { type: "ANSWER", result: event.result, isError: event.isError });
}

export function announceWaitingCall({ enqueue }: ActionArgs, request: ToolAwaitingEvent): void {
  enqueue.emit({
    type: request.type === "TOOL_AWAITING_APPROVAL" ? "tool_approval_request" : "tool_client_request",
    toolCallId: request.toolCallId,
    toolName: request.toolName,
    args: request.args,
  });
}

export function announceResume(
  { enqueue }: ActionArgs,
  from: "preparingTurn" | "streaming" | "validatingOutput" | "executingTools",
): void {
  enqueue.emit({ type: "agent_resume", from });
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

export function reset({ enqueue }: ActionArgs): void {
  enqueue.assign({ messages: [], steering: [], followUp: [], errorMessage: undefined });
}

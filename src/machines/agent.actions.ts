import type { AnyActorRef } from "xstate";
import { activeTools, runtimeOf } from "../actors/agent-runtime.js";
import type { AgentMachineContext, InboxMessage, QueueName } from "../loop/agent-context.js";
import {
  runTurnCallbacks,
  type TurnDecision,
  takeFromQueue,
  toTurnDecision,
  willStream,
} from "../loop/between-turns.js";
import { isPromiseLike } from "../loop/maybe-async.js";
import * as steps from "../loop/run-steps.js";
import { INTERRUPTED_CALL_TEXT, phaseOf } from "../loop/tool-batch.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import { errorText } from "../types/error-text.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentMessage } from "../types/messages.js";
import { emitAfterMacrostep } from "../xstate/internals.js";
import type { ToolCallInput } from "./tool-call.machine.js";

// Two kinds of code live here. The enqueue helpers (`apply`, `startToolBatch`, `ackSteeringPoll`,
// `resumeToolCalls`) only read the context and event and enqueue actions: XState runs them while it
// computes a transition, so they must stay pure. The effects (`runDecision`, `pollSteering`,
// `returnQueuedMessages`, `renewController`, `abortRun`) call user code or touch the runtime: they are
// custom actions and actors, which XState runs after the transition is computed, and they report
// back with events.

/** The part of XState's `enqueue` the agent's actions use. */
export interface Enqueue {
  /** A custom action (run after the transition is computed). */
  (action: (args: { self: AnyActorRef }) => void): void;
  assign(assigner: () => AgentMachineContext): void;
  emit(event: AgentEvent): void;
  // biome-ignore lint/suspicious/noExplicitAny: internal events of the agent machine and its children
  sendTo(target: any, event: any): void;
  spawnChild(src: "toolCall", options: { id: string; input: ToolCallInput }): void;
  stopChild(id: string): void;
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
export function startToolBatch(context: AgentMachineContext, enqueue: Enqueue): void {
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
export function ackSteeringPoll(
  context: AgentMachineContext,
  external: AgentMessage[],
  enqueue: Enqueue,
): void {
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
export function resumeToolCalls(
  context: AgentMachineContext,
  plan: { interrupted: string[]; reenter: string[]; waiting: string[] },
  enqueue: Enqueue,
): void {
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
export function abortRun(self: AnyActorRef): void {
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

/** The events the `turnCallbacks` actor sends back to the agent. */
export type DecisionEvent =
  | { type: "DECIDED"; decision: TurnDecision }
  | { type: "DECISION_FAILED"; error: string };

/**
 * The body of the `turnCallbacks` actor (invoked in `preparingTurn.deciding`): runs the between-turn
 * callbacks for the context as of the end of the last turn and sends back `DECIDED` (the decision as
 * data; tools of a replaced context are added to the runtime) or `DECISION_FAILED`. Synchronous
 * callbacks answer at once. Returns the actor's cleanup: stopped before it answered (an abort, a
 * `FAIL`, the agent stopped), it aborts the run's signal, and messages the callbacks drain after that
 * go back to their source.
 */
export function runDecision(
  self: AnyActorRef,
  context: AgentMachineContext,
  sendBack: (event: DecisionEvent) => void,
): () => void {
  const runtime = runtimeOf(self);
  const run = context.run!;
  const signal = runtime.controller.signal;
  let answered = false;
  const decided = (answer: Parameters<typeof toTurnDecision>[0]) => {
    answered = true;
    sendBack({
      type: "DECIDED",
      decision: toTurnDecision(answer, (tools) =>
        tools.map((tool) => {
          if (!runtime.tools.has(tool.name)) runtime.tools.set(tool.name, tool as never);
          return tool.name;
        }),
      ),
    });
  };
  const failed = (error: unknown) => {
    answered = true;
    sendBack({ type: "DECISION_FAILED", error: errorText(error) });
  };
  try {
    const answer = runTurnCallbacks({
      callbacks: runtime.callbacks,
      signal,
      turnEnd: run.lastTurn && {
        ...run.lastTurn,
        context: {
          systemPrompt: context.systemPrompt,
          messages: context.messages,
          tools: activeTools(runtime, context.toolNames),
        },
        newMessages: run.newMessages,
      },
      turnsDone: run.turns,
      maxTurns: context.settings.maxTurns,
      willStream: willStream(context),
    });
    if (!(answer instanceof Promise)) decided(answer);
    else
      answer.then(
        (settled) => {
          if (!answered && !signal.aborted) return decided(settled);
          for (const queue of ["steering", "followUp"] as const)
            if (settled.external[queue].length > 0)
              runtime.callbacks.restoreQueuedMessages?.(queue, settled.external[queue]);
        },
        (error: unknown) => {
          if (!answered) failed(error);
        },
      );
  } catch (error) {
    failed(error);
  }
  return () => {
    if (answered) return;
    answered = true;
    runtime.controller.abort();
  };
}

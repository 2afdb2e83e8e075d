import type { AnyActorRef } from "xstate";
import { activeTools, agentEmitter, runtimeOf } from "../actors/agent-runtime.js";
import type { StreamReplyInput } from "../actors/stream-reply.actor.js";
import type { AgentMachineContext, InboxMessage } from "../loop/agent-context.js";
import {
  runTurnCallbacks,
  type TurnCallbacksAnswer,
  takeFromQueue,
  willStream,
} from "../loop/between-turns.js";
import { isPromiseLike } from "../loop/maybe-async.js";
import * as steps from "../loop/run-steps.js";
import { INTERRUPTED_CALL_TEXT, phaseOf } from "../loop/tool-batch.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentMessage } from "../types/messages.js";
import type { ToolCallInput } from "./tool-call.machine.js";

// The effectful halves of agentMachine's actions: they call the runtime (callbacks, tools) and turn what
// it answers into events; the state changes themselves are the pure steps of src/loop.

/** The part of XState's `enqueue` the agent's actions use. */
export interface Enqueue {
  assign(assigner: () => AgentMachineContext): void;
  emit(event: AgentEvent): void;
  // biome-ignore lint/suspicious/noExplicitAny: internal events of the agent machine
  raise(event: any): void;
  // biome-ignore lint/suspicious/noExplicitAny: internal events of the agent machine and its children
  sendTo(target: any, event: any): void;
  spawnChild(src: "toolCall", options: { id: string; input: ToolCallInput }): void;
  stopChild(id: string): void;
}

/** Applies a step: its context, then its events (delivered after the macrostep, in order). */
export function apply(enqueue: Enqueue, result: steps.StepResult): AgentMachineContext {
  enqueue.assign(() => result.context);
  for (const event of result.events) enqueue.emit(event);
  return result.context;
}

/**
 * Runs the between-turn callbacks. A synchronous answer is raised as `DECIDED` in this macrostep; a
 * promise moves the machine to `awaitingCallbacks` (an invoked actor). Messages an external source
 * gave up for a run that was aborted before the answer landed go back to it.
 */
export function decideTurn(context: AgentMachineContext, enqueue: Enqueue, self: AnyActorRef): void {
  const runtime = runtimeOf(self);
  const run = context.run!;
  const signal = runtime.controller.signal;
  let answer: TurnCallbacksAnswer | Promise<TurnCallbacksAnswer>;
  try {
    answer = runTurnCallbacks({
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
  } catch (error) {
    enqueue.raise({ type: "DECISION_FAILED", error });
    return;
  }
  if (!(answer instanceof Promise)) {
    enqueue.raise({ type: "DECIDED", answer });
    return;
  }
  answer.then(
    (settled) => {
      if (!signal.aborted) return;
      for (const queue of ["steering", "followUp"] as const)
        if (settled.external[queue].length > 0)
          runtime.callbacks.restoreQueuedMessages?.(queue, settled.external[queue]);
    },
    () => undefined,
  );
  enqueue.raise({ type: "DECISION_PENDING", pending: answer });
}

/** The stream actor's input: the request as of now, the run's signal, deltas straight to `actor.on`. */
export function streamInput(
  context: AgentMachineContext,
  self: AnyActorRef,
): StreamReplyInput & { controller: AbortController } {
  const runtime = runtimeOf(self);
  return {
    callbacks: runtime.callbacks,
    model: context.model,
    thinkingLevel: context.thinkingLevel,
    systemPrompt: context.systemPrompt,
    messages: context.messages,
    tools: activeTools(runtime, context.toolNames),
    streamOptions: context.streamOptions,
    signal: runtime.controller.signal,
    controller: runtime.controller,
    sink: agentEmitter(self),
  };
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
  enqueue.spawnChild("toolCall", {
    id: call.id,
    input: {
      toolCall: call,
      assistantMessage: result.context.run!.batch!.message,
      idempotencyKey: `${context.agentId}:${call.id}`,
    },
  });
}

/**
 * After a settled call, with steering policy `betweenTools`: looks at the agent's steering queue and
 * polls the external source. No further call starts until the answer (`STEERING.POLLED`) arrives.
 */
export function pollSteeringBetweenTools(
  context: AgentMachineContext,
  enqueue: Enqueue,
  self: AnyActorRef,
): void {
  const runtime = runtimeOf(self);
  const poll = runtime.callbacks.getSteeringMessages;
  if (!poll) {
    if (context.steering.length > 0) enqueue.raise({ type: "STEERING.POLLED", external: [] });
    return;
  }
  let polled: AgentMessage[] | Promise<AgentMessage[]>;
  try {
    polled = poll();
  } catch {
    return; // A throwing queue callback is reported by the poll after the turn, which ends the run.
  }
  if (!isPromiseLike(polled)) {
    enqueue.raise({ type: "STEERING.POLLED", external: (polled as AgentMessage[] | undefined) ?? [] });
    return;
  }
  enqueue.assign(() => steps.setSteeringPoll(context, true));
  const signal = runtime.controller.signal;
  Promise.resolve(polled as PromiseLike<AgentMessage[]>).then(
    (messages) => {
      if (signal.aborted) {
        if (messages?.length) runtime.callbacks.restoreQueuedMessages?.("steering", messages);
        return;
      }
      self.send({ type: "STEERING.POLLED", external: messages ?? [] });
    },
    () => self.send({ type: "STEERING.POLLED", external: [] }),
  );
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
 * interruption result; every other spawned call re-enters its state (a `"safe"` call runs again).
 */
export function resumeToolCalls(context: AgentMachineContext, interrupted: string[], enqueue: Enqueue): void {
  let current = context;
  const batch = context.run?.batch;
  if (!batch) return;
  for (const call of batch.calls) {
    const phase = phaseOf(batch, call.id);
    if (phase === "pending" || phase === "settled") continue;
    if (interrupted.includes(call.id)) {
      enqueue.stopChild(call.id);
      current = apply(enqueue, steps.recordToolOutcome(current, errorOutcome(call, INTERRUPTED_CALL_TEXT)));
    } else {
      enqueue.sendTo(call.id, { type: "RESUME" });
    }
  }
}

import { fromCallback } from "xstate";
import { willStream } from "../loop/between-turns.js";
import type { AgentMachineContext, QueuedReturns, QueueName } from "../machines/agent/agent.context.js";
import type { DecisionEvent, TurnDecision } from "../machines/agent/agent.events.js";
import { type AgentImplementations, activeTools } from "../machines/agent/agent.implementations.js";
import { errorText } from "../types/error-text.js";
import type { AgentCallbacks, NextTurnUpdate, TurnEndContext } from "../types/loop.js";
import { isPromiseLike, type MaybeAsyncSteps, runMaybeAsync } from "../types/maybe-async.js";
import type { AgentMessage } from "../types/messages.js";

/**
 * Spawned in `preparingTurn.deciding` when the agent has between-turn callbacks (provided by
 * `createAgentMachine`): runs them for the context as of the end of the last turn and sends back
 * `DECIDED` or `DECISION_FAILED` (see `runDecision`).
 */
export function turnCallbacksActor(implementations: AgentImplementations) {
  return fromCallback<DecisionEvent, { context: AgentMachineContext }>(({ input, sendBack }) =>
    runDecision(implementations, input.context, sendBack),
  );
}

/**
 * The body of the `turnCallbacks` actor (invoked in `preparingTurn.deciding`): runs the between-turn
 * callbacks for the context as of the end of the last turn and sends back `DECIDED` (the decision as
 * data; tools of a replaced context are added to the implementations) or `DECISION_FAILED`.
 * Returns the actor's cleanup, which aborts the callbacks' signal: stopped before it answered (an
 * abort, a `FAIL`, the agent stopped), no further callback runs and messages they drain after that go
 * back to their source.
 */
function runDecision(
  implementations: AgentImplementations,
  context: AgentMachineContext,
  sendBack: (event: DecisionEvent) => void,
): () => void {
  const run = context.run!;
  const controller = new AbortController();
  const signal = controller.signal;
  const decided = (answer: Parameters<typeof toTurnDecision>[0]) =>
    sendBack({
      type: "DECIDED",
      decision: toTurnDecision(answer, (tools) =>
        tools.map((tool) => {
          if (!implementations.tools.has(tool.name)) implementations.tools.set(tool.name, tool as never);
          return tool.name;
        }),
      ),
    });
  // A stopped actor's answer is dropped by XState (`sendBack` of a stopped callback actor does nothing).
  const failed = (error: unknown) => sendBack({ type: "DECISION_FAILED", error: errorText(error) });
  // The callbacks run one microtask after the actor starts: the listeners of the last turn's events
  // have run by then, and an ABORT one of them sent has stopped this actor (its send is processed
  // once the macrostep that spawned it ends), so an abort requested there acts before any callback.
  queueMicrotask(() => {
    if (signal.aborted) return;
    try {
      const answer = runTurnCallbacks({
        callbacks: implementations.callbacks,
        signal,
        turnEnd: run.lastTurn && {
          ...run.lastTurn,
          context: {
            systemPrompt: context.systemPrompt,
            messages: context.messages,
            tools: activeTools(implementations, context.toolNames),
          },
          newMessages: run.newMessages,
        },
        turnsDone: run.turns,
        maxTurns: context.settings.maxTurns,
        willStream: willStream(context),
      });
      if (!(answer instanceof Promise)) decided(answer);
      else
        answer.then((settled) => {
          if (!signal.aborted) return decided(settled);
          // Stopped after the last poll answered: what the polls drained goes back to its source.
          for (const queue of ["steering", "followUp"] as const)
            checkedDrain(implementations.callbacks, queue, signal, settled.external[queue]);
        }, failed);
    } catch (error) {
      failed(error);
    }
  });
  return () => controller.abort();
}

/** What the user's between-turn callbacks answered. */
export interface TurnCallbacksAnswer {
  /** `shouldStopAfterTurn` said stop, or `maxTurns` was reached, or the run was aborted meanwhile. */
  stop: boolean;
  update?: NextTurnUpdate;
  /** Messages drained from the external sources (`getSteeringMessages`, `getFollowUpMessages`). */
  external: { steering: AgentMessage[]; followUp: AgentMessage[] };
}

export interface TurnCallbacksInput {
  callbacks: AgentCallbacks;
  signal: AbortSignal;
  /** The turn that just ended; absent at run start. */
  turnEnd?: TurnEndContext;
  turnsDone: number;
  maxTurns: number | undefined;
  /** The loop will call the model anyway (tools want a reply, messages wait): no follow-up poll. */
  willStream: boolean;
}

/**
 * Runs the user's callbacks between turns, in pi's order: `prepareNextTurn` → `shouldStopAfterTurn` →
 * `maxTurns` → external steering poll → (only when the loop would otherwise stop) external follow-up
 * poll. Synchronous when every callback answers synchronously, else a promise. An abort seen after a
 * callback calls no further one (the actor answers nothing once aborted); what a poll drained is handed
 * back through `restoreQueuedMessages`. Throws (or rejects) when a callback throws.
 */
function runTurnCallbacks(input: TurnCallbacksInput): TurnCallbacksAnswer | Promise<TurnCallbacksAnswer> {
  return runMaybeAsync(turnCallbackSteps(input));
}

function* turnCallbackSteps(input: TurnCallbacksInput): MaybeAsyncSteps<TurnCallbacksAnswer> {
  const { callbacks, signal, turnEnd } = input;
  const external = { steering: [] as AgentMessage[], followUp: [] as AgentMessage[] };
  let update: NextTurnUpdate | undefined;
  const stop = (): TurnCallbacksAnswer => ({ stop: true, update, external: { steering: [], followUp: [] } });
  if (turnEnd) {
    update = ((yield callbacks.prepareNextTurn?.(turnEnd)) as NextTurnUpdate | undefined) ?? undefined;
    if (signal.aborted) return stop();
    const after = update?.context ? { ...turnEnd, context: update.context } : turnEnd;
    if (yield callbacks.shouldStopAfterTurn?.(after)) return stop();
    if (input.turnsDone >= (input.maxTurns ?? Number.POSITIVE_INFINITY)) return stop();
  }
  if (signal.aborted) return stop();
  external.steering = checkedDrain(callbacks, "steering", signal, yield callbacks.getSteeringMessages?.());
  if (signal.aborted) return stop();
  if (!input.willStream && external.steering.length === 0) {
    external.followUp = checkedDrain(callbacks, "followUp", signal, yield callbacks.getFollowUpMessages?.());
  }
  return { stop: false, update, external };
}

/** Validates what a poll returned; hands it back to its source when the run was aborted meanwhile. */
function checkedDrain(
  callbacks: AgentCallbacks,
  queue: QueueName,
  signal: AbortSignal,
  polled: unknown,
): AgentMessage[] {
  const messages = polled ?? [];
  if (!Array.isArray(messages))
    throw new TypeError(`The ${queue} queue callback must return an array of messages`);
  if (signal.aborted && messages.length > 0) {
    callbacks.restoreQueuedMessages?.(queue, messages);
    return [];
  }
  return messages;
}

/** The callbacks' answer as data: `toolNamesOf` names (and registers) the tools of a replaced context. */
function toTurnDecision(
  answer: TurnCallbacksAnswer,
  toolNamesOf: (tools: readonly { name: string }[]) => string[],
): TurnDecision {
  const update = answer.update;
  const decision: TurnDecision = { stop: answer.stop, external: answer.external };
  if (update?.model) decision.model = update.model;
  if (update?.thinkingLevel) decision.thinkingLevel = update.thinkingLevel;
  if (update?.context)
    decision.context = {
      systemPrompt: update.context.systemPrompt,
      messages: [...update.context.messages],
      toolNames: toolNamesOf(update.context.tools),
    };
  return decision;
}

/**
 * The `pollSteering` action (provided by `createAgentMachine`), after a settled call with steering
 * policy `betweenTools`: polls the external steering source and answers with `STEERING_POLLED` (at
 * once when it answers synchronously or there is none). No further call starts until the answer
 * arrives; an answer after the run ended goes back to the source (`keepLateSteering`).
 *
 * Contract: never throws (a throwing poll answers with no messages; the poll after the turn reports it).
 */
export function pollSteering(
  implementations: AgentImplementations,
  self: { send: (event: never) => void },
): void {
  const poll = implementations.callbacks.getSteeringMessages;
  const answer = (external: AgentMessage[]) => self.send({ type: "STEERING_POLLED", external } as never);
  let polled: AgentMessage[] | Promise<AgentMessage[]> | undefined;
  try {
    polled = poll?.();
  } catch {
    // No messages: a throwing queue callback is reported by the poll after the turn, which ends the run.
  }
  if (!isPromiseLike(polled)) {
    answer((polled as AgentMessage[] | undefined) ?? []);
    return;
  }
  Promise.resolve(polled as PromiseLike<AgentMessage[]>).then(
    (messages) => answer(messages ?? []),
    () => answer([]),
  );
}

/**
 * The `returnQueuedMessages` action (provided by `createAgentMachine`): gives messages an ended run had
 * drained back to their source (`restoreQueuedMessages`).
 *
 * Contract: calls user code; its throw propagates to XState, which reports it.
 */
export function returnQueuedMessages(implementations: AgentImplementations, returned: QueuedReturns): void {
  const restore = implementations.callbacks.restoreQueuedMessages;
  for (const { queue, messages } of returned) restore?.(queue, messages);
}

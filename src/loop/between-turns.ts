import type {
  AgentMachineContext,
  InboxMessage,
  QueueMode,
  QueueName,
} from "../machines/agent/agent.context.js";
import type { TurnDecision } from "../machines/agent/agent.events.js";
import type { AgentCallbacks, NextTurnUpdate, TurnEndContext } from "../types/loop.js";
import { type MaybeAsyncSteps, runMaybeAsync } from "../types/maybe-async.js";
import type { AgentMessage } from "../types/messages.js";

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
 * poll. Synchronous when every callback answers synchronously, else a promise. An abort seen after any
 * callback stops the decision; what it drained is handed back through `restoreQueuedMessages`. Throws
 * (or rejects) when a callback throws.
 */
export function runTurnCallbacks(
  input: TurnCallbacksInput,
): TurnCallbacksAnswer | Promise<TurnCallbacksAnswer> {
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
    if (signal.aborted) return stop();
    if (input.maxTurns !== undefined && input.turnsDone >= input.maxTurns) return stop();
  }
  if (signal.aborted) return stop();
  external.steering = checkedDrain(callbacks, "steering", signal, yield callbacks.getSteeringMessages?.());
  if (signal.aborted) return stop();
  if (!input.willStream && external.steering.length === 0) {
    external.followUp = checkedDrain(callbacks, "followUp", signal, yield callbacks.getFollowUpMessages?.());
    if (signal.aborted) return stop();
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

/** The messages due at a drain point of an agent queue. */
export function takeFromQueue(queue: readonly AgentMessage[], mode: QueueMode): AgentMessage[] {
  if (queue.length === 0) return [];
  return mode === "all" ? [...queue] : queue.slice(0, 1);
}

/** The callbacks' answer as data: `toolNamesOf` names (and registers) the tools of a replaced context. */
export function toTurnDecision(
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

/** The decision of an agent without between-turn callbacks: stop only at `maxTurns` (pure). */
export function decisionWithoutCallbacks(ctx: AgentMachineContext): TurnDecision {
  const run = ctx.run!;
  const maxTurns = ctx.settings.maxTurns;
  const stop = run.lastTurn !== undefined && maxTurns !== undefined && run.turns >= maxTurns;
  return { stop, external: { steering: [], followUp: [] } };
}

/** What follows the decision. */
export type NextTurnPlan = { next: "stream" | "stop"; context: AgentMachineContext };

/**
 * Plans the next turn from the callbacks' decision (pure): applies the update (model, thinking level,
 * a replaced context), then drains the agent's steering queue by its mode (unless the run started from
 * a steering message, which spent the first drain point), and — only when the loop would otherwise
 * stop — the follow-up queue. Streams when tools want a reply, messages wait, or the run just started.
 */
export function planNextTurn(ctx: AgentMachineContext, decision: TurnDecision): NextTurnPlan {
  let next = ctx;
  if (decision.model) next = { ...next, model: decision.model };
  if (decision.thinkingLevel) next = { ...next, thinkingLevel: decision.thinkingLevel };
  if (decision.context) {
    next = {
      ...next,
      systemPrompt: decision.context.systemPrompt,
      messages: [...decision.context.messages],
      toolNames: [...decision.context.toolNames],
    };
  }
  const run = next.run!;
  if (decision.stop) return { next: "stop", context: next };
  // An accepted output ends the run; what the external sources handed over goes back to them.
  if (run.output?.accepted || run.output?.failure) {
    const back: InboxMessage[] = (["steering", "followUp"] as const).flatMap((from) =>
      decision.external[from].map((message) => ({ message, from, external: true })),
    );
    return { next: "stop", context: { ...next, run: { ...run, inbox: [...run.inbox, ...back] } } };
  }

  const atStart = run.lastTurn === undefined;
  const steering =
    atStart && run.steeringSpent ? [] : takeFromQueue(next.steering, next.settings.steeringMode);
  const inbox: InboxMessage[] = [
    ...run.inbox,
    ...steering.map((message) => ({ message, from: "steering" as const })),
    ...decision.external.steering.map((message) => ({ message, from: "steering" as const, external: true })),
  ];
  if (steering.length > 0) next = { ...next, steering: next.steering.slice(steering.length) };
  if (atStart || run.toolsWantReply || inbox.length > 0)
    return { next: "stream", context: { ...next, run: { ...run, inbox, steeringSpent: false } } };

  const followUps = takeFromQueue(next.followUp, next.settings.followUpMode);
  const arrived: InboxMessage[] = [
    ...followUps.map((message) => ({ message, from: "followUp" as const })),
    ...decision.external.followUp.map((message) => ({ message, from: "followUp" as const, external: true })),
  ];
  if (arrived.length === 0) return { next: "stop", context: next };
  return {
    next: "stream",
    context: { ...next, followUp: next.followUp.slice(followUps.length), run: { ...run, inbox: arrived } },
  };
}

/** Whether the loop will call the model whatever the callbacks say (used to skip the follow-up poll). */
export function willStream(ctx: AgentMachineContext): boolean {
  const run = ctx.run!;
  return run.lastTurn === undefined || run.toolsWantReply || run.inbox.length > 0 || ctx.steering.length > 0;
}

const plans = new WeakMap<TurnDecision, NextTurnPlan>();
/** The plan of a decision, computed once per `DECIDED` event for its guard and its action (pure). */
export function planOf(context: AgentMachineContext, decision: TurnDecision): NextTurnPlan {
  let plan = plans.get(decision);
  if (!plan) {
    plan = planNextTurn(context, decision);
    plans.set(decision, plan);
  }
  return plan;
}

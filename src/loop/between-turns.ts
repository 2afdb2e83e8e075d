import type { AgentMachineContext, InboxMessage, QueueMode } from "../machines/agent/agent.context.js";
import type { TurnDecision } from "../machines/agent/agent.events.js";
import type { AgentMessage } from "../types/messages.js";

/** The messages due at a drain point of an agent queue. */
export function takeFromQueue(queue: readonly AgentMessage[], mode: QueueMode): AgentMessage[] {
  return mode === "all" ? [...queue] : queue.slice(0, 1);
}

/** The decision of an agent without between-turn callbacks: stop only at `maxTurns` (pure). */
export function decisionWithoutCallbacks(ctx: AgentMachineContext): TurnDecision {
  const run = ctx.run!;
  const stop = run.lastTurn !== undefined && run.turns >= (ctx.settings.maxTurns ?? Number.POSITIVE_INFINITY);
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

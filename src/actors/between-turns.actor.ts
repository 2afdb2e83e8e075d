import { fromPromise } from "xstate";
import type { AgentLoopConfig, NextTurnUpdate, TurnEndContext } from "../types/loop.js";
import type { AgentMessage } from "../types/messages.js";

export interface BetweenTurnsInput {
  config: AgentLoopConfig;
  signal: AbortSignal;
  /** The turn that just ended; absent at run start. */
  turnEnd?: TurnEndContext;
  /** The last turn ran tools whose batch did not ask to terminate, so the model must be called again. */
  toolsWantReply: boolean;
  /**
   * Messages the run already holds (steering that arrived between tools). They stay the run's until a
   * decision to stream delivers them; the run restores them to their queue if it ends instead.
   */
  pending: AgentMessage[];
  turnsDone: number;
}

export type BetweenTurnsDecision =
  | { next: "stream"; pending: AgentMessage[]; update?: NextTurnUpdate }
  | { next: "stop"; update?: NextTurnUpdate };

/**
 * Decides what follows a turn (or the run start), calling the user's callbacks in pi's order:
 * `prepareNextTurn` → `shouldStopAfterTurn` → `maxTurns` → steering poll → (only when the loop would
 * stop) follow-up poll. Messages it drains itself but cannot deliver because the run was aborted are
 * handed back through `restoreQueuedMessages`. Rejects when a callback throws.
 */
export async function decideNextTurn(input: BetweenTurnsInput): Promise<BetweenTurnsDecision> {
  const { config, signal, turnEnd } = input;
  let update: NextTurnUpdate | undefined;
  const stop = (): BetweenTurnsDecision => ({ next: "stop", update });
  if (turnEnd) {
    update = (await config.prepareNextTurn?.(turnEnd)) ?? undefined;
    const after = update?.context ? { ...turnEnd, context: update.context } : turnEnd;
    if (await config.shouldStopAfterTurn?.(after)) return stop();
    if (config.maxTurns !== undefined && input.turnsDone >= config.maxTurns) return stop();
  }
  if (signal.aborted) return stop();

  const steering = await drain(config, "steering", signal, config.getSteeringMessages);
  if (signal.aborted) return stop(); // drain() already restored what it took
  const pending = [...input.pending, ...steering];
  if (!turnEnd || input.toolsWantReply || pending.length > 0) return { next: "stream", pending, update };

  const followUps = await drain(config, "followUp", signal, config.getFollowUpMessages);
  if (followUps.length === 0 || signal.aborted) return { next: "stop", update };
  return { next: "stream", pending: followUps, update };
}

async function drain(
  config: AgentLoopConfig,
  queue: "steering" | "followUp",
  signal: AbortSignal,
  poll: (() => AgentMessage[] | Promise<AgentMessage[]>) | undefined,
): Promise<AgentMessage[]> {
  const messages = (await poll?.()) ?? [];
  if (!Array.isArray(messages))
    throw new TypeError(`The ${queue} queue callback must return an array of messages`);
  if (signal.aborted && messages.length > 0) {
    config.restoreQueuedMessages?.(queue, messages);
    return [];
  }
  return messages;
}

/** The actor invoked by the `preparingTurn` state. */
export const betweenTurnsActor = fromPromise<BetweenTurnsDecision, BetweenTurnsInput>(({ input }) =>
  decideNextTurn(input),
);

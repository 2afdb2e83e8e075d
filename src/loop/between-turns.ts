import type { AgentLoopConfig, NextTurnUpdate, TurnEndContext } from "../types/loop.js";
import type { AgentMessage } from "../types/messages.js";
import { type MaybeAsyncSteps, runMaybeAsync } from "./maybe-async.js";

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
  | {
      next: "stream";
      /** The messages to inject: the run's held ones plus what the poll drained from `from`. */
      pending: AgentMessage[];
      from: "steering" | "followUp";
      update?: NextTurnUpdate;
    }
  | { next: "stop"; update?: NextTurnUpdate };

/**
 * Decides what follows a turn (or the run start), calling the user's callbacks in pi's order:
 * `prepareNextTurn` → `shouldStopAfterTurn` → `maxTurns` → steering poll → (only when the loop would
 * stop) follow-up poll. Runs synchronously when every callback answers synchronously, else returns a
 * promise. Messages it drains itself but cannot deliver because the run was aborted are handed back
 * through `restoreQueuedMessages`. Throws (or rejects) when a callback throws.
 */
export function decideNextTurn(
  input: BetweenTurnsInput,
): BetweenTurnsDecision | Promise<BetweenTurnsDecision> {
  return runMaybeAsync(decisionSteps(input));
}

function* decisionSteps(input: BetweenTurnsInput): MaybeAsyncSteps<BetweenTurnsDecision> {
  const { config, signal, turnEnd } = input;
  let update: NextTurnUpdate | undefined;
  const stop = (): BetweenTurnsDecision => ({ next: "stop", update });
  if (turnEnd) {
    update = ((yield config.prepareNextTurn?.(turnEnd)) as NextTurnUpdate | undefined) ?? undefined;
    const after = update?.context ? { ...turnEnd, context: update.context } : turnEnd;
    if (yield config.shouldStopAfterTurn?.(after)) return stop();
    if (config.maxTurns !== undefined && input.turnsDone >= config.maxTurns) return stop();
  }
  if (signal.aborted) return stop();

  const steering = checkedDrain(config, "steering", signal, yield config.getSteeringMessages?.());
  if (signal.aborted) return stop(); // checkedDrain() already restored what it took
  const pending = [...input.pending, ...steering];
  if (!turnEnd || input.toolsWantReply || pending.length > 0)
    return { next: "stream", pending, from: "steering", update };

  const followUps = checkedDrain(config, "followUp", signal, yield config.getFollowUpMessages?.());
  if (followUps.length === 0 || signal.aborted) return { next: "stop", update };
  return { next: "stream", pending: followUps, from: "followUp", update };
}

/** Validates what a queue poll returned; hands it back to its queue when the run was aborted meanwhile. */
function checkedDrain(
  config: AgentLoopConfig,
  queue: "steering" | "followUp",
  signal: AbortSignal,
  polled: unknown,
): AgentMessage[] {
  const messages = polled ?? [];
  if (!Array.isArray(messages))
    throw new TypeError(`The ${queue} queue callback must return an array of messages`);
  if (signal.aborted && messages.length > 0) {
    config.restoreQueuedMessages?.(queue, messages);
    return [];
  }
  return messages;
}

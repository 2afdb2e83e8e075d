import type { AgentMessage } from "../types/messages.js";

/**
 * Why a run cannot continue from `messages` with `queued` steering and follow-up messages waiting, or
 * `undefined` when it can: a continuation needs a transcript, and after an assistant message it needs
 * a queued message to run (pi's rule).
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * continueRefusal([], 0); // "Cannot continue: no messages in context"
 * ```
 */
export function continueRefusal(messages: readonly AgentMessage[], queued: number): string | undefined {
  const last = messages.at(-1) as { role?: string } | undefined;
  if (!last) return "Cannot continue: no messages in context";
  if (last.role === "assistant" && queued === 0) return "Cannot continue from message role: assistant";
  return undefined;
}

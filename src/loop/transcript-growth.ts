import { type AgentMessage, isLlmMessage, type Message } from "../types/messages.js";

/** Which transcript each transcript was made from by appending (transcripts are never changed in place). */
const grownFrom = new WeakMap<readonly AgentMessage[], readonly AgentMessage[]>();

/** Transcripts known to hold only messages a model understands (user, assistant, toolResult). */
const llmOnly = new WeakSet<readonly AgentMessage[]>();

/** How far `grewFrom` follows the chain before it gives up (a caller then starts over, correctly). */
const MAX_STEPS = 64;

/** A new transcript: `messages` followed by `added`. `messages` itself is left as it is. */
export function appendMessages(
  messages: readonly AgentMessage[],
  added: readonly AgentMessage[],
): AgentMessage[] {
  const next = messages.concat(added);
  grownFrom.set(next, messages);
  // Only transcripts made here are marked (their contents never change); a lineage is checked once.
  if (added.every(isLlmMessage) && (llmOnly.has(messages) || messages.every(isLlmMessage))) llmOnly.add(next);
  return next;
}

/**
 * Whether `newer` is `older`, or was made from it by appending (within a few steps): then `older` is
 * a prefix of `newer`, element for element, and work done on it (a token count, a conversion) can go
 * on from where it stopped.
 */
export function grewFrom(newer: readonly AgentMessage[], older: readonly AgentMessage[]): boolean {
  let current: readonly AgentMessage[] | undefined = newer;
  for (let step = 0; current !== undefined && step <= MAX_STEPS; step++) {
    if (current === older) return true;
    current = grownFrom.get(current);
  }
  return false;
}

/**
 * Whether every message of `messages` is one a model understands: O(1) for a transcript made by
 * `appendMessages`, one pass for any other array.
 */
export function onlyLlmMessages(messages: readonly AgentMessage[]): messages is readonly Message[] {
  return llmOnly.has(messages) || messages.every(isLlmMessage);
}

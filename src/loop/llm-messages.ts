import type { AgentMessage, Message } from "../types/messages.js";
import { isLlmMessage } from "../types/messages.js";

interface Converted {
  /** How many transcript messages have been looked at. */
  seen: number;
  /** The last transcript message looked at: if it moved, the transcript was rewritten. */
  last: AgentMessage | undefined;
  messages: Message[];
}

const cache = new WeakMap<readonly AgentMessage[], Converted>();

/**
 * The default `convertToLlm` (keep user, assistant and toolResult messages) for a transcript that only
 * grows: it converts only the messages appended since the last call on the same array, so a turn costs
 * the same with 10 or 10,000 messages of history. A transcript rewritten in place is converted afresh.
 * Returns a new array each call (StreamFns may keep it).
 */
export function convertGrowingTranscript(transcript: readonly AgentMessage[]): Message[] {
  let converted = cache.get(transcript);
  if (!converted || converted.seen > transcript.length || transcript[converted.seen - 1] !== converted.last) {
    converted = { seen: 0, last: undefined, messages: [] };
    cache.set(transcript, converted);
  }
  for (let index = converted.seen; index < transcript.length; index++) {
    const message = transcript[index]!;
    if (isLlmMessage(message)) converted.messages.push(message);
  }
  converted.seen = transcript.length;
  converted.last = transcript[transcript.length - 1];
  return converted.messages.slice();
}

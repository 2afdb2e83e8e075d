import type { AssistantMessage } from "../../src/types/messages.js";
import type { AssistantEventSource, AssistantMessageEvent } from "../../src/types/stream.js";

/** Everything a StreamFn produced for one reply. */
export interface CollectedReply {
  events: AssistantMessageEvent[];
  /** The message of the final `done` / `error` event. */
  message: AssistantMessage;
  final: Extract<AssistantMessageEvent, { type: "done" | "error" }>;
}

/**
 * Consumes a StreamFn result (AsyncIterable or Observable, or a Promise of either) and returns its
 * events. Fails when the stream ends without a final event or yields anything after it.
 */
export async function collectEvents(
  source: AssistantEventSource | Promise<AssistantEventSource>,
): Promise<CollectedReply> {
  const resolved = await source;
  const events: AssistantMessageEvent[] = [];
  if (Symbol.asyncIterator in resolved) {
    for await (const event of resolved) events.push(event);
  } else {
    await new Promise<void>((resolve, reject) => {
      resolved.subscribe({ next: (event) => events.push(event), error: reject, complete: resolve });
    });
  }
  const final = events.at(-1);
  if (final?.type !== "done" && final?.type !== "error") {
    throw new Error(`stream ended without a final event (last: ${final?.type ?? "none"})`);
  }
  const finals = events.filter((event) => event.type === "done" || event.type === "error");
  if (finals.length !== 1) throw new Error(`expected exactly one final event, got ${finals.length}`);
  return { events, final, message: final.type === "done" ? final.message : final.error };
}

/** The event types in order, for compact assertions. */
export function eventTypes(events: AssistantMessageEvent[]): string[] {
  return events.map((event) => event.type);
}

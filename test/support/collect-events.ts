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
 * events; `onEvent` sees each one as it arrives (while `partial` still shows that moment). Fails when
 * the stream ends without a final event or yields anything after it.
 */
export async function collectEvents(
  source: AssistantEventSource | Promise<AssistantEventSource>,
  onEvent: (event: AssistantMessageEvent) => void = () => {},
): Promise<CollectedReply> {
  const resolved = await source;
  const events: AssistantMessageEvent[] = [];
  const take = (event: AssistantMessageEvent) => {
    onEvent(event);
    events.push(event);
  };
  if (Symbol.asyncIterator in resolved) {
    for await (const event of resolved) take(event);
  } else {
    await new Promise<void>((resolve, reject) => {
      resolved.subscribe({ next: take, error: reject, complete: resolve });
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

/**
 * Collects, at each `toolcall_delta`, `[contentIndex, a deep copy of partial.content[contentIndex].arguments]`:
 * the arguments a UI would show at that moment.
 */
export function argumentsAtEachDelta(seen: [number, unknown][]): (event: AssistantMessageEvent) => void {
  return (event) => {
    if (event.type !== "toolcall_delta") return;
    const block = event.partial.content[event.contentIndex];
    seen.push([
      event.contentIndex,
      block?.type === "toolCall" ? structuredClone(block.arguments) : undefined,
    ]);
  };
}

/** True when every tool call of `message` holds its arguments as a plain data property. */
export function argumentsArePlainData(message: AssistantMessage): boolean {
  return message.content.every(
    (block) => block.type !== "toolCall" || "value" in Object.getOwnPropertyDescriptor(block, "arguments")!,
  );
}

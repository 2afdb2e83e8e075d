import { EventSchemas } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import { type IdentifiedEvent, SessionRunEvents } from "../../src/ag-ui/session-run-events.js";
import type { StoredRun } from "../../src/ag-ui/session-run-source.js";
import { applyAgUiEvent, initialClientContext } from "../../src/client/agent-client-state.js";
import type { SessionEntry } from "../../src/storage/entries.js";
import type { ReplyDelta } from "../../src/storage/reply-delta.js";
import type { SessionStreamUpdate } from "../../src/storage/session-stream-update.js";
import { type AgentMessage, type AssistantMessage, emptyUsage } from "../../src/types/messages.js";

/** Positions as the PostgreSQL store numbers them: entry `seq` at `seq × 2^20`, deltas after it. */
const SLOTS = 2 ** 20;
let entryIds = 0;
const entry = (
  seq: number,
  value: { type: SessionEntry["type"]; [field: string]: unknown },
): SessionStreamUpdate => ({
  type: "entry",
  seq,
  position: seq * SLOTS,
  entry: {
    id: `e${++entryIds}`,
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    ...value,
  } as SessionEntry,
});
const message = (seq: number, message: AgentMessage) => entry(seq, { type: "message", message });
const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });
const assistant = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "scripted",
  provider: "test",
  model: "test",
  usage: emptyUsage(),
  stopReason: "stop",
  timestamp: 2,
});
/** The deltas streaming `text` (in pieces) after entry `afterSeq`, numbered from `first`. */
const streamed = (afterSeq: number, reply: string, pieces: string[], first = 1): SessionStreamUpdate[] => {
  const deltas: ReplyDelta[] = [
    { type: "text_start", contentIndex: 0 },
    ...pieces.map((delta) => ({ type: "text_delta" as const, contentIndex: 0, delta })),
    { type: "text_end", contentIndex: 0 },
  ];
  return deltas.map((delta, index) => ({
    type: "delta",
    position: afterSeq * SLOTS + first + index,
    afterSeq,
    reply,
    delta,
  }));
};
const state = (value: "queued" | "running" | "idle"): SessionStreamUpdate => ({
  type: "run_state",
  state: value,
});

const run: StoredRun = { runId: "r1", afterSeq: 2, afterPosition: 2 * SLOTS };
/** Two earlier messages, then the run: its prompt, a command entry, a reply streamed in 4 deltas. */
const history = [message(1, user("earlier")), message(2, assistant("earlier reply"))];
const PIECES = ["Hel", "lo ", "the", "re"];
const stream: SessionStreamUpdate[] = [
  ...history,
  state("queued"),
  message(3, user("hi")),
  entry(4, { type: "custom", customType: "agentchart.command", data: { commandId: "1" } }),
  state("running"),
  ...streamed(4, "a", PIECES),
  message(5, assistant("Hello there")),
  state("idle"),
];

function project(updates: readonly SessionStreamUpdate[], resumeAfter = 0): IdentifiedEvent[] {
  const events = new SessionRunEvents({ threadId: "t1", run, resumeAfter });
  const out = events.start();
  for (const update of updates) out.push(...events.apply(update));
  return out;
}
function storeAfter(events: readonly IdentifiedEvent[]) {
  let context = initialClientContext("t1");
  for (const { id, event } of events) context = applyAgUiEvent(context, event, id);
  return { messages: context.messages, status: context.status, streaming: context.streaming };
}

describe("AG-UI events of a run read from a session store", () => {
  it("streams the run: its start, the transcript at its prompt, the reply's deltas, the end; ids ascend", () => {
    const events = project(stream);
    for (const { event } of events)
      expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
    expect(events.map(({ event }) => event.type)).toEqual([
      "RUN_STARTED",
      "STATE_SNAPSHOT",
      "MESSAGES_SNAPSHOT",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "STATE_SNAPSHOT",
      "RUN_FINISHED",
    ]);
    const ids = events.map(({ id }) => id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(storeAfter(events).messages.map((m) => [m.id, m.content])).toEqual([
      ["m0", "earlier"],
      ["m1", "earlier reply"],
      ["m2", "hi"],
      ["m3", "Hello there"],
    ]);
  });

  it("resumed after any event, on a fresh projection of the same stream, ends in the uncut state with no event twice", () => {
    const whole = project(stream);
    for (let cut = 1; cut < whole.length; cut++) {
      const seen = whole.slice(0, cut);
      const rest = project(stream, seen.at(-1)!.id);
      expect(storeAfter([...seen, ...rest])).toEqual(storeAfter(whole));
      const positioned = (list: IdentifiedEvent[]) =>
        list.filter(({ event }) => event.type !== "STATE_SNAPSHOT");
      expect(positioned([...seen, ...rest])).toEqual(positioned(whole));
    }
  });

  it("a cursor inside a reply whose deltas are gone (its message stored since) gets a snapshot, then the stored reply", () => {
    const whole = project(stream);
    const cut = whole.findIndex(({ event }) => event.type === "TEXT_MESSAGE_CONTENT") + 2; // two deltas seen
    const seen = whole.slice(0, cut);
    const compacted = stream.filter((update) => update.type !== "delta");
    const rest = project(compacted, seen.at(-1)!.id);
    expect(rest[0]!.event.type).toBe("MESSAGES_SNAPSHOT");
    expect(
      rest.filter(({ event }) => event.type === "TEXT_MESSAGE_CONTENT").map(({ event }) => event),
    ).toEqual([{ type: "TEXT_MESSAGE_CONTENT", messageId: "m3", delta: "Hello there" }]);
    expect(storeAfter([...seen, ...rest])).toEqual(storeAfter(whole));
  });

  it("a reply abandoned mid-stream and made again (a new reply id) is dropped, not appended to", () => {
    const remade: SessionStreamUpdate[] = [
      ...stream.slice(0, 6),
      ...streamed(4, "a", PIECES.slice(0, 2)).slice(0, 3), // start + 2 deltas, then the worker died
      ...streamed(4, "b", PIECES, 4),
      message(5, assistant("Hello there")),
      state("idle"),
    ];
    const events = project(remade);
    expect(events.filter(({ event }) => event.type === "MESSAGES_SNAPSHOT")).toHaveLength(2);
    expect(storeAfter(events)).toEqual(storeAfter(project(stream)));
  });

  it("a stored reply longer than the deltas the reader got (some missed) replaces the partial one", () => {
    const missed = [...stream.slice(0, 6), ...streamed(4, "a", PIECES).slice(0, 3), ...stream.slice(-2)];
    const events = project(missed);
    expect(events.filter(({ event }) => event.type === "MESSAGES_SNAPSHOT")).toHaveLength(2);
    expect(storeAfter(events)).toEqual(storeAfter(project(stream)));
  });

  it("a reply that never got its message is dropped at the end of the run", () => {
    const events = project([...stream.slice(0, 6), ...streamed(4, "a", PIECES).slice(0, 3), state("idle")]);
    const end = storeAfter(events);
    expect(end.messages.map((m) => m.content)).toEqual(["earlier", "earlier reply", "hi"]);
    expect(end.streaming).toBeUndefined();
    expect(events.at(-1)!.event.type).toBe("RUN_FINISHED");
  });
});

import { describe, expect, it } from "vitest";
import type { AgentMessage, SessionEntry } from "../../src/index.js";
import { buildSessionContext, entryToMessage } from "../../src/storage/build-context.js";

const TIME = "2026-01-02T03:04:05.678Z";
const MILLIS = Date.parse(TIME);
let next = 0;
/** A path entry: ids in order, each the child of the one before (the builder reads only the order). */
function entry(fields: Record<string, unknown>): SessionEntry {
  next += 1;
  return { id: `e${next}`, parentId: null, timestamp: TIME, ...fields } as unknown as SessionEntry;
}
const user = (text: string) =>
  entry({ type: "message", message: { role: "user", content: text, timestamp: 1 } });
const assistant = (provider: string, model: string) =>
  entry({
    type: "message",
    message: { role: "assistant", content: [], provider, model, api: "a", stopReason: "stop", timestamp: 2 },
  });
const texts = (messages: AgentMessage[]) =>
  messages.map((message) => {
    if (message.role === "user") return message.content;
    if (message.role === "compactionSummary") return `summary:${message.summary}`;
    if (message.role === "branchSummary") return `branch:${message.summary}`;
    if (message.role === "custom") return `custom:${message.customType}`;
    return message.role;
  });

describe("entryToMessage", () => {
  it("passes a message entry's message on as it is", () => {
    const source = user("hi");
    expect(entryToMessage(source)).toBe((source as { message: AgentMessage }).message);
  });

  it("turns a custom message entry into a custom message with the entry's time in milliseconds", () => {
    expect(
      entryToMessage(entry({ type: "custom_message", customType: "note", content: "x", display: false })),
    ).toEqual({ role: "custom", customType: "note", content: "x", display: false, timestamp: MILLIS });
    expect(
      entryToMessage(
        entry({ type: "custom_message", customType: "n", content: "x", display: true, details: { a: 1 } }),
      ),
    ).toMatchObject({ display: true, details: { a: 1 } });
  });

  it("leaves out the details key of a custom message entry without details", () => {
    const message = entryToMessage(
      entry({ type: "custom_message", customType: "n", content: "x", display: true }),
    );
    expect(Object.keys(message!)).not.toContain("details");
  });

  it("turns a branch summary into a branchSummary message, and an empty one into nothing", () => {
    expect(entryToMessage(entry({ type: "branch_summary", fromId: "root", summary: "left" }))).toEqual({
      role: "branchSummary",
      summary: "left",
      fromId: "root",
      timestamp: MILLIS,
    });
    expect(entryToMessage(entry({ type: "branch_summary", fromId: "root", summary: "" }))).toBeUndefined();
  });

  it("dates a message of an unreadable timestamp at 0", () => {
    const message = entryToMessage({
      ...entry({ type: "branch_summary", fromId: "x", summary: "s" }),
      timestamp: "later",
    });
    expect(message?.timestamp).toBe(0);
  });

  it.each(["model_change", "label", "custom", "session_info", "compaction", "thinking_level_change"])(
    "gives no message for a %s entry",
    (type) => {
      expect(entryToMessage(entry({ type, summary: "s", customType: "c" }))).toBeUndefined();
    },
  );
});

describe("buildSessionContext", () => {
  it("starts with no model, thinking off and no active tool list", () => {
    expect(buildSessionContext([])).toEqual({
      messages: [],
      model: null,
      thinkingLevel: "off",
      activeToolNames: null,
    });
  });

  it("keeps the last setting of each kind along the path", () => {
    const context = buildSessionContext([
      entry({ type: "thinking_level_change", thinkingLevel: "low" }),
      entry({ type: "model_change", provider: "p1", modelId: "m1" }),
      entry({ type: "active_tools_change", activeToolNames: ["read"] }),
      entry({ type: "thinking_level_change", thinkingLevel: "high" }),
      entry({ type: "active_tools_change", activeToolNames: ["bash"] }),
    ]);
    expect(context.thinkingLevel).toBe("high");
    expect(context.model).toEqual({ provider: "p1", modelId: "m1" });
    expect(context.activeToolNames).toEqual(["bash"]);
  });

  it("takes the model of the latest assistant reply that names one", () => {
    expect(
      buildSessionContext([
        entry({ type: "model_change", provider: "p1", modelId: "m1" }),
        assistant("p2", "m2"),
      ]).model,
    ).toEqual({ provider: "p2", modelId: "m2" });
    expect(
      buildSessionContext([
        entry({ type: "model_change", provider: "p1", modelId: "m1" }),
        assistant("", "m2"),
      ]).model,
    ).toEqual({ provider: "p1", modelId: "m1" });
    expect(
      buildSessionContext([
        entry({ type: "model_change", provider: "p1", modelId: "m1" }),
        assistant("p2", ""),
      ]).model,
    ).toEqual({ provider: "p1", modelId: "m1" });
    expect(
      buildSessionContext([
        assistant("p2", "m2"),
        entry({ type: "model_change", provider: "p3", modelId: "m3" }),
      ]).model,
    ).toEqual({
      provider: "p3",
      modelId: "m3",
    });
  });

  it("reads no model from a user message", () => {
    const odd = entry({
      type: "message",
      message: { role: "user", content: "x", provider: "p", model: "m", timestamp: 1 },
    });
    expect(buildSessionContext([odd]).model).toBeNull();
  });

  it("lists the messages of a path without compaction in order", () => {
    const context = buildSessionContext([
      user("a"),
      entry({ type: "label", targetId: "x", label: "l" }),
      entry({ type: "custom_message", customType: "c", content: "x", display: true }),
      user("b"),
    ]);
    expect(texts(context.messages)).toEqual(["a", "custom:c", "b"]);
  });

  it("starts at the latest compaction: its summary, the kept entries, then what follows", () => {
    const a = user("a");
    const b = user("b");
    const c = user("c");
    const d = user("d");
    const context = buildSessionContext([
      a,
      entry({ type: "compaction", summary: "one", firstKeptEntryId: a.id, tokensBefore: 5 }),
      b,
      c,
      entry({ type: "compaction", summary: "two", firstKeptEntryId: c.id, tokensBefore: 7 }),
      d,
    ]);
    expect(texts(context.messages)).toEqual(["summary:two", "c", "d"]);
    expect(context.messages[0]).toEqual({
      role: "compactionSummary",
      summary: "two",
      tokensBefore: 7,
      timestamp: MILLIS,
    });
  });

  it("keeps the first kept entry when it is the path's root", () => {
    const a = user("a");
    const context = buildSessionContext([
      a,
      user("b"),
      entry({ type: "compaction", summary: "s", firstKeptEntryId: a.id, tokensBefore: 1 }),
    ]);
    expect(texts(context.messages)).toEqual(["summary:s", "a", "b"]);
  });

  it("keeps no entry before the compaction when its first kept entry is not on the path", () => {
    const context = buildSessionContext([
      user("a"),
      entry({ type: "compaction", summary: "s", firstKeptEntryId: "elsewhere", tokensBefore: 1 }),
      user("b"),
    ]);
    expect(texts(context.messages)).toEqual(["summary:s", "b"]);
  });

  it("keeps settings recorded before a compaction", () => {
    const a = user("a");
    const context = buildSessionContext([
      entry({ type: "thinking_level_change", thinkingLevel: "medium" }),
      a,
      entry({ type: "compaction", summary: "s", firstKeptEntryId: a.id, tokensBefore: 1 }),
    ]);
    expect(context.thinkingLevel).toBe("medium");
  });
});

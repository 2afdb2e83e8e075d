import { describe, expect, it } from "vitest";
import type { HarnessEvent } from "../../src/harness/hooks.js";
import {
  createHarness,
  replyText,
  requestUserTexts,
  roles,
  sessionMessages,
  standInCompaction,
  summariserTurn,
  testModel,
  texts,
} from "../support/harness-support.js";

const ofType = <T extends HarnessEvent["type"]>(events: HarnessEvent[], type: T) =>
  events.filter((event): event is Extract<HarnessEvent, { type: T }> => event.type === type);

describe("manual compaction", () => {
  it("summarises the branch, appends the compaction and reloads the transcript from the session", async () => {
    const port = standInCompaction();
    const { harness, model, session, events } = await createHarness(
      [{ text: "a1" }, { text: "a2" }, summariserTurn("SUMMARY"), { text: "a3" }],
      { compactionPort: port },
    );
    await harness.prompt("q1");
    await harness.prompt("q2");
    const phases: string[] = [];
    harness.phase$.subscribe((phase) => phases.push(phase));
    const result = await harness.compact("keep names");
    expect(phases).toEqual(["idle", "compaction", "idle"]);
    expect(result).toMatchObject({ compacted: true, summary: "SUMMARY", details: { standIn: true } });
    expect(requestUserTexts(model.calls[2]!.context)[0]).toContain("(keep names)");
    expect(texts(harness.messages)).toEqual(["SUMMARY", "q2", "a2"]);
    expect(harness.messages).toEqual(sessionMessages(session));
    expect(ofType(events, "session_compact")[0]).toMatchObject({ fromHook: false, reason: "manual" });
    await harness.prompt("q3");
    expect(roles(model.calls[3]!.context.messages)).toEqual(["user", "user", "assistant", "user"]);
    expect(requestUserTexts(model.calls[3]!.context)[0]).toContain("<summary>\nSUMMARY\n</summary>");
  });

  it("resolves nothing_to_compact on a conversation too short to summarise, writing and emitting nothing", async () => {
    // The default compaction port, as in the README: a short conversation fits in keepRecentTokens.
    const { harness, session, events } = await createHarness([{ text: "a" }]);
    const phases: string[] = [];
    harness.phase$.subscribe((phase) => phases.push(phase));
    expect(await harness.compact()).toEqual({ compacted: false, reason: "nothing_to_compact" });
    await harness.prompt("q");
    expect(await harness.compact("keep names")).toEqual({ compacted: false, reason: "nothing_to_compact" });
    expect(phases).toEqual(["idle", "compaction", "idle", "turn", "idle", "compaction", "idle"]);
    expect(session.getBranch().map((entry) => entry.type)).toEqual(["message", "message"]);
    expect(ofType(events, "session_compact")).toEqual([]);
    expect(texts(harness.messages)).toEqual(["q", "a"]);
  });

  it("fails with a compaction error when a hook cancels it", async () => {
    const { harness } = await createHarness([{ text: "a" }], { compactionPort: standInCompaction() });
    await harness.prompt("q");
    harness.on("session_before_compact", () => ({ cancel: true }));
    await expect(harness.compact()).rejects.toMatchObject({
      code: "compaction",
      message: "Compaction cancelled",
    });
    expect(harness.phase).toBe("idle");
  });

  it("session_before_compact may supply the compaction; the summariser is then not asked", async () => {
    const port = standInCompaction();
    const { harness, session, events } = await createHarness([{ text: "a" }], { compactionPort: port });
    await harness.prompt("q");
    const first = session.getBranch()[0]!.id;
    harness.on("session_before_compact", (event) => {
      expect(event.branchEntries).toHaveLength(2);
      expect(event.reason).toBe("manual");
      return { compaction: { summary: "from hook", firstKeptEntryId: first, tokensBefore: 7 } };
    });
    expect(await harness.compact()).toMatchObject({ compacted: true, summary: "from hook" });
    expect(port.calls).toEqual(["prepareCompaction"]);
    expect(ofType(events, "session_compact")[0]?.fromHook).toBe(true);
  });

  it("a hook that throws fails compact() with a hook error", async () => {
    const { harness } = await createHarness([{ text: "a" }], { compactionPort: standInCompaction() });
    await harness.prompt("q");
    harness.on("session_before_compact", () => {
      throw new Error("no");
    });
    await expect(harness.compact()).rejects.toMatchObject({ code: "hook" });
  });

  it("abort during compaction rejects compact() and leaves the session untouched", async () => {
    const { harness, session } = await createHarness([{ text: "a" }, { hang: true, text: "…" }], {
      compactionPort: standInCompaction(),
    });
    await harness.prompt("q");
    const before = session.getEntries().length;
    const compacting = harness.compact();
    const phaseSeen = new Promise<void>((resolve) =>
      harness.phase$.subscribe((phase) => phase === "compaction" && resolve()),
    );
    await phaseSeen;
    await harness.abort();
    await expect(compacting).rejects.toMatchObject({ code: "compaction", message: "Compaction was aborted" });
    expect(session.getEntries()).toHaveLength(before);
  });
});

describe("automatic compaction", () => {
  it("compacts after a turn when the context passes window − reserve", async () => {
    const port = standInCompaction();
    const { harness, events } = await createHarness([{ text: "x".repeat(400) }, summariserTurn("AUTO")], {
      compactionPort: port,
      model: { ...testModel, contextWindow: 200 },
      compaction: { reserveTokens: 100 },
    });
    const phases: string[] = [];
    harness.phase$.subscribe((phase) => phases.push(phase));
    const { reply } = await harness.prompt("q");
    expect(reply.content[0]).toMatchObject({ type: "text" });
    expect(phases).toEqual(["idle", "turn", "compaction", "idle"]);
    expect(ofType(events, "session_compact")[0]?.reason).toBe("threshold");
    expect(roles(harness.messages)[0]).toBe("compactionSummary");
  });

  it("does not compact when disabled", async () => {
    const port = standInCompaction();
    const { harness } = await createHarness([{ text: "x".repeat(400) }], {
      compactionPort: port,
      model: { ...testModel, contextWindow: 200 },
      compaction: { enabled: false, reserveTokens: 100 },
    });
    await harness.prompt("q");
    expect(port.calls).toEqual([]);
  });

  it("stays quiet when the window is below the reserve but there is nothing to summarise yet", async () => {
    const { harness, session, events } = await createHarness([{ text: "short" }, { text: "again" }], {
      model: { ...testModel, contextWindow: 1_000 }, // smaller than the default 16,384-token reserve
    });
    await harness.prompt("q1");
    await harness.prompt("q2");
    expect(ofType(events, "compaction_failed")).toEqual([]);
    expect(session.getEntries().some((entry) => entry.type === "compaction")).toBe(false);
  });

  it("a failed automatic compaction is reported and the prompt still resolves", async () => {
    const { harness, events } = await createHarness(
      [{ text: "x".repeat(400) }, { error: "summariser down" }],
      {
        compactionPort: standInCompaction(),
        model: { ...testModel, contextWindow: 200 },
        compaction: { reserveTokens: 100 },
      },
    );
    const { reply } = await harness.prompt("q");
    expect(replyText(reply)).toHaveLength(400);
    expect(ofType(events, "compaction_failed")[0]).toMatchObject({ reason: "threshold" });
    expect(harness.phase).toBe("idle");
  });

  it("on a context overflow: compacts, then retries the turn once", async () => {
    const { harness, model, session, events } = await createHarness(
      [
        { text: "a1" },
        { error: "This model's maximum context length is 8192 tokens" },
        summariserTurn("OVERFLOW SUMMARY"),
        { text: "fits now" },
      ],
      { compactionPort: standInCompaction() },
    );
    await harness.prompt("q1");
    const phases: string[] = [];
    harness.phase$.subscribe((phase) => phases.push(phase));
    const { reply } = await harness.prompt("q2");
    expect(replyText(reply)).toBe("fits now");
    expect(phases).toEqual(["idle", "turn", "compaction", "turn", "idle"]);
    expect(ofType(events, "session_compact")[0]?.reason).toBe("overflow");
    expect(roles(model.calls[3]!.context.messages)).toEqual(["user", "user"]);
    expect(requestUserTexts(model.calls[3]!.context)[1]).toBe("q2");
    expect(roles(sessionMessages(session))).toEqual(["compactionSummary", "user", "assistant", "assistant"]);
  });

  it("a second overflow after the retry is returned, not compacted again", async () => {
    const overflow = { error: "context window exceeded" };
    const { harness, model } = await createHarness(
      [overflow, summariserTurn("S"), overflow, { text: "unused" }],
      { compactionPort: standInCompaction() },
    );
    const { reply } = await harness.prompt("q");
    expect(reply.errorMessage).toBe("context window exceeded");
    expect(model.calls).toHaveLength(3);
  });
});

describe("tree navigation", () => {
  it("moves to another entry, summarising the branch left; a user target returns its text", async () => {
    const port = standInCompaction();
    const { harness, session, events } = await createHarness(
      [{ text: "a1" }, { text: "a2" }, summariserTurn("BRANCH"), { text: "a3" }],
      { compactionPort: port },
    );
    await harness.prompt("q1");
    await harness.prompt("q2");
    const q2 = session.getBranch()[2]!;
    const phases: string[] = [];
    harness.phase$.subscribe((phase) => phases.push(phase));
    const result = await harness.navigateTree(q2.id, { summarize: true, label: "explored" });
    expect(phases).toEqual(["idle", "branchSummary", "idle"]);
    expect(result.cancelled).toBe(false);
    expect(result.editorText).toBe("q2");
    expect(result.summaryEntry?.summary).toBe("BRANCH");
    expect(session.getLabel(result.summaryEntry!.id)).toBe("explored");
    expect(texts(harness.messages)).toEqual(["q1", "a1", "BRANCH"]);
    expect(ofType(events, "session_tree")[0]).toMatchObject({
      fromHook: false,
      newLeafId: result.summaryEntry!.id,
    });
    await harness.prompt("q2b");
    expect(texts(sessionMessages(session))).toEqual(["q1", "a1", "BRANCH", "q2b", "a3"]);
  });

  it("session_before_tree can cancel or supply the summary; unknown targets are invalid_argument", async () => {
    const { harness, session } = await createHarness([{ text: "a1" }, { text: "a2" }], {
      compactionPort: standInCompaction(),
    });
    await harness.prompt("q1");
    await harness.prompt("q2");
    const a1 = session.getBranch()[1]!;
    await expect(harness.navigateTree("missing")).rejects.toMatchObject({ code: "invalid_argument" });
    const off = harness.on("session_before_tree", () => ({ cancel: true }));
    expect(await harness.navigateTree(a1.id, { summarize: true })).toEqual({ cancelled: true });
    off();
    harness.on("session_before_tree", (event) => {
      expect(event.preparation).toMatchObject({ targetId: a1.id, userWantsSummary: true });
      expect(event.preparation.entriesToSummarize).toHaveLength(2);
      return { summary: { summary: "hook summary" } };
    });
    const result = await harness.navigateTree(a1.id, { summarize: true });
    expect(result.summaryEntry?.summary).toBe("hook summary");
    expect(texts(harness.messages)).toEqual(["q1", "a1", "hook summary"]);
  });

  it("navigates without summary and without a port", async () => {
    const { harness, session } = await createHarness([{ text: "a1" }, { text: "a2" }]);
    await harness.prompt("q1");
    await harness.prompt("q2");
    const a1 = session.getBranch()[1]!;
    const result = await harness.navigateTree(a1.id);
    expect(result).toEqual({ cancelled: false });
    expect(texts(harness.messages)).toEqual(["q1", "a1"]);
    await expect(harness.navigateTree(a1.id)).resolves.toEqual({ cancelled: false });
  });
});

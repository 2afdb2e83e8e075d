import { describe, expect, it } from "vitest";
import {
  BRANCH_SUMMARY_PREFIX,
  collectEntriesForBranchSummary,
  generateBranchSummary,
  isCompactionError,
  prepareBranchSummary,
} from "../../../src/harness/compaction/index.js";
import { MemorySessionRepo } from "../../../src/index.js";
import { scriptedModel } from "../../../src/testing.js";
import {
  assistant,
  markersIn,
  pathOf,
  requestText,
  summariser,
  summaryModel,
  toolResult,
  user,
} from "../../support/compaction.js";

/** root → a1 → a2, then a branch b1 → b2 → b3 from a2 that is left for a sibling c1 of b1. */
async function branchedSession() {
  const session = await new MemorySessionRepo().create();
  const a1 = await session.appendMessage(user("MARK-a1"));
  const a2 = await session.appendMessage(assistant("MARK-a2"));
  const b1 = await session.appendMessage(user("MARK-b1"));
  await session.appendMessage(
    assistant("MARK-b2", { toolCalls: [{ id: "c1", name: "write", arguments: { path: "notes.md" } }] }),
  );
  await session.appendMessage(toolResult("c1", "MARK-result", "write"));
  await session.appendModelChange("p", "m2");
  const b3 = await session.appendMessage(assistant("MARK-b3"));
  await session.moveTo(a2.id);
  const c1 = await session.appendMessage(user("MARK-c1"));
  return { session, a1, a2, b1, b3, c1 };
}

describe("collectEntriesForBranchSummary", () => {
  it("collects the abandoned side after the common ancestor, oldest first", async () => {
    const { session, a2, b1, b3, c1 } = await branchedSession();
    const collected = collectEntriesForBranchSummary(session, b3.id, c1.id);
    expect(collected.commonAncestorId).toBe(a2.id);
    expect(collected.entries[0]).toBe(b1);
    expect(collected.entries.map((entry) => entry.type)).toEqual([
      "message",
      "message",
      "message",
      "model_change",
      "message",
    ]);
    expect(collected.entries.at(-1)).toBe(b3);
  });

  it("collects nothing without an old leaf or when the target is ahead on the same path", async () => {
    const { session, a1, a2, b1, b3 } = await branchedSession();
    expect(collectEntriesForBranchSummary(session, null, a1.id)).toEqual({
      entries: [],
      commonAncestorId: null,
    });
    expect(collectEntriesForBranchSummary(session, a1.id, b3.id)).toEqual({
      entries: [],
      commonAncestorId: a1.id,
    });
    // Moving back to an ancestor leaves everything after it behind.
    expect(collectEntriesForBranchSummary(session, b1.id, a1.id).entries.map((e) => e.id)).toEqual([
      a2.id,
      b1.id,
    ]);
    // Moving before the root leaves the whole path.
    expect(collectEntriesForBranchSummary(session, a2.id, null)).toEqual({
      entries: [a1, a2],
      commonAncestorId: null,
    });
  });
});

describe("prepareBranchSummary", () => {
  it("keeps the newest messages within the budget and leaves tool results out", () => {
    const entries = pathOf([
      user("x".repeat(400)), // 100 tokens: over the budget
      assistant("", { toolCalls: [{ id: "c1", name: "read", arguments: { path: "a.ts" } }] }),
      toolResult("c1", "y".repeat(4000)),
      user("z".repeat(200)), // 50 tokens
    ]);
    const prepared = prepareBranchSummary(entries, 100);
    expect(prepared.messages.map((m) => m.role)).toEqual(["assistant", "user"]);
    expect(prepared.fileOps).toEqual({ readFiles: ["a.ts"], modifiedFiles: [] });
    expect(prepared.totalTokens).toBeLessThanOrEqual(100);
  });

  it("still takes an earlier summary while under 90 % of the budget, and merges its files", () => {
    const entries = pathOf([
      user("old"),
      {
        type: "branch_summary",
        fromId: "root",
        summary: "s".repeat(200), // 50 tokens
        details: { readFiles: ["r.ts"], modifiedFiles: ["m.ts"] },
      },
      { type: "compaction", summary: "c".repeat(40), firstKeptEntryId: "e1", tokensBefore: 5 },
      user("u".repeat(340)), // 85 tokens
    ]);
    const prepared = prepareBranchSummary(entries, 100);
    expect(prepared.messages.map((m) => m.role)).toEqual(["compactionSummary", "user"]);
    expect(prepared.fileOps).toEqual({ readFiles: ["r.ts"], modifiedFiles: ["m.ts"] });
    // 95 of 110 is under 90 %: the branch summary is taken although it overflows the budget.
    const roomy = prepareBranchSummary(entries, 110);
    expect(roomy.messages.map((m) => m.role)).toEqual(["branchSummary", "compactionSummary", "user"]);
  });
});

describe("generateBranchSummary", () => {
  it("summarises the abandoned branch with the branch prompt and appends its files", async () => {
    const { session, b3, c1 } = await branchedSession();
    const { entries } = collectEntriesForBranchSummary(session, b3.id, c1.id);
    const streamFn = scriptedModel([summariser("branch")]);
    const result = await generateBranchSummary(entries, {
      model: summaryModel,
      streamFn,
      customInstructions: "what was written",
    });
    const sent = requestText(streamFn.calls[0]!.context);
    expect(markersIn(sent)).toEqual(["MARK-b1", "MARK-b2", "MARK-b3"]); // the tool result is left out
    expect(sent).toContain("explored and then left");
    expect(streamFn.calls[0]!.options.maxTokens).toBe(2048);
    expect(result).toEqual({
      summary: `${BRANCH_SUMMARY_PREFIX}## Goal\nbranch of MARK-b1 MARK-b2 MARK-b3\nfocus: what was written\n\n<modified-files>\nnotes.md\n</modified-files>`,
      details: { readFiles: [], modifiedFiles: ["notes.md"] },
      usage: expect.objectContaining({ input: 100 }),
    });

    const moved = await session.moveTo(c1.id, { summary: result.summary, details: result.details });
    expect(session.buildContext().messages.at(-1)).toMatchObject({ role: "branchSummary", fromId: c1.id });
    expect(moved?.details).toEqual(result.details);
  });

  it("replaces the prompt with custom instructions when asked", async () => {
    const streamFn = scriptedModel([{ text: "short" }]);
    await generateBranchSummary(pathOf([user("q")]), {
      model: summaryModel,
      streamFn,
      customInstructions: "One sentence only.",
      replaceInstructions: true,
    });
    const sent = requestText(streamFn.calls[0]!.context);
    expect(sent.endsWith("</conversation>\n\nOne sentence only.")).toBe(true);
    expect(sent).not.toContain("Additional focus");
  });

  it("rejects a branch without messages, and reports failures", async () => {
    const streamFn = scriptedModel([{ error: "down" }]);
    const empty = await generateBranchSummary(pathOf([{ type: "label", targetId: "x", label: "l" }]), {
      model: summaryModel,
      streamFn,
    }).catch((e: unknown) => e);
    expect(isCompactionError(empty, "nothing_to_compact")).toBe(true);
    const failed = await generateBranchSummary(pathOf([user("q")]), { model: summaryModel, streamFn }).catch(
      (e: unknown) => e,
    );
    expect(isCompactionError(failed, "summarization_failed")).toBe(true);
    const controller = new AbortController();
    controller.abort();
    const aborted = await generateBranchSummary(pathOf([user("q")]), {
      model: summaryModel,
      streamFn,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(isCompactionError(aborted, "aborted")).toBe(true);
  });
});

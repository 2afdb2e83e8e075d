import { describe, expect, it } from "vitest";
import { DEFAULT_COMPACTION_SETTINGS, prepareCompaction } from "../../../src/harness/compaction/index.js";
import { assistant, pathOf, toolResult, user } from "../../support/compaction.js";

const words = (n: number) => "w".repeat(n * 4);
const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 150 };

function roles(messages: { role: string }[]): string[] {
  return messages.map((message) => message.role);
}

describe("prepareCompaction", () => {
  it("finds nothing to compact in an empty path, a path ending in a compaction, or a short one", () => {
    expect(prepareCompaction([], settings)).toBeUndefined();
    const entries = pathOf([
      user(words(100)),
      assistant(words(100)),
      { type: "compaction", summary: "S", firstKeptEntryId: "e2", tokensBefore: 200 },
    ]);
    expect(prepareCompaction(entries, settings)).toBeUndefined();
    expect(prepareCompaction(pathOf([user("hi"), assistant("hello")]), settings)).toBeUndefined();
  });

  it("summarises the messages before the cut and estimates the whole context", () => {
    const entries = pathOf([
      user(words(100)),
      assistant(words(100)),
      user(words(100)),
      assistant(words(100)),
    ]);
    const preparation = prepareCompaction(entries, settings)!;
    expect(preparation).toMatchObject({
      firstKeptEntryId: "e3",
      isSplitTurn: false,
      turnPrefixMessages: [],
      tokensBefore: 400,
      settings,
    });
    expect(preparation.previousSummary).toBeUndefined();
    expect(roles(preparation.messagesToSummarize)).toEqual(["user", "assistant"]);
  });

  it("uses the latest compaction's summary and starts from what it kept", () => {
    const entries = pathOf([
      user(words(100)), // e1: summarised by the first compaction
      assistant(words(100)),
      user(words(100)), // e3: kept by it
      assistant(words(100), { usage: 350 }), // usage measured before the compaction: not trusted
      { type: "compaction", summary: "first summary", firstKeptEntryId: "e3", tokensBefore: 400 },
      user(words(100)),
      assistant(words(100)),
      user(words(100)),
      assistant(words(100)),
    ]);
    const preparation = prepareCompaction(entries, settings)!;
    expect(preparation.previousSummary).toBe("first summary");
    expect(preparation.firstKeptEntryId).toBe("e8");
    expect(roles(preparation.messagesToSummarize)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(preparation.messagesToSummarize[0]).toBe((entries[2] as { message: unknown }).message);
    // summary (4 tokens) + 6 messages of 100, all estimated.
    expect(preparation.tokensBefore).toBe(604);
  });

  it("collects a split turn's prefix and merges file operations with the previous compaction", () => {
    const entries = pathOf([
      user(words(10)),
      assistant("", { toolCalls: [{ id: "c0", name: "edit", arguments: { path: "old-edit.ts" } }] }),
      toolResult("c0", "ok", "edit"),
      {
        type: "compaction",
        summary: "S",
        firstKeptEntryId: "e4",
        tokensBefore: 1,
        details: {
          readFiles: ["prev-read.ts", "now-written.ts"],
          modifiedFiles: ["prev-mod.ts"],
        },
      },
      user(words(10)), // e5: summarised
      assistant("", { toolCalls: [{ id: "c1", name: "read", arguments: { path: "a.ts" } }] }),
      toolResult("c1", words(10)),
      user(words(10)), // e8: start of the split turn
      assistant("", {
        toolCalls: [
          { id: "c2", name: "read", arguments: { path: "b.ts" } },
          { id: "c3", name: "write", arguments: { path: "now-written.ts" } },
          { id: "c4", name: "bash", arguments: { command: "ls" } },
        ],
      }),
      toolResult("c2", words(200)),
      toolResult("c3", "ok", "write"),
      toolResult("c4", "x", "bash"),
      assistant("", { toolCalls: [{ id: "c5", name: "edit", arguments: { path: "kept.ts" } }] }), // e13: cut
      toolResult("c5", words(100), "edit"),
      assistant(words(50)),
    ]);
    const preparation = prepareCompaction(entries, { ...settings, keepRecentTokens: 155 })!;
    expect(preparation.isSplitTurn).toBe(true);
    expect(preparation.firstKeptEntryId).toBe("e13");
    expect(roles(preparation.messagesToSummarize)).toEqual(["user", "assistant", "toolResult"]);
    expect(roles(preparation.turnPrefixMessages)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "toolResult",
    ]);
    expect(preparation.fileOps).toEqual({
      readFiles: ["a.ts", "b.ts", "prev-read.ts"],
      modifiedFiles: ["now-written.ts", "prev-mod.ts"],
    });
  });

  it("summarises branch_summary and custom_message entries as branchSummary and custom messages", () => {
    const entries = pathOf([
      { type: "branch_summary", fromId: "root", summary: "explored X" },
      { type: "custom_message", customType: "note", content: "remember Y", display: false },
      { type: "model_change", provider: "p", modelId: "m" },
      user(words(100)),
      assistant(words(100)),
      user(words(100)),
      assistant(words(100)),
    ]);
    const preparation = prepareCompaction(entries, settings)!;
    expect(preparation.messagesToSummarize.slice(0, 2)).toMatchObject([
      { role: "branchSummary", summary: "explored X", fromId: "root" },
      { role: "custom", customType: "note", content: "remember Y", display: false },
    ]);
    expect(preparation.firstKeptEntryId).toBe("e6");
  });
});

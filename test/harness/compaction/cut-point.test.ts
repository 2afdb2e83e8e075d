import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findCutPoint } from "../../../src/harness/compaction/index.js";
import type { AgentMessage, SessionEntry } from "../../../src/index.js";
import { assistant, pathOf, toolResult, user } from "../../support/compaction.js";

const words = (n: number) => "w".repeat(n * 4); // n tokens

function roleAt(entries: SessionEntry[], index: number): string {
  const entry = entries[index]!;
  return entry.type === "message" ? entry.message.role : entry.type;
}

describe("findCutPoint", () => {
  it("lands on a user message of a 10-turn conversation and keeps about keepRecentTokens", () => {
    const drafts: AgentMessage[] = [];
    for (let turn = 0; turn < 10; turn++) drafts.push(user(words(100)), assistant(words(100)));
    const entries = pathOf(drafts);
    const cut = findCutPoint(entries, 0, entries.length, 550);
    expect(roleAt(entries, cut.firstKeptEntryIndex)).toBe("user");
    expect(cut).toEqual({ firstKeptEntryIndex: 14, turnStartIndex: -1, isSplitTurn: false });
    // 500 tokens are reached at an answer: that turn is split at its start.
    expect(findCutPoint(entries, 0, entries.length, 500)).toEqual({
      firstKeptEntryIndex: 15,
      turnStartIndex: 14,
      isSplitTurn: true,
    });
  });

  it("keeps the whole range when it has no message", () => {
    const entries = pathOf([{ type: "model_change", provider: "p", modelId: "m" }]);
    expect(findCutPoint(entries, 0, entries.length, 10)).toEqual({
      firstKeptEntryIndex: 0,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
    expect(findCutPoint([], 0, 0, 10).firstKeptEntryIndex).toBe(0);
  });

  it("splits a turn when the cut lands on an assistant reply, and finds the turn's user message", () => {
    const entries = pathOf([
      user(words(10)),
      assistant(words(10)),
      user(words(10)), // 2: turn start
      assistant("", { toolCalls: [{ id: "c1", name: "read", arguments: { path: "a" } }] }),
      toolResult("c1", words(300)),
      assistant("", { toolCalls: [{ id: "c2", name: "read", arguments: { path: "b" } }] }), // 5
      toolResult("c2", words(300)),
      assistant(words(10)),
    ]);
    const cut = findCutPoint(entries, 0, entries.length, 400);
    expect(cut).toEqual({ firstKeptEntryIndex: 5, turnStartIndex: 2, isSplitTurn: true });
  });

  it("treats branch_summary and custom_message entries as turn starts", () => {
    for (const start of [
      { type: "branch_summary" as const, fromId: "root", summary: words(5) },
      { type: "custom_message" as const, customType: "note", content: words(5), display: true },
    ]) {
      const entries = pathOf([user(words(50)), start, assistant(words(50)), assistant(words(50))]);
      const cut = findCutPoint(entries, 0, entries.length, 60);
      expect(cut).toEqual({ firstKeptEntryIndex: 2, turnStartIndex: 1, isSplitTurn: true });
      // Cutting at the entry itself is not a split.
      expect(findCutPoint(entries, 1, entries.length, 200)).toMatchObject({
        firstKeptEntryIndex: 1,
        isSplitTurn: false,
      });
    }
  });

  it("never cuts at a tool result, even a lone one", () => {
    const lone = pathOf([toolResult("x", words(100))]);
    expect(findCutPoint(lone, 0, 1, 10)).toEqual({
      firstKeptEntryIndex: 0,
      turnStartIndex: -1,
      isSplitTurn: false,
    });

    const entries = pathOf([
      user(words(10)),
      assistant("", { toolCalls: [{ id: "c1", name: "read", arguments: {} }] }),
      toolResult("c1", words(10)),
      toolResult("c1", words(10)),
    ]);
    const cut = findCutPoint(entries, 0, entries.length, 15);
    expect(roleAt(entries, cut.firstKeptEntryIndex)).toBe("assistant");
  });

  it("keeps the last call with its results when they alone exceed keepRecentTokens", () => {
    const entries = pathOf([
      user(words(50)),
      assistant(words(50)),
      user(words(50)),
      assistant("", { toolCalls: [{ id: "c1", name: "read", arguments: {} }] }),
      toolResult("c1", words(5000)),
    ]);
    const cut = findCutPoint(entries, 0, entries.length, 1000);
    expect(cut).toEqual({ firstKeptEntryIndex: 3, turnStartIndex: 2, isSplitTurn: true });
  });

  it("keeps settings entries just before the cut with it, but never crosses a compaction", () => {
    const entries = pathOf([
      user(words(100)),
      assistant(words(100)),
      { type: "model_change", provider: "p", modelId: "m2" },
      { type: "thinking_level_change", thinkingLevel: "high" },
      user(words(100)),
      assistant(words(100)),
    ]);
    expect(findCutPoint(entries, 0, entries.length, 150)).toMatchObject({
      firstKeptEntryIndex: 2,
      isSplitTurn: false,
    });

    const afterCompaction = pathOf([
      user(words(100)),
      { type: "compaction", summary: "s", firstKeptEntryId: "e1", tokensBefore: 1 },
      { type: "label", targetId: "e1", label: "x" },
      user(words(100)),
      assistant(words(100)),
    ]);
    expect(findCutPoint(afterCompaction, 0, afterCompaction.length, 150).firstKeptEntryIndex).toBe(2);
  });

  it("never separates a tool call from its result (property)", () => {
    // A random conversation: turns of a user message, then rounds of tool calls and results, then an answer.
    const turn = fc.record({
      prompt: fc.integer({ min: 1, max: 400 }),
      rounds: fc.array(
        fc.record({ calls: fc.integer({ min: 1, max: 3 }), size: fc.integer({ min: 1, max: 800 }) }),
        { maxLength: 4 },
      ),
      answer: fc.integer({ min: 0, max: 300 }),
      settings: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(turn, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 4000 }),
        (turns, keep) => {
          const drafts: Parameters<typeof pathOf>[0] = [];
          let callId = 0;
          for (const t of turns) {
            drafts.push(user(words(t.prompt)));
            for (const round of t.rounds) {
              const ids = Array.from({ length: round.calls }, () => `c${++callId}`);
              drafts.push(
                assistant("", { toolCalls: ids.map((id) => ({ id, name: "read", arguments: {} })) }),
              );
              if (t.settings) drafts.push({ type: "model_change", provider: "p", modelId: "m" });
              for (const id of ids) drafts.push(toolResult(id, words(round.size)));
            }
            if (t.answer > 0) drafts.push(assistant(words(t.answer)));
          }
          const entries = pathOf(drafts);
          const cut = findCutPoint(entries, 0, entries.length, keep);
          const first = cut.firstKeptEntryIndex;

          const side = new Map<string, "summarised" | "kept">();
          entries.forEach((entry, index) => {
            if (entry.type !== "message") return;
            const where = index < first ? "summarised" : "kept";
            const message = entry.message;
            if (message.role === "assistant") {
              for (const block of message.content) if (block.type === "toolCall") side.set(block.id, where);
            } else if (message.role === "toolResult") {
              expect(side.get(message.toolCallId)).toBe(where);
            }
          });
          expect(roleAt(entries, first)).not.toBe("toolResult");
          if (cut.isSplitTurn) {
            expect(roleAt(entries, cut.turnStartIndex)).toBe("user");
            expect(cut.turnStartIndex).toBeLessThan(first);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

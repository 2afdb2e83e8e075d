import { describe, expect, it } from "vitest";
import {
  type CompactionPreparation,
  compact,
  DEFAULT_COMPACTION_SETTINGS,
  estimateContextTokens,
  isCompactionError,
  prepareCompaction,
  SPLIT_TURN_SEPARATOR,
  shouldCompact,
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

const words = (marker: string, n: number) => `${marker} ${"w".repeat(n * 4)}`;
const settings = { ...DEFAULT_COMPACTION_SETTINGS, reserveTokens: 10_000, keepRecentTokens: 150 };

/** A conversation whose messages carry markers, with a read and an edit before the cut. */
function conversation() {
  return pathOf([
    user(words("MARK-u1", 100)),
    assistant("", { toolCalls: [{ id: "c1", name: "read", arguments: { path: "src/a.ts" } }] }),
    toolResult("c1", words("MARK-r1", 50)),
    assistant("", { toolCalls: [{ id: "c2", name: "edit", arguments: { path: "src/b.ts" } }] }),
    toolResult("c2", "edited", "edit"),
    assistant(words("MARK-a1", 50)),
    user(words("MARK-u2", 100)), // e7: kept
    assistant(words("MARK-a2", 100)),
  ]);
}

async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isCompactionError(error)) throw new Error(`expected a CompactionError, got ${String(error)}`);
  return error;
}

describe("compact", () => {
  it("summarises exactly the messages before the cut and returns a full result", async () => {
    const preparation = prepareCompaction(conversation(), settings)!;
    const streamFn = scriptedModel([summariser()]);
    const result = await compact(preparation, { model: summaryModel, streamFn });

    expect(streamFn.calls).toHaveLength(1);
    // The summariser names what it received: the summarised markers, none of the kept ones.
    expect(markersIn(requestText(streamFn.calls[0]!.context))).toEqual(["MARK-u1", "MARK-r1", "MARK-a1"]);
    expect(result).toEqual({
      summary:
        "## Goal\nsummary of MARK-u1 MARK-r1 MARK-a1" +
        "\n\n<read-files>\nsrc/a.ts\n</read-files>\n\n<modified-files>\nsrc/b.ts\n</modified-files>",
      firstKeptEntryId: "e7",
      tokensBefore: preparation.tokensBefore,
      details: { readFiles: ["src/a.ts"], modifiedFiles: ["src/b.ts"] },
      usage: expect.objectContaining({ input: 100, output: 20 }),
    });
    expect(streamFn.calls[0]!.options.maxTokens).toBe(8000);
  });

  it("updates the previous summary (without its old file lists) and adds the focus", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create();
    for (const entry of conversation()) {
      if (entry.type === "message") await session.appendMessage(entry.message);
    }
    const first = await compact(prepareCompaction(session.getBranch(), settings)!, {
      model: summaryModel,
      streamFn: scriptedModel([summariser("first")]),
    });
    await session.appendCompaction(first);
    await session.appendMessage(user(words("MARK-u3", 100)));
    await session.appendMessage(assistant(words("MARK-a3", 100), { usage: 190_000 }));

    const preparation = prepareCompaction(session.getBranch(), settings)!;
    expect(preparation.previousSummary).toBe(first.summary);
    const streamFn = scriptedModel([summariser("second")]);
    const second = await compact(preparation, {
      model: summaryModel,
      streamFn,
      customInstructions: "the parser",
    });
    const sent = requestText(streamFn.calls[0]!.context);
    expect(sent).toContain(
      "<previous-summary>\n## Goal\nfirst of MARK-u1 MARK-r1 MARK-a1\n</previous-summary>",
    );
    expect(second.summary).toBe(
      "## Goal\nsecond of MARK-u2 MARK-a2\nupdated from MARK-u1 MARK-r1 MARK-a1\nfocus: the parser" +
        "\n\n<read-files>\nsrc/a.ts\n</read-files>\n\n<modified-files>\nsrc/b.ts\n</modified-files>",
    );
    await session.appendCompaction(second);
    const context = session.buildContext();
    expect(context.messages.map((m) => m.role)).toEqual(["compactionSummary", "user", "assistant"]);
    expect(context.messages[0]).toMatchObject({ summary: second.summary });

    // Right after the compaction the estimate no longer counts pre-compaction usage (pi#9337).
    // The kept reply reported 190,000 tokens for the context before the compaction.
    const estimate = estimateContextTokens(context.messages);
    expect(estimate.usageTokens).toBe(0);
    expect(estimate.tokens).toBeLessThan(500);
    expect(shouldCompact(estimate.tokens, 200_000, settings)).toBe(false);
  });

  it("summarises a split turn's beginning separately, after the history, and joins them", async () => {
    const entries = pathOf([
      user(words("MARK-old", 50)),
      assistant(words("MARK-oldreply", 50)),
      user(words("MARK-turn", 20)), // turn start
      assistant("", { toolCalls: [{ id: "c1", name: "read", arguments: { path: "big.ts" } }] }),
      toolResult("c1", words("MARK-big", 300)),
      assistant(words("MARK-kept", 200)), // cut
    ]);
    const preparation = prepareCompaction(entries, { ...settings, keepRecentTokens: 200 })!;
    expect(preparation.isSplitTurn).toBe(true);
    let historyDone = false;
    const streamFn = scriptedModel([
      (context) => {
        historyDone = true;
        return summariser("history")(context);
      },
      (context) => {
        expect(historyDone).toBe(true); // sequential, never in parallel
        const text = requestText(context);
        expect(text).toContain("## Original Request");
        expect(text).toContain("## Context for Suffix");
        return { text: `prefix of ${markersIn(text).join(" ")}`, usage: { input: 7, output: 3 } };
      },
    ]);
    const result = await compact(preparation, {
      model: { ...summaryModel, reasoning: true, maxTokens: 4000 },
      streamFn,
      reasoning: "medium",
    });
    expect(result.summary).toBe(
      `## Goal\nhistory of MARK-old MARK-oldreply${SPLIT_TURN_SEPARATOR}prefix of MARK-turn MARK-big` +
        "\n\n<read-files>\nbig.ts\n</read-files>",
    );
    expect(result.usage).toMatchObject({ input: 107, output: 23 });
    // Output caps: 80 % and 50 % of reserveTokens, both clamped to the model's 4,000.
    expect(streamFn.calls.map((call) => call.options.maxTokens)).toEqual([4000, 4000]);
    expect(streamFn.calls.map((call) => call.options.reasoning)).toEqual(["medium", "medium"]);
  });

  it("carries the previous summary over when a split turn has nothing before it", async () => {
    const preparation: CompactionPreparation = {
      firstKeptEntryId: "e9",
      messagesToSummarize: [],
      turnPrefixMessages: [user("MARK-start")],
      isSplitTurn: true,
      tokensBefore: 1000,
      previousSummary: "earlier work\n\n<read-files>\nx.ts\n</read-files>",
      fileOps: { readFiles: ["x.ts"], modifiedFiles: [] },
      settings,
    };
    const streamFn = scriptedModel([{ text: "prefix" }]);
    const result = await compact(preparation, { model: summaryModel, streamFn });
    expect(streamFn.calls).toHaveLength(1);
    expect(result.summary).toBe(
      `earlier work${SPLIT_TURN_SEPARATOR}prefix\n\n<read-files>\nx.ts\n</read-files>`,
    );
    const withoutPrevious = { ...preparation };
    delete withoutPrevious.previousSummary;
    const fresh = await compact(withoutPrevious, {
      model: summaryModel,
      streamFn: scriptedModel([{ text: "p" }]),
    });
    expect(fresh.summary.startsWith(`No prior history.${SPLIT_TURN_SEPARATOR}p`)).toBe(true);
  });

  it("rejects invalid or empty preparations without calling the model", async () => {
    const streamFn = scriptedModel([]);
    const preparation = prepareCompaction(conversation(), settings)!;
    expect(
      (await failure(compact({ ...preparation, firstKeptEntryId: "" }, { model: summaryModel, streamFn })))
        .code,
    ).toBe("invalid_preparation");
    const empty = { ...preparation, messagesToSummarize: [], turnPrefixMessages: [] };
    expect((await failure(compact(empty, { model: summaryModel, streamFn }))).code).toBe(
      "nothing_to_compact",
    );
    expect(streamFn.calls).toHaveLength(0);
  });

  it("reports failed and aborted summaries, including the turn prefix's", async () => {
    const preparation = prepareCompaction(conversation(), settings)!;
    const failed = await failure(
      compact(preparation, { model: summaryModel, streamFn: scriptedModel([{ error: "overloaded" }]) }),
    );
    expect(failed).toMatchObject({
      code: "summarization_failed",
      message: "Summarization failed: overloaded",
    });

    const controller = new AbortController();
    controller.abort();
    const aborted = await failure(
      compact(preparation, { model: summaryModel, streamFn: scriptedModel([]), signal: controller.signal }),
    );
    expect(aborted.code).toBe("aborted");

    const split: CompactionPreparation = {
      ...preparation,
      isSplitTurn: true,
      turnPrefixMessages: [user("start")],
    };
    const prefixFailed = await failure(
      compact(split, {
        model: summaryModel,
        streamFn: scriptedModel([{ text: "history" }, { error: "boom" }]),
      }),
    );
    expect(prefixFailed).toMatchObject({
      code: "summarization_failed",
      message: "Turn prefix summarization failed: boom",
    });

    const later = new AbortController();
    const hanging = scriptedModel([{ text: "history" }, { text: "p", hang: true }]);
    const pending = compact(split, { model: summaryModel, streamFn: hanging, signal: later.signal });
    setTimeout(() => later.abort(), 5);
    expect((await failure(pending)).code).toBe("aborted");
  });
});

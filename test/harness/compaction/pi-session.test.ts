import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  compact,
  DEFAULT_COMPACTION_SETTINGS,
  estimateContextTokens,
  estimateTokens,
  prepareCompaction,
  serializeConversation,
  shouldCompact,
} from "../../../src/harness/compaction/index.js";
import { type CompactionEntry, parseSessionText, SessionTree } from "../../../src/sessions.js";
import { entryToMessage } from "../../../src/storage/build-context.js";
import { scriptedModel } from "../../../src/testing.js";
import { requestText, summariser } from "../../support/compaction.js";
import { fixturesDir } from "../../support/session-files.js";

/** The real 2.3 MB pi session (v1, two compactions), parsed in memory: the fixture is only read. */
function loadSession() {
  const text = readFileSync(join(fixturesDir, "pi-sessions", "before-compaction.jsonl"), "utf8");
  return parseSessionText(text).tree;
}

/** Claude Opus 4.5 as pi's session used it. */
const opus = {
  id: "claude-opus-4-5",
  api: "anthropic-messages",
  provider: "anthropic",
  contextWindow: 200_000,
  maxTokens: 8_192,
  reasoning: true,
};

describe("compacting the real pi session", () => {
  it("estimates a context near the window and cuts it sensibly", () => {
    const tree = loadSession();
    const branch = tree.getBranch();
    const settings = DEFAULT_COMPACTION_SETTINGS;

    const estimate = estimateContextTokens(tree.buildContext().messages);
    // Pi's own last compaction measured 185,014 tokens; the usage after it is the baseline.
    expect(estimate.usageTokens).toBe(168_018);
    expect(estimate.tokens).toBeGreaterThan(170_000);
    // 90 % of the window: just under the default threshold (200,000 − 16,384), over a 20,000 reserve.
    expect(shouldCompact(estimate.tokens, opus.contextWindow, settings)).toBe(false);
    expect(shouldCompact(estimate.tokens, opus.contextWindow, { ...settings, reserveTokens: 20_000 })).toBe(
      true,
    );

    const preparation = prepareCompaction(branch, settings)!;
    expect(preparation.tokensBefore).toBe(estimate.tokens);
    const latest = branch.filter((entry): entry is CompactionEntry => entry.type === "compaction").at(-1)!;
    expect(preparation.previousSummary).toBe(latest.summary);

    const previousKept = branch.findIndex((entry) => entry.id === latest.firstKeptEntryId);
    const firstKept = branch.findIndex((entry) => entry.id === preparation.firstKeptEntryId);
    expect(firstKept).toBeGreaterThan(previousKept);
    const keptEntry = branch[firstKept]!;
    expect(keptEntry.type === "message" && keptEntry.message.role).not.toBe("toolResult");

    // About keepRecentTokens stay verbatim (a cut moves forward from a tool result to the next cut point).
    let keptTokens = 0;
    for (const entry of branch.slice(firstKept)) {
      const message = entryToMessage(entry);
      if (message) keptTokens += estimateTokens(message);
    }
    expect(keptTokens).toBeGreaterThan(settings.keepRecentTokens * 0.9);
    expect(keptTokens).toBeLessThan(settings.keepRecentTokens * 2);

    // The summarised part is everything the previous compaction kept, up to the cut.
    const summarised = preparation.messagesToSummarize.length + preparation.turnPrefixMessages.length;
    expect(summarised).toBeGreaterThan(300);
    expect(preparation.messagesToSummarize[0]).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "can leave it" }],
    });
    if (preparation.isSplitTurn) expect(preparation.turnPrefixMessages[0]!.role).toBe("user");
    expect(preparation.fileOps.modifiedFiles).toContain(
      "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/cli/args.ts",
    );
  });

  it("compacts it with a summariser script into a much smaller context", async () => {
    const tree = loadSession();
    const preparation = prepareCompaction(tree.getBranch(), DEFAULT_COMPACTION_SETTINGS)!;
    const streamFn = scriptedModel([summariser("history"), summariser("turn prefix")]);
    const result = await compact(preparation, { model: opus, streamFn, reasoning: "off" });

    const calls = streamFn.calls;
    expect(calls).toHaveLength(preparation.isSplitTurn ? 2 : 1);
    const history = requestText(calls[0]!.context);
    expect(history).toContain(
      `<conversation>\n${serializeConversation(preparation.messagesToSummarize)}\n</conversation>`,
    );
    expect(history).toContain("<previous-summary>\n# Context Checkpoint: Coding Agent Refactoring");
    expect(
      calls.every((call) => call.options.maxTokens === 8_192 && call.options.reasoning === undefined),
    ).toBe(true);

    expect(result.firstKeptEntryId).toBe(preparation.firstKeptEntryId);
    expect(result.tokensBefore).toBe(preparation.tokensBefore);
    expect(result.summary.startsWith("## Goal\nhistory of")).toBe(true);
    expect(result.summary).toContain("<modified-files>\n");
    expect(result.details).toEqual(preparation.fileOps);

    // Appending the result shrinks the context far below the threshold.
    const compacted = SessionTree.fromEntries(tree.getEntries());
    compacted.append({ type: "compaction", ...result });
    const context = compacted.buildContext();
    expect(context.messages[0]).toMatchObject({ role: "compactionSummary", summary: result.summary });
    const after = estimateContextTokens(context.messages);
    expect(after.tokens).toBeLessThan(preparation.tokensBefore / 4);
    expect(shouldCompact(after.tokens, opus.contextWindow, DEFAULT_COMPACTION_SETTINGS)).toBe(false);
  });
});

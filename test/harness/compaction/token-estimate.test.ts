import { describe, expect, it } from "vitest";
import {
  calculateContextTokens,
  createContextEstimator,
  DEFAULT_COMPACTION_SETTINGS,
  estimateContextTokens,
  estimateTokens,
  lastUsage,
  shouldCompact,
} from "../../../src/harness/compaction/index.js";
import type { AgentMessage } from "../../../src/index.js";
import { emptyUsage } from "../../../src/index.js";
import { assistant, nextTimestamp, toolResult, usageOf, user } from "../../support/compaction.js";

describe("token accounting", () => {
  it("sums a usage's parts when totalTokens is missing, and returns 0 for empty usage", () => {
    const usage = { ...emptyUsage(), input: 1000, output: 500, cacheRead: 200, cacheWrite: 100 };
    expect(calculateContextTokens(usage)).toBe(1800);
    expect(calculateContextTokens({ ...usage, totalTokens: 1234 })).toBe(1234);
    expect(calculateContextTokens(emptyUsage())).toBe(0);
  });

  it("compacts once the context leaves less than reserveTokens free, unless disabled", () => {
    const settings = { ...DEFAULT_COMPACTION_SETTINGS, reserveTokens: 10_000 };
    expect(shouldCompact(95_000, 100_000, settings)).toBe(true);
    expect(shouldCompact(89_000, 100_000, settings)).toBe(false);
    expect(shouldCompact(95_000, 100_000, { ...settings, enabled: false })).toBe(false);
    expect(DEFAULT_COMPACTION_SETTINGS).toEqual({
      enabled: true,
      reserveTokens: 16384,
      keepRecentTokens: 20000,
    });
  });
});

describe("estimateTokens", () => {
  it("counts characters / 4 for every role, an image as ~1,200 tokens, unknown roles as 0", () => {
    const at = nextTimestamp();
    expect(estimateTokens(user("x".repeat(40)))).toBe(10);
    expect(estimateTokens(user("x".repeat(41)))).toBe(11);
    const withImage: AgentMessage = {
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      timestamp: at,
    };
    expect(estimateTokens(withImage)).toBeGreaterThan(1000);
    const reply = assistant("abcd", { toolCalls: [{ id: "c1", name: "read", arguments: { path: "a.ts" } }] });
    reply.content.unshift({ type: "thinking", thinking: "hmmm" });
    expect(estimateTokens(reply)).toBe(Math.ceil((4 + 4 + 4 + JSON.stringify({ path: "a.ts" }).length) / 4));
    expect(estimateTokens(toolResult("c1", "y".repeat(80)))).toBe(20);
    expect(
      estimateTokens({
        role: "custom",
        customType: "note",
        content: "z".repeat(8),
        display: true,
        timestamp: at,
      }),
    ).toBe(2);
    expect(
      estimateTokens({ role: "compactionSummary", summary: "s".repeat(12), tokensBefore: 1, timestamp: at }),
    ).toBe(3);
    expect(
      estimateTokens({ role: "branchSummary", summary: "s".repeat(4), fromId: "x", timestamp: at }),
    ).toBe(1);
    const bash = { role: "bashExecution", command: "ls", output: "a\nb", exitCode: 0, timestamp: at };
    expect(estimateTokens(bash as unknown as AgentMessage)).toBe(2);
    expect(estimateTokens({ role: "mystery", timestamp: at } as unknown as AgentMessage)).toBe(0);
  });
});

describe("lastUsage and estimateContextTokens", () => {
  it("ignores aborted, failed and zero-usage replies", () => {
    const messages = [
      user("q"),
      assistant("good", { usage: 5000 }),
      user("q2"),
      assistant("", { usage: 9000, stopReason: "aborted" }),
      assistant("", { usage: 9500, stopReason: "error" }),
      assistant("zero", { usage: 0 }),
    ];
    expect(lastUsage(messages)).toMatchObject({ index: 1, usage: { totalTokens: 5000 } });
    expect(lastUsage([user("only")])).toBeUndefined();
  });

  it("adds characters / 4 of the messages after the last valid usage", () => {
    const messages = [user("q"), assistant("a", { usage: 1000 }), user("x".repeat(400))];
    expect(estimateContextTokens(messages)).toEqual({
      tokens: 1100,
      usageTokens: 1000,
      trailingTokens: 100,
      lastUsageIndex: 1,
    });
  });

  it("estimates every message when no usage is valid", () => {
    const messages = [
      user("x".repeat(40)),
      assistant("y".repeat(40), { stopReason: "error", usage: 50_000 }),
    ];
    expect(estimateContextTokens(messages)).toMatchObject({ tokens: 20, usageTokens: 0, lastUsageIndex: -1 });
  });

  it("does not trust usage measured before the latest compaction (pi#9337)", () => {
    // A built context after a compaction: the summary, then kept messages whose usage measured the
    // large pre-compaction context, then a turn that failed.
    const kept = [user("kept question"), assistant("kept answer", { usage: 180_000 })];
    const summary: AgentMessage = {
      role: "compactionSummary",
      summary: "s".repeat(4000),
      tokensBefore: 180_000,
      timestamp: nextTimestamp(),
    };
    const failed = [user("next"), assistant("", { stopReason: "error", usage: 0 })];
    const estimate = estimateContextTokens([summary, ...kept, ...failed]);
    expect(estimate.usageTokens).toBe(0);
    expect(estimate.tokens).toBeLessThan(1100);
    expect(shouldCompact(estimate.tokens, 200_000, DEFAULT_COMPACTION_SETTINGS)).toBe(false);

    // A reply after the compaction measured the new context: it is the baseline again.
    const fresh = assistant("fresh", { usage: 2_000 });
    expect(estimateContextTokens([summary, ...kept, user("go"), fresh, user("more")])).toMatchObject({
      usageTokens: 2_000,
      lastUsageIndex: 4,
    });
  });

  it("ignores an aborted reply's usage so an aborted turn cannot re-trigger compaction", () => {
    const messages = [
      user("q"),
      assistant("a", { usage: 10_000 }),
      user("big?"),
      { ...assistant("partial"), stopReason: "aborted" as const, usage: usageOf(190_000) },
    ];
    const { tokens } = estimateContextTokens(messages);
    expect(tokens).toBeLessThan(10_010);
    expect(shouldCompact(tokens, 200_000, DEFAULT_COMPACTION_SETTINGS)).toBe(false);
  });
});

describe("createContextEstimator", () => {
  const summary = (): AgentMessage => ({
    role: "compactionSummary",
    summary: "s".repeat(400),
    tokensBefore: 180_000,
    timestamp: nextTimestamp(),
  });

  it("gives estimateContextTokens's result after every append, counting only the new messages", () => {
    const kept = [user("kept question"), assistant("kept answer", { usage: 180_000 })];
    const transcript: AgentMessage[] = [];
    const growth: AgentMessage[] = [
      user("x".repeat(40)),
      assistant("zero usage"),
      assistant("", { stopReason: "error", usage: 9_000 }),
      assistant("a", { usage: 1000 }),
      user("y".repeat(400)),
      summary(),
      ...kept,
      user("next"),
      assistant("", { stopReason: "aborted", usage: 50_000 }),
      assistant("fresh", { usage: 2_000 }),
      user("more"),
      summary(),
      user("after the second compaction"),
    ];
    const estimate = createContextEstimator();
    expect(estimate(transcript)).toEqual(estimateContextTokens(transcript));
    for (const message of growth) {
      transcript.push(message);
      expect(estimate(transcript)).toEqual(estimateContextTokens(transcript));
    }
    // A burst of appends between calls is counted at once.
    transcript.push(user("a"), assistant("b", { usage: 3_000 }), user("c".repeat(80)));
    expect(estimate(transcript)).toEqual(estimateContextTokens(transcript));
  });

  it("starts over for another array, a shorter one, or a replaced last message", () => {
    const estimate = createContextEstimator();
    const first = [user("q"), assistant("a", { usage: 1000 }), user("x".repeat(400))];
    expect(estimate(first)).toMatchObject({ tokens: 1100 });
    const second = [user("x".repeat(40))];
    expect(estimate(second)).toEqual(estimateContextTokens(second));
    second.pop();
    expect(estimate(second)).toEqual(estimateContextTokens(second));
    second.push(user("y".repeat(80)));
    expect(estimate(second)).toMatchObject({ tokens: 20 });
    second[0] = user("z".repeat(8));
    expect(estimate(second)).toEqual(estimateContextTokens(second));
  });
});

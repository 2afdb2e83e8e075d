import { describe, expect, it } from "vitest";
import {
  createContextEstimator,
  estimateContextTokens,
  estimateTokens,
  isBashExecution,
  lastUsage,
} from "../../src/loop/token-estimate.js";
import type { AgentMessage, AssistantMessage } from "../../src/types/index.js";
import { assistant, nextTimestamp, user } from "../support/compaction.js";

const summaryAt = (timestamp: number): AgentMessage => ({
  role: "compactionSummary",
  summary: "s".repeat(40),
  tokensBefore: 100_000,
  timestamp,
});

describe("isBashExecution", () => {
  it("accepts a bashExecution message with a string command and output, and nothing else", () => {
    const bash = { role: "bashExecution", command: "ls", output: "a", exitCode: 0, timestamp: 1 };
    expect(isBashExecution(bash)).toBe(true);
    const others: unknown[] = [
      undefined,
      null,
      "bashExecution",
      7,
      { ...bash, role: "user" },
      { ...bash, command: 1 },
      { ...bash, output: undefined },
      { role: "bashExecution" },
    ];
    for (const other of others) expect(isBashExecution(other)).toBe(false);
  });
});

describe("lastUsage", () => {
  it("finds a valid reply at the very start of the transcript", () => {
    const messages = [assistant("hello", { usage: 700 }), user("x".repeat(40))];
    expect(lastUsage(messages)).toMatchObject({ index: 0, usage: { totalTokens: 700 } });
    expect(estimateContextTokens(messages)).toEqual({
      tokens: 710,
      usageTokens: 700,
      trailingTokens: 10,
      lastUsageIndex: 0,
    });
  });

  it("trusts a reply stamped at the same time as the latest compaction summary, not an earlier one", () => {
    const at = nextTimestamp();
    const same = { ...assistant("same", { usage: 900 }), timestamp: at };
    expect(lastUsage([summaryAt(at), same])).toMatchObject({ index: 1 });
    const earlier = { ...assistant("earlier", { usage: 900 }), timestamp: at - 1 };
    expect(lastUsage([summaryAt(at), earlier])).toBeUndefined();
  });

  it("skips a reply without usage (an old session's record)", () => {
    const bare = assistant("no usage") as Partial<AssistantMessage>;
    delete bare.usage;
    const messages = [user("q"), assistant("counted", { usage: 300 }), bare as AgentMessage];
    expect(lastUsage(messages)).toMatchObject({ index: 1 });
    expect(estimateTokens(bare as AgentMessage)).toBe(2);
  });
});

describe("createContextEstimator", () => {
  it("agrees with estimateContextTokens when the first reply with usage opens the transcript", () => {
    const estimate = createContextEstimator();
    const transcript: AgentMessage[] = [assistant("first", { usage: 500 })];
    expect(estimate(transcript)).toEqual(estimateContextTokens(transcript));
    transcript.push(user("y".repeat(20)));
    expect(estimate(transcript)).toEqual({
      tokens: 505,
      usageTokens: 500,
      trailingTokens: 5,
      lastUsageIndex: 0,
    });
  });

  it("trusts a reply stamped at the same time as a compaction summary it follows", () => {
    const at = nextTimestamp();
    const transcript = [summaryAt(at), { ...assistant("same", { usage: 900 }), timestamp: at }];
    expect(createContextEstimator()(transcript)).toEqual(estimateContextTokens(transcript));
    expect(createContextEstimator()(transcript)).toMatchObject({ usageTokens: 900, lastUsageIndex: 1 });
  });

  it("counts only what was appended: an earlier message changed in place is not counted again", () => {
    const estimate = createContextEstimator();
    const transcript: AgentMessage[] = [user("x".repeat(40)), user("y".repeat(40))];
    expect(estimate(transcript)).toMatchObject({ tokens: 20 });
    transcript[0] = user("x".repeat(400));
    expect(estimate(transcript)).toMatchObject({ tokens: 20 });
    transcript.push(user("z".repeat(4)));
    expect(estimate(transcript)).toMatchObject({ tokens: 21 });
    expect(estimateContextTokens(transcript)).toMatchObject({ tokens: 111 });
  });

  it("counts afresh another array that ends with the same message", () => {
    const estimate = createContextEstimator();
    const shared = user("s".repeat(40));
    expect(estimate([user("a".repeat(40)), shared])).toMatchObject({ tokens: 20 });
    const other = [user("b".repeat(400)), shared, user("c".repeat(4))];
    expect(estimate(other)).toEqual(estimateContextTokens(other));
    expect(estimate(other)).toMatchObject({ tokens: 111 });
  });

  it("goes on from an empty transcript", () => {
    const estimate = createContextEstimator();
    const transcript: AgentMessage[] = [];
    expect(estimate(transcript)).toEqual({
      tokens: 0,
      usageTokens: 0,
      trailingTokens: 0,
      lastUsageIndex: -1,
    });
    transcript.push(user("q".repeat(8)));
    expect(estimate(transcript)).toEqual(estimateContextTokens(transcript));
  });
});

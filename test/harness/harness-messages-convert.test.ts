import { describe, expect, it } from "vitest";
import { convertHarnessMessagesToLlm } from "../../src/harness/messages-convert.js";
import type { AgentMessage } from "../../src/types/messages.js";
import { emptyUsage } from "../../src/types/messages.js";

const at = 1;
const textOf = (message: unknown) => (message as { content: { text: string }[] }).content[0]!.text;

describe("convertHarnessMessagesToLlm", () => {
  it("turns harness messages into user messages with pi's texts", () => {
    const messages: AgentMessage[] = [
      { role: "compactionSummary", summary: "S", tokensBefore: 10, timestamp: at },
      { role: "branchSummary", summary: "B", fromId: "x", timestamp: at },
      { role: "custom", customType: "note", content: "hello", display: true, timestamp: at },
      {
        role: "bashExecution",
        command: "ls",
        output: "a\nb",
        exitCode: 2,
        cancelled: false,
        truncated: true,
        fullOutputPath: "/tmp/out",
        timestamp: at,
      },
      {
        role: "bashExecution",
        command: "secret",
        output: "",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        excludeFromContext: true,
        timestamp: at,
      },
      {
        role: "bashExecution",
        command: "sleep 9",
        output: "",
        exitCode: undefined,
        cancelled: true,
        truncated: false,
        timestamp: at,
      },
    ];
    const converted = convertHarnessMessagesToLlm(messages);
    expect(converted.map((m) => m.role)).toEqual(["user", "user", "user", "user", "user"]);
    expect(textOf(converted[0])).toBe(
      "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS\n</summary>",
    );
    expect(textOf(converted[1])).toBe(
      "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nB</summary>",
    );
    expect(textOf(converted[2])).toBe("hello");
    expect(textOf(converted[3])).toBe(
      "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/out]",
    );
    expect(textOf(converted[4])).toBe("Ran `sleep 9`\n(no output)\n\n(command cancelled)");
  });

  it("drops failed assistant replies without tool calls and keeps the rest", () => {
    const assistant = (stopReason: "error" | "stop", withCall = false): AgentMessage => ({
      role: "assistant",
      content: withCall ? [{ type: "toolCall", id: "c", name: "t", arguments: {} }] : [],
      api: "a",
      provider: "p",
      model: "m",
      usage: emptyUsage(),
      stopReason,
      timestamp: at,
    });
    const converted = convertHarnessMessagesToLlm([
      { role: "user", content: "q", timestamp: at },
      assistant("error"),
      assistant("error", true),
      assistant("stop"),
    ]);
    expect(converted).toHaveLength(3);
  });
});

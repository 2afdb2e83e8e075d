import { describe, expect, it } from "vitest";
import { type EvalCase, evalCasesFromSession, runEval, trajectoryMatch } from "../../src/evals.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import { scriptedModel } from "../../src/testing.js";
import type { AssistantMessage, UserMessage } from "../../src/types/messages.js";
import { emptyUsage } from "../../src/types/messages.js";
import { testModel } from "../support/loop-harness.js";

const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 1 });
const assistant = (content: AssistantMessage["content"]): AssistantMessage => ({
  role: "assistant",
  content,
  api: "scripted",
  provider: "test",
  model: "m",
  usage: emptyUsage(),
  stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
  timestamp: 1,
});

describe("cases from a stored session", () => {
  it("makes one case per prompt: the conversation so far as input, what the agent did next as expectations", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ id: "s1" });
    for (const message of [
      user("list the folder"),
      assistant([{ type: "toolCall", id: "c1", name: "ls", arguments: { path: "." } }]),
      {
        role: "toolResult" as const,
        toolCallId: "c1",
        toolName: "ls",
        content: [{ type: "text" as const, text: "a.txt" }],
        isError: false,
        timestamp: 1,
      },
      assistant([{ type: "text", text: "One file: a.txt." }]),
      user("thanks"),
      assistant([{ type: "text", text: "You are welcome." }]),
      user("bye"),
    ]) {
      await session.appendMessage(message);
    }
    const cases = evalCasesFromSession(session);
    expect(
      cases.map((entry) => [entry.id, entry.expectedTrajectory, entry.expectedOutput, entry.metadata]),
    ).toEqual([
      ["s1#1", [{ name: "ls", arguments: { path: "." } }], "One file: a.txt.", { session: "s1", turn: 1 }],
      ["s1#2", [], "You are welcome.", { session: "s1", turn: 2 }],
      ["s1#3", [], undefined, { session: "s1", turn: 3 }],
    ]);
    expect(((cases[1] as EvalCase).input as UserMessage[]).map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
    ]);

    // The session's second prompt, replayed against an agent that answers without tools, still matches.
    const result = await runEval({
      cases: [cases[1] as EvalCase],
      agent: () => ({ model: testModel, streamFn: scriptedModel([{ text: "You are welcome." }]) }),
      scorers: [trajectoryMatch()],
    });
    expect(result.cases[0]).toMatchObject({ passed: true, samples: [{ text: "You are welcome." }] });
  });
});

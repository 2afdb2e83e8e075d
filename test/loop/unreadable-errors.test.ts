import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AssistantMessage, ToolResultMessage } from "../../src/types/messages.js";
import { emptyContext, runToEnd, testModel, user } from "../support/loop-harness.js";

/** An error whose `message` cannot be read (a lazy getter that fails), nor stringified. */
class UnreadableError extends Error {
  override get message(): string {
    throw "message getter failed";
  }
  override toString(): string {
    throw "toString failed";
  }
}

describe("thrown values that cannot be read", () => {
  it("end the run with an error reply when the StreamFn throws one (no hang)", async () => {
    const events = await runToEnd([user("hi")], emptyContext(), {
      model: testModel,
      streamFn: () => {
        throw new UnreadableError();
      },
    });
    const end = events.at(-1);
    expect(end?.type).toBe("agent_end");
    const reply = (end?.type === "agent_end" ? end.messages : []).at(-1) as AssistantMessage;
    expect(reply.stopReason).toBe("error");
    expect(reply.errorMessage).toMatch(/could not be read/);
  });

  it("become an error tool result when a tool throws one", async () => {
    const tool = defineTool({
      name: "fragile",
      description: "Throws an unreadable error",
      parameters: z.object({}),
      execute: async () => {
        throw new UnreadableError();
      },
    });
    const events = await runToEnd([user("hi")], emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ name: "fragile", arguments: {}, id: "c1" }] },
        { text: "ok" },
      ]),
    });
    const end = events.at(-1);
    const messages = end?.type === "agent_end" ? end.messages : [];
    const result = messages.find((m) => (m as ToolResultMessage).role === "toolResult") as ToolResultMessage;
    expect(result).toMatchObject({ toolCallId: "c1", isError: true });
    expect(result.content).toEqual([
      { type: "text", text: "Unknown error (the thrown value could not be read)" },
    ]);
    expect((messages.at(-1) as AssistantMessage).stopReason).toBe("stop");
  });
});

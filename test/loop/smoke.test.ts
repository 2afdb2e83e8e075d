import { describe, expect, it } from "vitest";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import {
  describeEvents,
  echoTool,
  emptyContext,
  runToEnd,
  testModel,
  user,
} from "../support/loop-harness.js";

describe("smoke", () => {
  it("runs a text turn", async () => {
    const streamFn = scriptedModel([{ text: "Hello there, friend" }]);
    const events = await runToEnd([user("hi")], emptyContext(), { model: testModel, streamFn });
    expect(describeEvents(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start(user)",
      "message_end(user)",
      "message_start(assistant)",
      "message_end(assistant)",
      "turn_end",
      "agent_end",
    ]);
  });
  it("runs tools", async () => {
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "a" }, id: "c1" },
          { name: "echo", arguments: { text: "b" }, id: "c2" },
        ],
      },
      { text: "done" },
    ]);
    const events = await runToEnd([user("hi")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
    });
    console.log(describeEvents(events));
  });
});

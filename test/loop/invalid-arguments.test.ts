import { describe, expect, it } from "vitest";
import { QUOTED_ARGUMENTS_MAX_CHARS } from "../../src/loop/invalid-arguments.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "../../src/types/messages.js";
import { echoTool, emptyContext, runToEnd, testModel, user } from "../support/loop-harness.js";

const toolResults = (events: AgentEvent[]) =>
  events.flatMap((e) =>
    e.type === "message_end" && (e.message as ToolResultMessage).role === "toolResult"
      ? [e.message as ToolResultMessage]
      : [],
  );
const text = (message: ToolResultMessage | undefined) =>
  message?.content.map((c) => (c.type === "text" ? c.text : "")).join("") ?? "";

describe("tool calls with malformed JSON arguments", () => {
  it("answers the malformed call with the parse error and its text, runs the others, and asks the model again", async () => {
    let executions = 0;
    const hooked: string[] = [];
    const tool = echoTool("echo", async () => {
      executions++;
    });
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "fine" }, id: "good" },
          { name: "echo", rawArguments: '{"text": "oops",}', id: "bad" },
        ],
      },
      { text: "fixed" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn,
      beforeToolCall: async ({ toolCall }) => {
        hooked.push(toolCall.id);
        return undefined;
      },
    });
    const [good, bad] = toolResults(events);
    expect([good?.toolCallId, good?.isError, text(good)]).toEqual(["good", false, "echo: fine"]);
    expect([bad?.toolCallId, bad?.isError]).toEqual(["bad", true]);
    expect(text(bad)).toMatch(/^The arguments of tool call "echo" are not valid JSON \(.*JSON.*\)/);
    expect(text(bad)).toContain('Received arguments (17 characters):\n{"text": "oops",}');
    expect(hooked).toEqual(["good"]);
    expect(executions).toBe(1);

    expect(streamFn.calls).toHaveLength(2);
    const [, reply, ...results] = streamFn.calls[1]!.context.messages;
    expect((reply as AssistantMessage).stopReason).toBe("toolUse");
    const badCall = (reply as AssistantMessage).content[1] as ToolCall;
    expect(badCall).toMatchObject({ arguments: {}, invalidArguments: { raw: '{"text": "oops",}' } });
    expect(results.map((m) => (m as ToolResultMessage).toolCallId)).toEqual(["good", "bad"]);
    const end = events.at(-1);
    expect(end?.type === "agent_end" && (end.messages.at(-1) as AssistantMessage).content).toEqual([
      { type: "text", text: "fixed" },
    ]);
  });

  it("quotes at most QUOTED_ARGUMENTS_MAX_CHARS characters of long malformed arguments", async () => {
    const raw = `{"text": "${"x".repeat(5000)}"`;
    const streamFn = scriptedModel([{ toolCalls: [{ name: "echo", rawArguments: raw }] }, { text: "ok" }]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
    });
    const message = text(toolResults(events)[0]);
    expect(message).toContain(
      `Received arguments (${raw.length} characters):\n${raw.slice(0, QUOTED_ARGUMENTS_MAX_CHARS)}\n`,
    );
    expect(message).toContain(`… (${raw.length - QUOTED_ARGUMENTS_MAX_CHARS} more characters not shown)`);
    expect(message).not.toContain(raw.slice(0, QUOTED_ARGUMENTS_MAX_CHARS + 1));
  });

  it("reports unfinished arguments of a reply cut at length as truncated, as before", async () => {
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", rawArguments: '{"text": "lor' }], stopReason: "length" },
      { text: "retry" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
    });
    const reply = streamFn.calls[1]!.context.messages[1] as AssistantMessage;
    expect(reply.content[0]).toEqual({
      type: "toolCall",
      id: expect.any(String),
      name: "echo",
      arguments: {},
    });
    expect(text(toolResults(events)[0])).toContain("output token limit");
  });
});

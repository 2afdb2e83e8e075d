import { describe, expect, it } from "vitest";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, ToolResultMessage } from "../../src/types/messages.js";
import {
  deferred,
  echoTool,
  emptyContext,
  runToEnd,
  startLoopActor,
  testModel,
  user,
} from "../support/loop-harness.js";

const toolCall = { name: "echo", arguments: { text: "x" }, id: "c1" };

function resultsOf(events: AgentEvent[]): ToolResultMessage[] {
  const end = events.at(-1);
  const messages: AgentMessage[] = end?.type === "agent_end" ? end.messages : [];
  return messages.filter((m): m is ToolResultMessage => (m as ToolResultMessage).role === "toolResult");
}

describe("tool calls of a reply that did not finish", () => {
  it("get an 'aborted' error result when the run is aborted mid-reply", async () => {
    const events: AgentEvent[] = [];
    const streamFn = scriptedModel([{ toolCalls: [toolCall], hang: true }]);
    const argumentsStreamed = deferred<void>();
    const { actor, ended, prompt } = startLoopActor(
      [user("hi")],
      emptyContext({ tools: [echoTool()] }),
      { model: testModel, streamFn },
      (e) => {
        events.push(e);
        if (e.type === "message_update" && e.assistantMessageEvent.type === "toolcall_end")
          argumentsStreamed.resolve();
      },
    );
    prompt();
    // The scripted stream has sent the whole call and now hangs until aborted.
    await argumentsStreamed.promise;
    expect(actor.getSnapshot().matches({ running: "streaming" })).toBe(true);
    expect(events.some((e) => e.type === "message_update")).toBe(true);
    actor.send({ type: "ABORT" });
    await ended;
    const results = resultsOf(events);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ toolCallId: "c1", isError: true });
    expect(results[0]!.content).toEqual([{ type: "text", text: "Tool call aborted" }]);
    expect(events.filter((e) => e.type === "tool_execution_start")).toHaveLength(1);
    expect(events.filter((e) => e.type === "tool_execution_end")).toHaveLength(1);
    const turnEnd = events.find((e) => e.type === "turn_end");
    expect(turnEnd?.type === "turn_end" && turnEnd.toolResults).toEqual(results);
  });

  it("get an error result when the provider fails after streaming them", async () => {
    const streamFn = scriptedModel([{ toolCalls: [toolCall], error: "overloaded" }]);
    const events = await runToEnd([user("hi")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
    });
    const results = resultsOf(events);
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([["c1", true]]);
    expect(results[0]!.content).toEqual([
      { type: "text", text: "Tool call not executed: the model reply failed" },
    ]);
    expect(streamFn.calls).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("agent_end");
  });
});

import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import { deferred, testModel } from "../support/loop-harness.js";
import { pathOf, supportTree, textOf, toolResults } from "./support.js";

describe("approval inside a grandchild", () => {
  it("asks with the path, runs the tool once when approved, and the results climb back up", async () => {
    const ran = { count: 0, keys: [] as string[] };
    const { tools, rootScript } = supportTree(ran);
    const agent = new Agent({ model: testModel, streamFn: scriptedModel(rootScript), tools });
    const asked = deferred<AgentEvent>();
    const events: AgentEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
      if (event.type === "tool_approval_request") asked.resolve(event);
    });
    const done = agent.prompt("help");
    const request = await asked.promise;
    expect(request).toMatchObject({ toolCallId: "r1", toolName: "refund", agentPath: ["s1", "b1"] });
    expect(agent.state.awaitingApproval).toEqual([
      { toolCallId: "r1", toolName: "refund", args: { order: "A-1" }, agentPath: ["s1", "b1"] },
    ]);
    expect(() => agent.approveToolCall("r1")).toThrow(/no tool call "r1" is awaiting approval/);
    agent.approveToolCall("r1", { agentPath: ["s1", "b1"] });
    const result = await done;
    expect(ran.count).toBe(1);
    expect(result.stopReason).toBe("stop");
    const [supportResult] = toolResults(result.messages);
    expect(textOf(supportResult!)).toBe("support: done");
    // The root's totals include every descendant: support (3+4 in, 1+1 out) and billing (5+7, 1+2).
    expect(supportResult!.usage).toMatchObject({ input: 3 + 4 + 5 + 7, output: 1 + 1 + 1 + 2 });
    const ends = events.filter((e) => e.type === "agent_end").map(pathOf);
    expect(ends).toEqual(["s1/b1", "s1", ""]);
  });

  it("persisted while the grandchild waits, restored from JSON, approved: the tool runs exactly once", async () => {
    const ran = { count: 0, keys: [] as string[] };
    const first = supportTree(ran);
    const agent = new Agent({
      model: testModel,
      agentId: "root",
      streamFn: scriptedModel(first.rootScript),
      tools: first.tools,
    });
    const asked = deferred();
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request") asked.resolve();
    });
    void agent.prompt("help");
    await asked.promise;
    const saved = JSON.stringify(agent.persist());
    agent.abort();

    const again = { count: 0, keys: [] as string[] };
    const second = supportTree(again, true);
    // The restored root's script starts after its first reply (already in the transcript).
    const restored = Agent.restore(saved, {
      streamFn: scriptedModel(first.rootScript.slice(1)),
      tools: second.tools,
    });
    const events: AgentEvent[] = [];
    const reasked = deferred<AgentEvent>();
    restored.subscribe((event) => {
      events.push(event);
      if (event.type === "tool_approval_request") reasked.resolve(event);
    });
    expect(restored.state.awaitingApproval).toEqual([
      { toolCallId: "r1", toolName: "refund", args: { order: "A-1" }, agentPath: ["s1", "b1"] },
    ]);
    expect((await reasked.promise).agentPath).toEqual(["s1", "b1"]);
    restored.approveToolCall("r1", { agentPath: ["s1", "b1"] });
    await restored.waitForIdle();
    expect(ran.count).toBe(0);
    expect(again.count).toBe(1);
    expect(again.keys).toEqual(["root/s1/b1:r1"]);
    const messages = restored.state.messages;
    expect(textOf(toolResults(messages)[0]!)).toBe("support: done");
    expect(messages.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "root: all done" }],
    });
    expect(events.filter((e) => e.type === "agent_resume").map(pathOf)).toEqual(["", "s1", "s1/b1"]);
  });
});

import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { PersistedAgent } from "../../src/agent/agent-snapshot.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { Recording } from "../../src/replay/recording.js";
import type { ToolResultMessage } from "../../src/types/messages.js";
import { processScript, processTools } from "../support/agent-process.js";
import { repoRoot, runTs } from "../support/cli-process.js";
import { testModel } from "../support/loop-harness.js";
import { deleteTool, weatherTool } from "./support.js";

const resultsOf = (agent: Agent) =>
  agent.state.messages
    .filter((message): message is ToolResultMessage => message.role === "toolResult")
    .map((message) => [message.toolCallId, message.isError, (message.content[0] as { text: string }).text]);

describe("time travel", () => {
  it("lists the steps with their state value and snapshot, and forks at the approval with the other decision", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "call_d1", name: "delete_file", arguments: { path: "a.txt" } }] },
        { text: "Deleted." },
      ]),
      tools: [deleteTool],
      record: true,
    });
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request") agent.approveToolCall(event.toolCallId);
    });
    await agent.prompt("Delete a.txt");
    expect(agent.history.map((step) => step.step)).toEqual([
      "turn_start",
      "awaiting_human",
      "tools_settled",
      "turn_start",
      "run_end",
    ]);
    const waiting = agent.history[1]!;
    expect(waiting.value).toEqual({ running: { executingTools: "awaitingHuman" } });
    expect(waiting.snapshot.snapshot.value).toEqual(waiting.value);

    const fork = Agent.restore(waiting.snapshot, {
      streamFn: scriptedModel([{ text: "Kept a.txt." }]),
      tools: [deleteTool],
    });
    await Promise.resolve();
    fork.denyToolCall("call_d1", "keep it");
    await fork.waitForIdle();
    expect(resultsOf(fork)).toEqual([["call_d1", true, expect.stringContaining("keep it")]]);
    expect(fork.state.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "Kept a.txt." }] });
    // The original run is untouched.
    expect(resultsOf(agent)).toEqual([["call_d1", false, "deleted a.txt"]]);
  });

  it("forks at a turn's start with another model: the same transcript up to the step, a new reply after it", async () => {
    const { tool } = weatherTool();
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "call_w1", name: "weather", arguments: { city: "Paris" } }] },
        { text: "Sunny." },
      ]),
      tools: [tool],
      record: true,
    });
    await agent.prompt("Paris?");
    const secondTurn = agent.history.filter((step) => step.step === "turn_start")[1]!;
    expect(secondTurn.snapshot.snapshot.context.messages).toHaveLength(3);
    const other = scriptedModel([{ text: "Rainy, says the other model." }]);
    const fork = Agent.restore(secondTurn.snapshot, { streamFn: other, tools: [tool] });
    await fork.waitForIdle();
    expect(other.calls).toHaveLength(1);
    expect(fork.state.messages.slice(0, 3)).toEqual(agent.state.messages.slice(0, 3));
    expect(fork.state.messages.at(-1)).toMatchObject({
      content: [{ type: "text", text: "Rainy, says the other model." }],
    });
  });

  it("restores step n of a recording made by another process and continues with another decision", async () => {
    const child = await runTs("test/support/replay-record-child.ts", [], { cwd: repoRoot });
    expect(child.stderr).toBe("");
    expect(child.code).toBe(0);
    const recording = Recording.fromJSONL<PersistedAgent>(child.stdout);
    const n = recording.steps.findIndex((step) => step.step === "awaiting_human");
    expect(n).toBeGreaterThan(0);
    const ran: string[] = [];
    const fork = Agent.restore(recording.steps[n]!.snapshot, {
      streamFn: processScript(1),
      tools: processTools({ approval: true, onRun: (tool) => ran.push(tool) }),
    });
    await Promise.resolve();
    fork.denyToolCall("pay", "not today");
    await fork.waitForIdle();
    expect(ran).not.toContain("charge");
    expect(resultsOf(fork).find(([id]) => id === "pay")).toEqual([
      "pay",
      true,
      expect.stringContaining("not today"),
    ]);
    expect(fork.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });
});

import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { createAgentMachine } from "../../src/machines/agent/agent.provided.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { Recording } from "../../src/replay/recording.js";
import { replayModel } from "../../src/replay/replay-model.js";
import { replayTools } from "../../src/replay/replay-tools.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import { testModel } from "../support/loop-harness.js";
import { weatherTool, withoutTimestamps } from "./support.js";

describe("recording an AgentHarness", () => {
  it("records the harness's prompt, the agent's calls and steps; the recording replays in a fresh session", async () => {
    const { tool, executions } = weatherTool();
    const turns = [
      { toolCalls: [{ id: "call_w1", name: "weather", arguments: { city: "Oslo" } }] },
      { text: "Oslo: 21°C." },
    ];
    const session = await new MemorySessionRepo().create({ cwd: "/work" });
    const harness = new AgentHarness({
      session,
      model: testModel,
      streamFn: scriptedModel(turns),
      tools: [tool],
      record: true,
    });
    await harness.prompt("Oslo?");
    const recording = harness.recording!;
    expect(recording.source).toBe("harness");
    expect(recording.commands.map((entry) => [entry.command.type, entry.state])).toEqual([
      ["SET_SYSTEM_PROMPT", "idle"],
      ["PROMPT", "idle"],
    ]);
    expect(recording.steps.map((step) => step.step)).toEqual([
      "turn_start",
      "tools_settled",
      "turn_start",
      "run_end",
    ]);
    expect(recording.toolCalls).toMatchObject([{ toolCallId: "call_w1", args: { city: "Oslo" } }]);

    const loaded = Recording.fromJSONL(recording.toJSONL());
    const fresh = await new MemorySessionRepo().create({ cwd: "/work" });
    const replayed = new AgentHarness({
      session: fresh,
      model: testModel,
      streamFn: replayModel(loaded),
      tools: replayTools(loaded, [tool]),
    });
    await replayed.prompt("Oslo?");
    expect(withoutTimestamps(replayed.agent.state.messages)).toEqual(
      withoutTimestamps(harness.agent.state.messages),
    );
    expect(executions).toEqual(["Oslo"]);
  });
});

describe("recording an embedded agent machine", () => {
  it("records through createAgentMachine({ record }) and the actor's inspect, with XState's persisted snapshots", async () => {
    const recording = new Recording();
    const machine = createAgentMachine({ streamFn: scriptedModel([{ text: "Hi!" }]), record: recording });
    const actor = createActor(machine, { input: { model: testModel }, inspect: recording.inspect });
    const ended = new Promise((resolve) => actor.on("agent_end", resolve));
    actor.start();
    actor.send({ type: "PROMPT", messages: [{ role: "user", content: "Hello", timestamp: 1 }] });
    await ended;
    expect(recording.commands).toMatchObject([{ command: { type: "PROMPT" }, state: "idle", agentPath: [] }]);
    expect(recording.modelCalls[0]!.request.messages).toEqual([{ role: "user", content: "Hello" }]);
    const turnStart = recording.steps[0]!;
    expect(turnStart.step).toBe("turn_start");
    // A plain XState persisted snapshot: createActor(machine, { snapshot }) takes it.
    const restored = createActor(createAgentMachine({ streamFn: scriptedModel([]) }), {
      snapshot: turnStart.snapshot as never,
      input: { model: testModel },
    });
    expect(restored.getSnapshot().value).toEqual(turnStart.value);
    expect(restored.getSnapshot().context.messages).toEqual([
      { role: "user", content: "Hello", timestamp: 1 },
    ]);
    const runEnd = recording.steps.at(-1)!;
    expect(runEnd).toMatchObject({ step: "run_end", value: "idle" });
  });
});

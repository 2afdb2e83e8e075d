/**
 * `agentRecordingOf`, the recording an agent's `record` option fills, and `persistAgentActor`, the
 * format its steps hold.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { agentRecordingOf, persistAgentActor } from "../../src/agent/agent-recording.js";
import { persistAgent } from "../../src/agent/agent-snapshot.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { Recording } from "../../src/replay/recording.js";
import { testModel } from "../support/loop-harness.js";

describe("agentRecordingOf", () => {
  it.each([undefined, false])("gives no recording for record: %j", (record) => {
    expect(agentRecordingOf(record, "agent")).toBeUndefined();
  });

  it("gives the recording it was given", () => {
    const given = new Recording();
    expect(agentRecordingOf(given as never, "harness")).toBe(given);
  });

  it.each(["agent", "harness"] as const)(
    "makes a new recording from %s for true, whose steps hold persist()'s format",
    async (source) => {
      const recording = agentRecordingOf(true, source)!;
      expect(recording).toBeInstanceOf(Recording);
      expect(recording.source).toBe(source);
      expect(recording).not.toBe(agentRecordingOf(true, source));
      const agent = new Agent({
        model: testModel,
        streamFn: scriptedModel([{ text: "Hi" }]),
        record: recording,
      });
      await agent.prompt("hello");
      const steps = recording.steps;
      expect(steps.length).toBeGreaterThan(0);
      expect(steps.at(-1)!.snapshot).toEqual(agent.persist());
    },
  );
});

describe("persistAgentActor", () => {
  it("persists any agent actor ref as persistAgent does", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "Hi" }]) });
    await agent.prompt("hello");
    expect(persistAgentActor(agent.actor)).toEqual(persistAgent(agent.actor));
    expect(persistAgentActor(agent.actor).format).toBe("agentchart.agent");
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { PersistedAgent } from "../../src/agent/agent-snapshot.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { Recording } from "../../src/replay/recording.js";
import { RECORDING_FORMAT_VERSION } from "../../src/replay/recording-format.js";
import { verifyReplay } from "../../src/replay/verify/verify-replay.js";
import { fixtureAgentOptions } from "../support/fixture-recording.js";

// The format's version guard: a recording made by an earlier version (committed, never regenerated)
// still loads, replays without divergence, and its steps still restore.

const text = readFileSync(
  new URL("../fixtures/recordings/weather-approval.recording.jsonl", import.meta.url),
  "utf8",
);

describe("the committed recording (format version 1)", () => {
  it("is read by this version", () => {
    expect(RECORDING_FORMAT_VERSION).toBe(1);
    const recording = Recording.fromJSONL(text);
    expect(recording.commands.map((entry) => entry.command.type)).toEqual([
      "PROMPT",
      "STEER",
      "APPROVE_TOOL",
    ]);
    expect(recording.steps.map((step) => step.step)).toEqual([
      "turn_start",
      "awaiting_human",
      "tools_settled",
      "turn_start",
      "run_end",
    ]);
  });

  it("replays offline without divergence, to the recorded transcript", async () => {
    const recording = Recording.fromJSONL<PersistedAgent>(text);
    const verdict = await verifyReplay(recording, { agent: fixtureAgentOptions() });
    expect(verdict.firstDivergence).toBeUndefined();
    const recorded = recording.steps.at(-1)!.snapshot.snapshot.context.messages;
    expect(verdict.agent.state.messages.map((message) => message.role)).toEqual(
      recorded.map((message) => message.role),
    );
    expect(verdict.agent.state.messages.at(-1)).toEqual(recorded.at(-1));
  });

  it("restores its awaiting-approval step with this version's Agent.restore", async () => {
    const recording = Recording.fromJSONL<PersistedAgent>(text);
    const waiting = recording.steps.find((step) => step.step === "awaiting_human")!;
    const fork = Agent.restore(waiting.snapshot, {
      streamFn: scriptedModel([{ text: "Kept old.txt." }]),
      tools: fixtureAgentOptions().tools!,
    });
    await Promise.resolve();
    expect(fork.state.awaitingApproval.map((call) => call.toolCallId)).toEqual(["call_d1"]);
    fork.denyToolCall("call_d1");
    await fork.waitForIdle();
    expect(fork.state.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "Kept old.txt." }] });
  });
});

import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { evalCasesFromRecording, seamEval, seamRecordingOf, trajectoryMatch } from "../../src/evals.js";
import { Recording } from "../../src/replay/recording.js";
import { scriptedModel } from "../../src/testing.js";
import { lookupTool as lookup } from "../support/lookup-tool.js";
import { testModel } from "../support/loop-harness.js";

/** A recorded run of two prompts: a lookup then an answer, then a plain answer; read back from its JSONL. */
async function recordedRun(): Promise<Recording> {
  const agent = new Agent({
    model: testModel,
    streamFn: scriptedModel([
      { toolCalls: [{ name: "lookup", arguments: { word: "hello" } }] },
      { text: "It is a greeting." },
      { text: "You are welcome." },
    ]),
    tools: [lookup],
    record: true,
  });
  await agent.prompt("What does hello mean?");
  await agent.prompt("Thanks!");
  return Recording.fromJSONL(agent.recording!.toJSONL());
}

describe("eval cases and seams from a recording", () => {
  it("makes one case per prompt: the transcript so far and the prompt as input, what the agent did next as expectations", async () => {
    const cases = evalCasesFromRecording(await recordedRun(), "greeting");
    expect(cases.map((evalCase) => evalCase.id)).toEqual(["greeting#1", "greeting#2"]);
    expect(cases[0]).toMatchObject({
      input: [{ role: "user", content: "What does hello mean?" }],
      expectedOutput: "It is a greeting.",
      expectedTrajectory: [{ name: "lookup", arguments: { word: "hello" } }],
      metadata: { recording: "greeting", turn: 1 },
    });
    const second = cases[1]!;
    expect(second).toMatchObject({ expectedOutput: "You are welcome.", expectedTrajectory: [] });
    expect(Array.isArray(second.input) && second.input.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
    ]);
  });

  it("reads the top-level model calls as seams, and a seam eval takes the recording itself", async () => {
    const recording = await recordedRun();
    const seams = seamRecordingOf(recording);
    expect(seams.model.id).toBe(testModel.id);
    expect(seams.calls.map((call) => call.reply.stopReason)).toEqual(["toolUse", "stop", "stop"]);
    expect(seams.calls[1]?.request.messages.at(-1)).toMatchObject({ role: "toolResult", toolName: "lookup" });

    const same = scriptedModel([{ toolCalls: [{ name: "lookup", arguments: { word: "hello" } }] }]);
    const kept = await seamEval({
      recording,
      step: 0,
      candidate: { streamFn: same },
      scorers: [trajectoryMatch({ arguments: true })],
    });
    expect(kept.passed).toBe(true);
    const other = scriptedModel([{ text: "A greeting, I think." }]);
    const changed = await seamEval({
      recording,
      step: 0,
      candidate: { streamFn: other },
      scorers: [trajectoryMatch({ arguments: true })],
    });
    expect(changed.passed).toBe(false);
  });
});

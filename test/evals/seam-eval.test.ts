import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import {
  EvalInputError,
  exactText,
  replayExceptStep,
  type SeamRecording,
  seamEval,
  trajectoryMatch,
} from "../../src/evals.js";
import { scriptedModel } from "../../src/testing.js";
import type { AssistantMessage } from "../../src/types/messages.js";
import { lookupTool as lookup } from "../support/lookup-tool.js";
import { testModel } from "../support/loop-harness.js";

/** Records a real run: a tool call, then an answer; the scripted model keeps every request. */
async function recordRun(): Promise<SeamRecording> {
  const model = scriptedModel([
    { toolCalls: [{ name: "lookup", arguments: { word: "hello" } }] },
    { text: "It is a greeting." },
  ]);
  const agent = new Agent({ model: testModel, streamFn: model, tools: [lookup] });
  const result = await agent.prompt("What does hello mean?");
  const replies = result.messages.filter(
    (message): message is AssistantMessage => message.role === "assistant",
  );
  return {
    model: testModel,
    calls: model.calls.map((call, index) => ({
      request: call.context,
      reply: replies[index] as AssistantMessage,
    })),
  };
}

describe("seam evals", () => {
  it("sends step k's recorded request to the candidate and scores its decision against the recorded one", async () => {
    const recording = await recordRun();
    const same = scriptedModel([{ toolCalls: [{ name: "lookup", arguments: { word: "hello" } }] }]);
    const kept = await seamEval({
      recording,
      step: 0,
      candidate: { streamFn: same },
      scorers: [trajectoryMatch({ arguments: true })],
    });
    expect(kept.passed).toBe(true);
    expect(same.calls[0]?.context.messages).toEqual(recording.calls[0]?.request.messages);

    const other = scriptedModel([{ toolCalls: [{ name: "lookup", arguments: { word: "hi" } }] }]);
    const changed = await seamEval({
      recording,
      step: 0,
      candidate: { streamFn: other },
      scorers: [trajectoryMatch({ arguments: true })],
    });
    expect(changed.passed).toBe(false);
    expect(changed.scores[0]?.samples[0]?.reason).toBe(
      'call 1 is lookup({"word":"hi"}), expected lookup({"word":"hello"})',
    );
  });

  it("step 1 sees the recorded tool result; pass^k over k samples", async () => {
    const recording = await recordRun();
    let sample = 0;
    const candidate = scriptedModel(
      Array.from({ length: 3 }, () => () => ({ text: sample++ === 1 ? "No idea." : "It is a greeting." })),
    );
    const result = await seamEval({
      recording,
      step: 1,
      candidate: { streamFn: candidate },
      scorers: [exactText()],
      samples: 3,
    });
    expect(candidate.calls[0]?.context.messages.at(-1)).toMatchObject({
      role: "toolResult",
      toolName: "lookup",
    });
    expect(result.scores[0]).toMatchObject({ mean: 2 / 3, passHatK: false });
    expect(result.passed).toBe(false);
    expect(result.replies).toHaveLength(3);
  });

  it("a candidate prompt or tool set replaces the recorded one in step k's request", async () => {
    const recording = await recordRun();
    const candidate = scriptedModel([{ text: "ok" }]);
    await seamEval({
      recording,
      step: 0,
      candidate: { streamFn: candidate, systemPrompt: "Be terse.", tools: [] },
      scorers: [],
    });
    expect(candidate.calls[0]?.context).toMatchObject({ systemPrompt: "Be terse.", tools: [] });
  });

  it("a candidate that fails is scored as an error reply", async () => {
    const recording = await recordRun();
    const result = await seamEval({
      recording,
      step: 0,
      candidate: {
        streamFn: () => {
          throw new Error("no route to model");
        },
      },
      scorers: [trajectoryMatch()],
    });
    expect(result.replies[0]).toMatchObject({
      stopReason: "error",
      errorMessage: "the candidate failed: no route to model",
    });
    expect(result.passed).toBe(false);
  });

  it("replayExceptStep re-runs the agent with one decision changed and the rest replayed", async () => {
    const recording = await recordRun();
    const candidate = scriptedModel([{ text: "Hello means hi." }]);
    const agent = new Agent({
      model: testModel,
      streamFn: replayExceptStep(recording, 1, candidate),
      tools: [lookup],
    });
    const result = await agent.prompt("What does hello mean?");
    expect(result.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(result.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "Hello means hi." }] });
    expect(candidate.calls).toHaveLength(1);
  });

  it("rejects a step the recording does not hold", async () => {
    const recording = await recordRun();
    const candidate = { streamFn: scriptedModel([]) };
    await expect(seamEval({ recording, step: 2, candidate, scorers: [] })).rejects.toThrow(
      "step 2 is not in the recording: it holds 2 model calls (steps 0–1)",
    );
    expect(() => replayExceptStep(recording, -1, candidate.streamFn)).toThrow(EvalInputError);
    await expect(seamEval({ recording, step: 0, candidate, scorers: [], samples: 0 })).rejects.toThrow(
      "samples",
    );
  });
});

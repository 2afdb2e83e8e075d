import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type EvalSuite, readEvalDataset, runEval } from "../../src/evals.js";
import { Recording } from "../../src/replay/recording.js";
import { replayModel } from "../../src/replay/replay-model.js";
import { repoRoot } from "../support/cli-process.js";

afterEach(() => vi.unstubAllEnvs());

describe("the example eval on a recorded model", () => {
  it("records each case's run once, then scores the same on replays of the recordings, offline", async () => {
    vi.stubEnv("OPENAI_API_KEY", ""); // the suite goes online with a key
    const suite: EvalSuite = (await import("../../examples/evals/demo-suite.js")).default;
    const cases = await readEvalDataset(join(repoRoot, "examples/evals/demo.jsonl"));
    expect(cases).toHaveLength(20);

    const recordings = new Map<string, Recording>();
    const live = await runEval({
      cases,
      scorers: suite.scorers ?? [],
      agent: async (evalCase) => {
        const recording = new Recording();
        recordings.set(evalCase.id, recording);
        return { ...(await suite.agent(evalCase)), record: recording as never };
      },
    });
    const replayed = await runEval({
      cases,
      scorers: suite.scorers ?? [],
      agent: async (evalCase) => ({
        ...(await suite.agent(evalCase)),
        // Through the file format, as a fixture would be read.
        streamFn: replayModel(Recording.fromJSONL(recordings.get(evalCase.id)!.toJSONL())),
      }),
    });
    expect(live.passRate).toBe(1);
    expect(replayed.passRate).toBe(1);
    expect(replayed.cases.map((result) => [result.caseId, result.score])).toEqual(
      live.cases.map((result) => [result.caseId, result.score]),
    );
    expect(replayed.cases.map((result) => result.samples[0]?.text ?? null)).toEqual(
      live.cases.map((result) => result.samples[0]?.text ?? null),
    );
  });
});

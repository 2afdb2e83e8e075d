import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  applyScorer,
  containsText,
  createScorer,
  type EvalCase,
  EvalInputError,
  type EvalRun,
  evalRunOf,
  exactText,
  matchesPattern,
  matchesSchema,
  type TrajectoryMode,
  type TrajectoryStep,
  trajectoryMatch,
  withinBudget,
} from "../../src/evals.js";
import type { AssistantMessage } from "../../src/types/messages.js";
import { emptyUsage } from "../../src/types/messages.js";

function reply(text: string, calls: TrajectoryStep[] = [], tokens = 10): AssistantMessage {
  return {
    role: "assistant",
    content: [
      ...(text === "" ? [] : [{ type: "text" as const, text }]),
      ...calls.map((call, index) => ({
        type: "toolCall" as const,
        id: `call_${index}`,
        name: call.name,
        arguments: call.arguments ?? {},
      })),
    ],
    api: "scripted",
    provider: "test",
    model: "m",
    usage: { ...emptyUsage(), totalTokens: tokens, cost: { ...emptyUsage().cost, total: tokens / 1000 } },
    stopReason: calls.length > 0 ? "toolUse" : "stop",
    timestamp: 1,
  };
}

const runWith = (calls: TrajectoryStep[], text = "done"): EvalRun =>
  evalRunOf("case", [reply("", calls), reply(text)]);
const caseOf = (extra: Partial<EvalCase> = {}): EvalCase => ({ id: "case", input: "go", ...extra });

const ls = { name: "ls", arguments: { path: "." } };
const read = { name: "read", arguments: { path: "a.txt" } };
const write = { name: "write", arguments: { path: "b.txt" } };

describe("trajectoryMatch: agentevals' modes", () => {
  // [mode, the run's calls, the expected calls, score]
  const table: [TrajectoryMode, TrajectoryStep[], TrajectoryStep[], number][] = [
    ["strict", [ls, read], [ls, read], 1],
    ["strict", [read, ls], [ls, read], 0],
    ["strict", [ls], [ls, read], 0],
    ["strict", [ls, read, write], [ls, read], 0],
    ["unordered", [read, ls], [ls, read], 1],
    ["unordered", [read, ls, ls], [ls, read], 0],
    ["unordered", [read], [ls, read], 0],
    ["subset", [read], [ls, read], 1],
    ["subset", [], [ls, read], 1],
    ["subset", [read, write], [ls, read], 0],
    ["superset", [write, read, ls], [ls, read], 1],
    ["superset", [write, read], [ls, read], 0],
  ];
  it.each(table)("%s: %j against %j scores %d", async (mode, calls, expected, score) => {
    const verdict = await applyScorer(
      trajectoryMatch({ mode }),
      runWith(calls),
      caseOf({ expectedTrajectory: expected }),
    );
    expect(verdict?.score).toBe(score);
    expect(verdict?.scorer).toBe(`trajectory:${mode}`);
  });

  it("compares arguments only when asked, and an expected step without arguments matches any", async () => {
    const run = runWith([{ name: "read", arguments: { path: "other.txt" } }]);
    const expected = caseOf({ expectedTrajectory: [read] });
    expect((await applyScorer(trajectoryMatch(), run, expected))?.score).toBe(1);
    const strict = await applyScorer(trajectoryMatch({ arguments: true }), run, expected);
    expect(strict).toMatchObject({ score: 0, passed: false });
    expect(strict?.reason).toBe('call 1 is read({"path":"other.txt"}), expected read({"path":"a.txt"})');
    const loose = trajectoryMatch({ arguments: true, expected: [{ name: "read" }] });
    expect((await applyScorer(loose, run, caseOf()))?.score).toBe(1);
  });

  it("names what is missing or extra", async () => {
    const verdict = await applyScorer(
      trajectoryMatch({ mode: "superset" }),
      runWith([write]),
      caseOf({ expectedTrajectory: [ls] }),
    );
    expect(verdict?.reason).toBe("expected calls not made: [ls] (the run called [write])");
    const extra = await applyScorer(
      trajectoryMatch({ mode: "subset" }),
      runWith([write]),
      caseOf({ expectedTrajectory: [ls] }),
    );
    expect(extra?.reason).toBe("calls not expected: [write]");
  });

  it("does not apply to a case without an expected trajectory, and rejects an unknown mode", async () => {
    expect(await applyScorer(trajectoryMatch(), runWith([ls]), caseOf())).toBeNull();
    expect(() => trajectoryMatch({ mode: "exact" as TrajectoryMode })).toThrow(EvalInputError);
  });
});

describe("text, schema and budget scorers", () => {
  it("exactText compares trimmed text with the case's expected output", async () => {
    expect(
      (await applyScorer(exactText(), runWith([], " Paris\n"), caseOf({ expectedOutput: "Paris" })))?.score,
    ).toBe(1);
    const miss = await applyScorer(exactText(), runWith([], "Rome"), caseOf({ expectedOutput: "Paris" }));
    expect(miss).toMatchObject({ score: 0, reason: 'the text "Rome" is not "Paris"' });
    expect(await applyScorer(exactText(), runWith([], "Rome"), caseOf())).toBeNull();
  });

  it("containsText and matchesPattern look inside the final text", async () => {
    const run = runWith([], "The folder holds 12 entries.");
    expect((await applyScorer(containsText("12 entries"), run, caseOf()))?.score).toBe(1);
    expect((await applyScorer(containsText("FOLDER", { ignoreCase: true }), run, caseOf()))?.score).toBe(1);
    expect((await applyScorer(containsText("FOLDER"), run, caseOf()))?.score).toBe(0);
    const pattern = matchesPattern(/\d+ entries/g);
    expect((await applyScorer(pattern, run, caseOf()))?.score).toBe(1);
    expect((await applyScorer(pattern, run, caseOf()))?.score).toBe(1); // no lastIndex carried over
    expect((await applyScorer(matchesPattern(/^no/), run, caseOf()))?.score).toBe(0);
  });

  it("matchesSchema checks the typed output, or the text as JSON", async () => {
    const schema = z.object({ city: z.string(), celsius: z.number() });
    const typed = { ...runWith([], "ignored"), output: { city: "Paris", celsius: 21 } };
    expect((await applyScorer(matchesSchema(schema), typed, caseOf()))?.score).toBe(1);
    const text = runWith([], '{"city":"Paris","celsius":"warm"}');
    const verdict = await applyScorer(matchesSchema(schema), text, caseOf());
    expect(verdict?.score).toBe(0);
    expect(verdict?.reason).toContain("celsius");
    expect((await applyScorer(matchesSchema(schema), runWith([], "not json"), caseOf()))?.reason).toContain(
      "not JSON",
    );
  });

  it("withinBudget names each limit exceeded", async () => {
    const run = { ...runWith([ls, read]), latencyMs: 50 };
    expect(run.usage).toEqual({ tokens: 20, costUsd: 0.02, modelCalls: 2, toolCalls: 2 });
    expect(
      (await applyScorer(withinBudget({ maxTokens: 20, maxToolCalls: 2, maxLatencyMs: 50 }), run, caseOf()))
        ?.score,
    ).toBe(1);
    const over = await applyScorer(withinBudget({ maxModelCalls: 1, maxCostUsd: 0.01 }), run, caseOf());
    expect(over).toMatchObject({
      score: 0,
      reason: "maxCostUsd 0.01 exceeded: 0.02; maxModelCalls 1 exceeded: 2",
    });
    expect(() => withinBudget({ maxTokens: -1 })).toThrow(RangeError);
  });
});

describe("custom scorers", () => {
  it("a scorer that throws scores 0 with the error as its reason", async () => {
    const broken = createScorer({
      name: "broken",
      score: () => {
        throw new Error("boom");
      },
    });
    expect(await applyScorer(broken, runWith([]), caseOf())).toEqual({
      scorer: "broken",
      score: 0,
      reason: "the scorer threw: boom",
      passed: false,
    });
  });

  it("a score outside 0–1 scores 0; the threshold decides passing", async () => {
    const wild = createScorer({ name: "wild", score: () => ({ score: 3, reason: "" }) });
    expect((await applyScorer(wild, runWith([]), caseOf()))?.reason).toBe(
      "the scorer returned 3, not a score between 0 and 1",
    );
    const half = createScorer({
      name: "half",
      threshold: 0.5,
      score: async () => ({ score: 0.5, reason: "meh" }),
    });
    expect(await applyScorer(half, runWith([]), caseOf())).toMatchObject({ score: 0.5, passed: true });
    expect(() => createScorer({ name: "x", threshold: 2, score: () => null })).toThrow(RangeError);
  });
});

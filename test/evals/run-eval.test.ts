import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createScorer,
  type EvalAgent,
  type EvalCase,
  EvalInputError,
  enters,
  entersBefore,
  neverEnters,
  progressBar,
  runEval,
  runEvalCase,
  statePath,
  trajectoryMatch,
} from "../../src/evals.js";
import { agentMachine } from "../../src/machines.js";
import { machineTransitions, transitionLabel } from "../../src/testing/transition-coverage.js";
import { scriptedModel } from "../../src/testing.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { StreamFn } from "../../src/types/stream.js";
import { testModel } from "../support/loop-harness.js";

const echo = defineTool({
  name: "echo",
  description: "Echoes its text",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: [{ type: "text", text }] }),
});

/** A scripted agent that calls `echo` with the prompt, then answers with the tool's result. */
const echoAgent: EvalAgent = (evalCase) => ({
  model: testModel,
  streamFn: scriptedModel([
    { toolCalls: [{ name: "echo", arguments: { text: String(evalCase.input) } }] },
    (context) => {
      const result = context.messages.at(-1);
      return {
        text:
          result?.role === "toolResult" && result.content[0]?.type === "text" ? result.content[0].text : "?",
      };
    },
  ]),
  tools: [echo],
});

const cases: EvalCase[] = ["one", "two", "three"].map((word) => ({
  id: word,
  input: word,
  expectedOutput: word,
  expectedTrajectory: [{ name: "echo", arguments: { text: word } }],
}));

const echoes = createScorer({
  name: "echoes",
  score: (run, evalCase) =>
    run.text === evalCase.expectedOutput ? { score: 1, reason: "same" } : { score: 0, reason: run.text },
});

describe("runEval", () => {
  it("runs every case against a fresh agent and scores it per case, per scorer and overall", async () => {
    const result = await runEval({
      cases,
      agent: echoAgent,
      scorers: [trajectoryMatch({ arguments: true }), echoes],
      name: "echo",
    });
    expect(result).toMatchObject({ name: "echo", repeats: 1, score: 1, passRate: 1 });
    expect(result.cases.map((entry) => [entry.caseId, entry.passed, entry.samples[0]?.text])).toEqual([
      ["one", true, "one"],
      ["two", true, "two"],
      ["three", true, "three"],
    ]);
    expect(result.scorers).toEqual([
      { scorer: "trajectory:strict", mean: 1, passRate: 1, cases: 3 },
      { scorer: "echoes", mean: 1, passRate: 1, cases: 3 },
    ]);
    expect(result.cases[0]?.samples[0]?.toolCalls).toEqual([{ name: "echo", arguments: { text: "one" } }]);
  });

  it("reports the mean, spread and pass^k of repeated samples", async () => {
    let runs = 0;
    // Every other run answers wrongly: 2 samples of one case, one right and one wrong.
    const flaky: EvalAgent = () => ({
      model: testModel,
      streamFn: scriptedModel([{ text: runs++ % 2 === 0 ? "one" : "uno" }]),
    });
    const result = await runEval({
      cases: [{ id: "one", input: "one", expectedOutput: "one" }],
      agent: flaky,
      scorers: [echoes],
      repeats: 2,
    });
    const [score] = result.cases[0]?.scores ?? [];
    expect(score).toMatchObject({ scorer: "echoes", mean: 0.5, spread: 0.5, passHatK: false });
    expect(score?.samples.map((sample) => sample.passed)).toEqual([true, false]);
    expect(result.cases[0]).toMatchObject({ passed: false, score: 0.5 });
    expect(result.passRate).toBe(0);
  });

  it("runs at most `concurrency` cases at once", async () => {
    let active = 0;
    let most = 0;
    let finished = 0;
    const waiting: (() => void)[] = [];
    const total = 5;
    // Each model call waits until as many calls as can run at once have arrived: so the runner must
    // start 2 cases together, and a third never joins them.
    const gated: StreamFn = (model, context, options) => {
      active++;
      most = Math.max(most, active);
      return new Promise((resolve) => {
        waiting.push(() => resolve(scriptedModel([{ text: "ok" }])(model, context, options)));
        if (waiting.length === Math.min(2, total - finished)) {
          for (const release of waiting.splice(0)) {
            active--;
            finished++;
            release();
          }
        }
      });
    };
    const many = Array.from({ length: total }, (_, index) => ({ id: `c${index}`, input: "go" }));
    const result = await runEval({
      cases: many,
      agent: () => ({ model: testModel, streamFn: gated }),
      scorers: [],
      concurrency: 2,
    });
    expect(most).toBe(2);
    expect(result.cases.map((entry) => entry.caseId)).toEqual(["c0", "c1", "c2", "c3", "c4"]);
  });

  it("reports an agent that throws or fails in its case, scoring it 0, and runs the other cases", async () => {
    const agent: EvalAgent = (evalCase) => {
      if (evalCase.id === "throws") throw new Error("no agent for you");
      return {
        model: testModel,
        streamFn: scriptedModel([evalCase.id === "fails" ? { error: "model down" } : { text: "fine" }]),
      };
    };
    const result = await runEval({
      cases: [
        { id: "throws", input: "x", expectedOutput: "fine" },
        { id: "fails", input: "x", expectedOutput: "fine" },
        { id: "fine", input: "x", expectedOutput: "fine" },
      ],
      agent,
      scorers: [echoes],
    });
    expect(result.cases.map((entry) => [entry.caseId, entry.score, entry.passed, entry.error])).toEqual([
      ["throws", 0, false, "no agent for you"],
      ["fails", 0, false, "model down"],
      ["fine", 1, true, undefined],
    ]);
  });

  it("a scorer that throws scores 0 in every case and the run goes on", async () => {
    const broken = createScorer({
      name: "broken",
      score: () => {
        throw new Error("bad scorer");
      },
    });
    const result = await runEval({ cases, agent: echoAgent, scorers: [broken, echoes] });
    expect(result.scorers.map((entry) => [entry.scorer, entry.mean])).toEqual([
      ["broken", 0],
      ["echoes", 1],
    ]);
    expect(result.cases[0]?.scores[0]?.samples[0]?.reason).toBe("the scorer threw: bad scorer");
    expect(result.score).toBe(0.5);
  });

  it("rejects bad options before running anything", async () => {
    await expect(runEval({ cases, agent: echoAgent, scorers: [], concurrency: 0 })).rejects.toThrow(
      EvalInputError,
    );
    await expect(runEval({ cases, agent: echoAgent, scorers: [], repeats: 1.5 })).rejects.toThrow("repeats");
    await expect(runEval({ cases, agent: echoAgent, scorers: [echoes, echoes] })).rejects.toThrow(
      'two scorers are named "echoes"',
    );
  });
});

describe("approvals", () => {
  const guarded = defineTool({
    name: "guarded",
    description: "Echoes, once approved",
    parameters: z.object({ text: z.string() }),
    requiresApproval: true,
    execute: async ({ text }) => ({ content: [{ type: "text", text }] }),
  });
  const guardedAgent: EvalAgent = () => ({
    model: testModel,
    streamFn: scriptedModel([
      { toolCalls: [{ name: "guarded", arguments: { text: "hi" } }] },
      { text: "done" },
    ]),
    tools: [guarded],
  });

  it("approves calls by default, so the state path shows the approval before the execution", async () => {
    const result = await runEval({
      cases: [{ id: "a", input: "go" }],
      agent: guardedAgent,
      scorers: [
        statePath("approval first", entersBefore("awaitingApproval", "executing")),
        statePath("asked", enters("awaitingApproval")),
      ],
    });
    expect(result.cases[0]?.scores.map((score) => score.mean)).toEqual([1, 1]);
    expect(result.cases[0]?.samples[0]?.text).toBe("done");
  });

  it("denies with the policy's reason, and the tool never runs", async () => {
    const asked: unknown[] = [];
    const run = await runEvalCase(
      guardedAgent,
      { id: "a", input: "go" },
      {
        approve: (request) => {
          asked.push(request);
          return "not in evals";
        },
      },
    );
    expect(asked).toEqual([{ toolName: "guarded", args: { text: "hi" } }]);
    expect(run.path.some((step) => step.state === "executing")).toBe(false);
    const result = run.messages.find((message) => message.role === "toolResult");
    expect(JSON.stringify(result)).toContain("not in evals");
  });
});

describe("states, transitions and coverage", () => {
  it("records the agent machine's and each tool call's states through inspection", async () => {
    const run = await runEvalCase(echoAgent, { id: "one", input: "one" });
    const agentStates = run.path.filter((step) => step.actor === "agent").map((step) => step.state);
    expect(agentStates[0]).toBe("idle");
    expect(agentStates.at(-1)).toBe("idle");
    expect(agentStates).toContain("running.streaming.released");
    const toolActor = run.path.find((step) => step.actor !== "agent")?.actor;
    expect(run.path.filter((step) => step.actor === toolActor).map((step) => step.state)).toContain(
      "executing",
    );
    expect(run.transitions[0]).toBe("agent.idle: PROMPT → agent.running");
  });

  it("scores state-path checks, composing with the agent's own inspect", async () => {
    let inspected = 0;
    const agent: EvalAgent = (evalCase) =>
      ({ ...(echoAgent(evalCase) as object), inspect: () => void inspected++ }) as never;
    const result = await runEval({
      cases: [cases[0] as EvalCase],
      agent,
      scorers: [
        statePath("prepared first", entersBefore("preparing", "executing")),
        statePath("no approval asked", neverEnters("awaitingApproval")),
        statePath("never ran", neverEnters("executing")),
      ],
    });
    expect(inspected).toBeGreaterThan(0);
    expect(result.cases[0]?.scores.map((score) => [score.scorer, score.mean])).toEqual([
      ["prepared first", 1],
      ["no approval asked", 1],
      ["never ran", 0],
    ]);
    expect(result.cases[0]?.scores[2]?.samples[0]?.reason).toMatch(
      /^call_\w+ entered executing \(on EXECUTE\)$/,
    );
  });

  it("reports the agent machine's transitions no case exercised", async () => {
    const result = await runEval({ cases, agent: echoAgent, scorers: [] });
    const defined = new Set(machineTransitions(agentMachine).map(transitionLabel));
    expect(result.coverage.total).toBe(defined.size);
    expect(result.coverage.exercised).toBe(defined.size - result.coverage.missed.length);
    expect(result.coverage.missed).not.toContain("agent.idle: PROMPT → agent.running");
    expect(result.coverage.missed).toContain("agent.idle: CONTINUE [canContinue] → agent.running");
  });
});

describe("progressBar", () => {
  it("draws on a TTY only", () => {
    let drawn = "";
    const bar = progressBar({ isTTY: true, write: (text: string) => (drawn += text) }, 2);
    bar.tick(true);
    bar.tick(false);
    bar.done();
    expect(drawn.split("\r").at(-1)).toBe(`[${"#".repeat(30)}] 2/2 cases, 1 failed\n`);
    let piped = "";
    const silent = progressBar({ isTTY: false, write: (text: string) => (piped += text) }, 2);
    silent.tick(true);
    silent.done();
    expect(piped).toBe("");
  });
});

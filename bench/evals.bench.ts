// The eval runner's own overhead per case (issue 29: < 1 ms beyond the agent run). The same 200
// cases — a scripted model that calls one tool, then answers — run bare (a fresh Agent and one
// `prompt` per case, one after another) and through `runEval` (concurrency 1, state recording through
// XState's inspection, trajectory and text scorers, the summaries and coverage). Same process,
// round-robin, CPU time of this process (the box is shared); the overhead is the paired difference per
// round, divided by the cases.
//
//   node --expose-gc --import tsx bench/evals.bench.ts [--rounds N]
import { existsSync } from "node:fs";
import { z } from "zod";
import { AGENTCHART_BUILD, core, testing } from "./agentchart-build.js";
import { fmt, fmtSummary, roundRobin, summarize, table } from "./common.js";

type Evals = typeof import("../src/evals.js");
const distEvals = new URL("../dist/evals.js", import.meta.url);
const evals = (await (AGENTCHART_BUILD.startsWith("dist") && existsSync(distEvals)
  ? import(distEvals.href)
  : import("../src/evals.js"))) as Evals;

const argv = process.argv.slice(2);
const rounds = argv.includes("--rounds") ? Number(argv[argv.indexOf("--rounds") + 1]) : 10;
const CASES = 200;

const model = { id: "bench", api: "scripted", provider: "bench", contextWindow: 100_000, maxTokens: 1_000 };
const echo = core.defineTool({
  name: "echo",
  description: "Echoes its text",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: [{ type: "text", text }] }),
});
const optionsFor = (word: string) => ({
  model,
  streamFn: testing.scriptedModel([
    { toolCalls: [{ name: "echo", arguments: { text: word } }] },
    { text: word },
  ]),
  tools: [echo],
});
const cases = Array.from({ length: CASES }, (_, index) => ({
  id: `case-${index}`,
  input: `word${index}`,
  expectedOutput: `word${index}`,
  expectedTrajectory: [{ name: "echo", arguments: { text: `word${index}` } }],
}));

/** This process's CPU time in ms (user + system): on a shared box, less disturbed than wall time. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function bare(): Promise<number> {
  const start = cpuMs();
  for (const evalCase of cases) {
    const agent = new core.Agent(optionsFor(evalCase.input));
    const result = await agent.prompt(evalCase.input);
    if (result.stopReason !== "stop") throw new Error(`bare run stopped: ${result.stopReason}`);
  }
  return (cpuMs() - start) / CASES;
}

async function throughRunner(): Promise<number> {
  const start = cpuMs();
  const result = await evals.runEval({
    cases,
    agent: (evalCase) => optionsFor(evalCase.input as string),
    scorers: [evals.trajectoryMatch({ arguments: true }), evals.exactText()],
    concurrency: 1,
  });
  if (result.score !== 1) throw new Error(`the eval scored ${result.score}`);
  return (cpuMs() - start) / CASES;
}

const figures = await roundRobin(
  [
    { name: "bare", measure: bare },
    { name: "runEval", measure: throughRunner },
  ],
  { rounds, warmup: 2, log: (text) => process.stderr.write(`${text}\n`) },
);
const bareMs = figures.get("bare")!;
const evalMs = figures.get("runEval")!;
const overhead = summarize(evalMs.map((value, index) => value - bareMs[index]!));
console.log(`### Per case, ${CASES} cases of one tool call and an answer, ms of CPU time\n`);
console.log(
  table(
    ["run", "ms per case", "overhead per case", "target"],
    [
      ["bare (new Agent + prompt)", fmtSummary(summarize(bareMs)), "—", "baseline"],
      [
        "runEval (2 scorers, states recorded)",
        fmtSummary(summarize(evalMs)),
        `**${fmt(overhead.median)} ms** (${fmt(overhead.min)}–${fmt(overhead.max)})`,
        "< 1 ms",
      ],
    ],
  ),
);
console.log(`\nbuild: ${AGENTCHART_BUILD}; rounds ${rounds}.`);

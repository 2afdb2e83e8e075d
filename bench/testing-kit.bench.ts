// The model-based testing kit (issue 29): a 2-tool agent whose tools both need approval, one reply
// calling both, then a text answer; the kit explores its outside model (follow-ups and throwing tools
// off: 787 paths) and runs every path against the real agent machine, with the invariants and the
// persist/restore check after every step. Target: at least 200 paths explored and run in under 30 s.
// Baseline, same process: as many bare runs of the same agent (createActor, PROMPT, both calls
// approved, answer; no kit, no checks) — what the paths would cost without the kit's checks.
//
//   node --expose-gc --import tsx bench/testing-kit.bench.ts [--rounds N]
import { createActor, waitFor } from "xstate";
import { z } from "zod";
import { AGENTCHART_BUILD, core, machines, testing } from "./agentchart-build.js";
import { fmtSummary, summarize, table } from "./common.js";

const argv = process.argv.slice(2);
const rounds = argv.includes("--rounds") ? Number(argv[argv.indexOf("--rounds") + 1]) : 3;

const tool = (name: string) =>
  core.defineTool({
    name,
    description: `The ${name} tool`,
    parameters: z.object({ city: z.string() }),
    requiresApproval: true,
    execute: async ({ city }: { city: string }) => ({
      content: [{ type: "text" as const, text: `${name} ${city}` }],
    }),
  });
const tools = [tool("weather"), tool("book")];
const script = [
  {
    toolCalls: [
      { name: "weather", arguments: { city: "Oslo" } },
      { name: "book", arguments: { city: "Oslo" } },
    ],
  },
  { text: "Booked, and it will rain." },
];
const model = {
  id: "scripted",
  api: "scripted",
  provider: "scripted",
  contextWindow: 100_000,
  maxTokens: 4_096,
};

/** Milliseconds to explore the paths and to run them all; the number of paths. */
async function kitRound(): Promise<{ explore: number; run: number; paths: number }> {
  const start = performance.now();
  const kit = testing.createAgentTestModel({
    agent: { tools },
    script,
    explore: { followUp: false, toolThrows: false },
    maxPaths: 1000,
  });
  const { paths, exceeded } = kit.explore();
  if (exceeded) throw new Error("the bench's exploration hit its bounds");
  const explored = performance.now();
  for (const path of paths) await kit.runPath(path);
  return { explore: explored - start, run: performance.now() - explored, paths: paths.length };
}

/** Milliseconds for `count` bare runs: prompt, approve both calls, answer. */
async function bareRound(count: number): Promise<number> {
  const start = performance.now();
  for (let index = 0; index < count; index++) {
    const machine = machines.createAgentMachine({ streamFn: testing.scriptedModel(script), tools });
    const actor = createActor(machine, { input: { model } });
    actor.on("tool_approval_request", (event) =>
      actor.send({ type: "APPROVE_TOOL", toolCallId: event.toolCallId }),
    );
    actor.start();
    actor.send({ type: "PROMPT", messages: [{ role: "user", content: "go", timestamp: Date.now() }] });
    await waitFor(actor, (snapshot) => snapshot.matches("idle") && snapshot.context.messages.length === 5);
    actor.stop();
  }
  return performance.now() - start;
}

const explore: number[] = [];
const run: number[] = [];
const bare: number[] = [];
let paths = 0;
for (let round = 0; round < rounds; round++) {
  const kit = await kitRound();
  paths = kit.paths;
  explore.push(kit.explore);
  run.push(kit.run);
  bare.push(await bareRound(paths));
}
const perPath = (values: number[]) => summarize(values.map((value) => value / paths));
console.log(`agentchart build: ${AGENTCHART_BUILD}; ${rounds} rounds; ${paths} paths per round\n`);
console.log(
  table(
    ["row", "median (min–max)"],
    [
      ["kit: explore (outside model, xstate/graph), ms", fmtSummary(summarize(explore))],
      ["kit: run every path (checks after every step), ms", fmtSummary(summarize(run))],
      [
        "kit: explore + run, s (target < 30 s for ≥ 200 paths)",
        fmtSummary(summarize(explore.map((e, i) => (e + run[i]!) / 1000))),
      ],
      ["kit: ms per path", fmtSummary(perPath(run))],
      ["baseline: bare run (approve both, answer), ms per run", fmtSummary(perPath(bare))],
    ],
  ),
);

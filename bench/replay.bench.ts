// Recording overhead: fresh agents each answering one prompt (4 tool calls, then a 20-delta answer, from
// the zero-latency faux) with `record: true`, against the same agents without it (target ≤ 1.2×), and
// the recording's `toJSONL()` on top. Same process, round-robin, paired ratios (bench/README.md).
//
//   node --expose-gc --import tsx bench/replay.bench.ts [--rounds N] [--n N] [--clock cpu]
// (`--clock cpu`: the process's CPU time instead of wall time, less distorted on a shared machine.)
import { AGENTCHART_BUILD, core } from "./agentchart-build.js";
import { fmtRatio, fmtSummary, pairedRatio, roundRobin, summarize, table } from "./common.js";
import { FAUX_MODEL, type Script } from "./faux.js";
import { ourFauxStreamFn, ourTools } from "./loop-runners.js";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback;
const rounds = option("--rounds", 15);
const agents = option("--n", 200);
const cpuClock = argv.includes("--clock") && argv[argv.indexOf("--clock") + 1] === "cpu";
const now = cpuClock
  ? () => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1000;
    }
  : () => performance.now();
const script: Script = { tools: 4, deltas: 20 };
let lines = 0;

/** Milliseconds per prompt: `agents` fresh agents, each prompted once. */
async function timed(record: boolean, write = false): Promise<number> {
  const start = now();
  for (let index = 0; index < agents; index++) {
    const agent = new core.Agent({
      model: FAUX_MODEL as never,
      streamFn: ourFauxStreamFn(script),
      tools: ourTools,
      record,
    });
    await agent.prompt("go");
    if (write) lines += agent.recording!.toJSONL().length;
  }
  return (now() - start) / agents;
}

const figures = await roundRobin(
  [
    { name: "bare", measure: () => timed(false) },
    { name: "record", measure: () => timed(true) },
    { name: "record + toJSONL", measure: () => timed(true, true) },
  ],
  { rounds, warmup: 3, log: (text) => process.stderr.write(`${text}\n`) },
);
const get = (name: string) => figures.get(name)!;
const rows = ["record", "record + toJSONL"].map((name) => {
  const ratio = pairedRatio(get(name), get("bare"));
  const target = name === "record" ? "≤ 1.2×" : "—";
  const verdict = name === "record" ? (ratio.median <= 1.2 ? "met" : "**missed**") : "";
  return [
    name === "record" ? "`record: true`" : "`record: true` + `toJSONL()`",
    fmtSummary(summarize(get(name))),
    "no `record`",
    fmtSummary(summarize(get("bare"))),
    `**${fmtRatio(ratio)}**`,
    target,
    verdict,
  ];
});
console.log(
  `### Recording overhead: one prompt (4 tool calls, 20 text deltas) of a fresh agent, ms per prompt\n`,
);
console.log(table(["run", "ms", "baseline", "ms", "ratio", "target", ""], rows));
console.log(
  `\n${agents} agents per measurement; ${cpuClock ? "CPU" : "wall"} time; build: ${AGENTCHART_BUILD}; rounds ${rounds}.${lines < 0 ? "" : ""}`,
);

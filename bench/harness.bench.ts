// Harness benchmark: 1,000 scripted turns through AgentHarness persisting to a JSONL session (temp dir)
// vs the same turns on a bare Agent without a session, in the same process. Round-robin rounds with
// forced GC and a quiet-machine wait; wall and CPU time (`process.cpuUsage`, user + system) per
// variant, medians (min–max) and medians of the paired per-round ratios.
//
//   node --expose-gc --import tsx bench/harness.bench.ts [--rounds N] [--turns N] [--only agent|harness]
//
// `--only` runs one variant without the quiet waits (for `--cpu-prof`).
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, AgentHarness, type Model } from "../src/index.js";
import { JsonlSessionRepo } from "../src/node.js";
import { type ScriptedTurn, scriptedModel } from "../src/testing.js";
import { canGc, fmt, fmtSummary, pairedRatio, quietStats, roundRobin, summarize, table } from "./common.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
}
const onlyIndex = process.argv.indexOf("--only");
const only = onlyIndex > 0 ? process.argv[onlyIndex + 1] : undefined;
const TURNS = option("turns", 1_000);
const ROUNDS = option("rounds", 9);

const model: Model = {
  id: "bench",
  api: "scripted",
  provider: "scripted",
  contextWindow: 1e9,
  maxTokens: 4096,
};
const reply: ScriptedTurn = { text: "The answer is a short paragraph of text for the benchmark.", deltas: 4 };
const script = () => scriptedModel(Array.from({ length: TURNS }, () => reply));
const root = mkdtempSync(join(tmpdir(), "agentchart-harness-bench-"));

/** Wall and CPU milliseconds of one measurement. */
interface Timing {
  wall: number;
  cpu: number;
}

async function timed(run: () => Promise<void>): Promise<Timing> {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  await run();
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

async function bareAgent(): Promise<Timing> {
  const agent = new Agent({ model, streamFn: script(), systemPrompt: "You are a helpful assistant." });
  return timed(async () => {
    for (let i = 0; i < TURNS; i++) await agent.prompt(`Question ${i}`);
  });
}

async function harnessWithJsonl(): Promise<Timing> {
  const session = await new JsonlSessionRepo({ root }).create({ cwd: root });
  const harness = new AgentHarness({ session, model, streamFn: script() });
  const timing = await timed(async () => {
    for (let i = 0; i < TURNS; i++) await harness.prompt(`Question ${i}`);
  });
  await session.close();
  return timing;
}

if (only !== undefined) {
  const run = only === "agent" ? bareAgent : harnessWithJsonl;
  const timings: Timing[] = [];
  for (let round = 0; round < ROUNDS; round++) timings.push(await run());
  rmSync(root, { recursive: true, force: true });
  const wall = summarize(timings.map((timing) => timing.wall));
  console.log(`${only}: ${fmtSummary(wall)} ms per ${TURNS} turns (wall)`);
  process.exit(0);
}

const cpu = new Map<string, number[]>([
  ["agent", []],
  ["harness", []],
]);
const record = (name: string, timing: Timing) => {
  cpu.get(name)!.push(timing.cpu);
  return timing.wall;
};
const load = loadavg()[0]!;
const wall = await roundRobin(
  [
    { name: "agent", measure: async () => record("agent", await bareAgent()) },
    { name: "harness", measure: async () => record("harness", await harnessWithJsonl()) },
  ],
  { rounds: ROUNDS, warmup: 1 },
);
rmSync(root, { recursive: true, force: true });
// roundRobin keeps the figures of measured rounds only; drop the warm-up CPU figures the same way.
for (const values of cpu.values()) values.splice(0, values.length - ROUNDS);

const perTurn = (ms: number) => (ms / TURNS) * 1000;
const perTurnSummary = (values: number[]) => fmtSummary(summarize(values.map(perTurn)));
const rows = ["agent", "harness"].map((name) => [
  name === "agent" ? "bare Agent, no session" : "AgentHarness + JSONL session",
  perTurnSummary(wall.get(name)!),
  perTurnSummary(cpu.get(name)!),
]);
const wallRatio = pairedRatio(wall.get("harness")!, wall.get("agent")!);
const cpuRatio = pairedRatio(cpu.get("harness")!, cpu.get("agent")!);
rows.push([
  "ratio (paired, per round)",
  `${fmt(wallRatio.median)}× (${fmt(wallRatio.min)}–${fmt(wallRatio.max)})`,
  `${fmt(cpuRatio.median)}× (${fmt(cpuRatio.min)}–${fmt(cpuRatio.max)})`,
]);
console.log(
  `${TURNS} turns, ${ROUNDS} rounds (+1 warm-up), gc ${canGc ? "forced" : "unavailable"}, ` +
    `load average at start ${load.toFixed(1)}, quiet waits timed out ${quietStats.timeouts}/${quietStats.waits}`,
);
console.log(table(["path", "wall µs per turn", "CPU µs per turn"], rows));

// Loop benchmark: agentchart (Agent, agentLoop) against pi-agent-core 0.73.1 (Agent, runAgentLoop), the
// peers a user would pick instead (the AI SDK's ToolLoopAgent, OpenAI Agents JS, LangGraph.js's
// createReactAgent; bench/peer-*.ts) and a bare async loop, all fed by the same zero-latency faux LLM,
// in the same process, round-robin.
//
//   node --expose-gc --import tsx bench/loop.bench.ts [--only 1,2,…] [--rounds N] [--quick] [--n N]
//        [--agents N] [--warmup N] [--clock cpu] [--runners "agentchart Agent,pi Agent"] [--json out.json]
//
// Scenario 5 runs each (runner, round) in a child process: `--child concurrency --runner NAME`.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import {
  canGc,
  fmt,
  fmtRatio,
  fmtSummary,
  forceGc,
  median,
  pairedRatio,
  quietStats,
  roundRobin,
  type Summary,
  summarize,
  table,
  type Variant,
} from "./common.js";
import { buildHistory, type Script } from "./faux.js";
import {
  AGENTCHART_BUILD,
  AI_SDK,
  allRunners,
  LANGGRAPH,
  messagesPerPrompt,
  OPENAI_AGENTS,
  PI_MISSING_MESSAGE,
  piInstalled,
  type Runner,
} from "./loop-runners.js";

const OURS = "agentchart Agent";
const OURS_LOOP = "agentchart agentLoop";
const OURS_SCRIPTED = "agentchart Agent (scriptedModel)";
const PI = "pi Agent";
const PI_LOOP = "pi runAgentLoop";
const BARE = "bare loop";
/** The peers a user would pick instead of agentchart, other than pi (targets: ahead of each of them). */
const OTHER_PEERS = [AI_SDK, OPENAI_AGENTS, LANGGRAPH];
/** Column order of the peer table. */
const PEER_TABLE = [OURS, PI, ...OTHER_PEERS, BARE];

// ---------------------------------------------------------------------------------------------------
// arguments

const argv = process.argv.slice(2);
function arg(name: string): string | undefined {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? argv[index + 1] : undefined;
}
const flag = (name: string) => argv.includes(`--${name}`);
const quick = flag("quick");
const only = new Set((arg("only") ?? "1,2,3,4,5,6,7").split(",").map((s) => s.trim()));
const roundsArg = arg("rounds") ? Number(arg("rounds")) : undefined;
/** Fresh agents per measurement in scenarios 1, 2 and 3 (the slowest peers take milliseconds per turn). */
const runsArg = arg("n") ? Number(arg("n")) : undefined;
const runnerFilter = arg("runners")
  ?.split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const log = (text: string) => process.stderr.write(`${text}\n`);
/**
 * The clock of scenarios 1-3, in ms: wall time (default), or with `--clock cpu` this process's CPU time
 * (user + system, `process.cpuUsage`), which a machine shared with other jobs inflates far less.
 */
const cpuClock = arg("clock") === "cpu";
const clock = cpuClock
  ? () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    }
  : () => performance.now();

const TEXT: Script = { tools: 0, deltas: 20 };
const TOOLS: Script = { tools: 4, deltas: 20 };

// ---------------------------------------------------------------------------------------------------
// measurements

/** Runs `n` fresh agents one after another, each awaiting one prompt; µs per run. */
function perRun(runner: Runner, script: Script, n: number): Variant {
  return {
    name: runner.name,
    measure: async () => {
      let deltas = 0;
      const onTextDelta = () => {
        deltas++;
      };
      const expectedMessages = messagesPerPrompt(runner, script);
      // The check is inside the clock: reading a transcript's length costs < 1 % of the cheapest turn.
      const start = clock();
      for (let index = 0; index < n; index++) {
        const agent = runner.create({ script, onTextDelta });
        await agent.prompt("hello");
        checkTranscript(runner, agent.messageCount(), expectedMessages);
      }
      const elapsed = clock() - start;
      if (deltas !== n * script.deltas)
        throw new Error(`${runner.name}: ${deltas} text deltas, expected ${n * script.deltas}`);
      return (elapsed * 1000) / n;
    },
  };
}

/** Throws when an agent's transcript does not hold the entries its prompts should have added. */
function checkTranscript(runner: Runner, actual: number, expected: number): void {
  if (actual !== expected)
    throw new Error(`${runner.name}: ${actual} transcript entries, expected ${expected}`);
}

/** ns per delivered delta: `runs` fresh agents, each one reply of `deltas` deltas. */
function perDelta(runner: Runner, deltas: number, runs: number): Variant {
  const script: Script = { tools: 0, deltas };
  return {
    name: runner.name,
    measure: async () => {
      let seen = 0;
      const onTextDelta = () => {
        seen++;
      };
      let elapsed = 0;
      for (let index = 0; index < runs; index++) {
        const agent = runner.create({ script, onTextDelta });
        const start = clock();
        await agent.prompt("hello");
        elapsed += clock() - start;
        checkTranscript(runner, agent.messageCount(), messagesPerPrompt(runner, script));
      }
      if (seen !== runs * deltas)
        throw new Error(`${runner.name}: ${seen} deltas, expected ${runs * deltas}`);
      return (elapsed * 1e6) / (runs * deltas);
    },
  };
}

/** µs per text turn for 5 agents holding `history` prebuilt messages, 200 turns in all. */
function perTurnWithHistory(runner: Runner, history: number, turns: number): Variant {
  return {
    name: runner.name,
    measure: async () => {
      let deltas = 0;
      const onTextDelta = () => {
        deltas++;
      };
      const agents = Array.from({ length: 5 }, (_, seed) =>
        runner.create({ script: TEXT, history: buildHistory(history, seed), onTextDelta }),
      );
      forceGc(); // promote the histories before the clock starts
      const start = performance.now();
      for (let index = 0; index < turns; index++) await agents[index % agents.length]!.prompt("hello");
      const elapsed = performance.now() - start;
      if (deltas !== turns * TEXT.deltas) throw new Error(`${runner.name}: wrong delta count ${deltas}`);
      const expected = history + (turns / agents.length) * 2;
      if (agents[0]!.messageCount() !== expected)
        throw new Error(`${runner.name}: ${agents[0]!.messageCount()} messages, expected ${expected}`);
      return (elapsed * 1000) / turns;
    },
  };
}

/** Bytes of heap per idle agent holding 100 distinct messages (1,000 agents, after GC). */
function heapPerAgent(
  name: string,
  make: (seed: number) => unknown | Promise<unknown>,
  count: number,
): Variant {
  return {
    name,
    measure: async () => {
      forceGc();
      const before = process.memoryUsage().heapUsed;
      const held: unknown[] = [];
      for (let index = 0; index < count; index++) held.push(await make(index));
      forceGc();
      const after = process.memoryUsage().heapUsed;
      if (held.length !== count) throw new Error("unreachable");
      return (after - before) / count;
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// results

interface Figure {
  /** Figure label for the summary table. */
  label: string;
  unit: string;
  ours?: Summary;
  pi?: Summary;
  bare?: Summary;
  oursVsPi?: Summary;
  oursVsBare?: Summary;
  target?: string;
  /** Whether the target is met (undefined: no target or not computable). */
  met?: boolean;
  /** Every runner's figures by round (for the peer table). */
  byRunner: Map<string, number[]>;
  /** The runner the figure is about (agentchart's Agent, or its loop function). */
  oursName: string;
  /** The target also asks agentchart to be ahead of every other peer (paired ratio < 1). */
  aheadOfPeers?: boolean;
}

const figures: Figure[] = [];
const sections: string[] = [];
const raw: Record<string, unknown> = {};

function section(title: string, body: string) {
  const text = `### ${title}\n\n${body}\n`;
  sections.push(text);
  console.log(`\n${text}`);
}

/** Per-runner rows for one scenario: median (min–max), × pi Agent and × bare (paired). */
function runnerTable(results: Map<string, number[]>, unit: string, piName = PI): string {
  const rows: string[][] = [];
  const pi = results.get(piName);
  const bareValues = results.get(BARE);
  for (const [name, values] of results) {
    rows.push([
      name,
      fmtSummary(summarize(values)),
      pi ? fmtRatio(pairedRatio(values, pi)) : "—",
      bareValues ? fmtRatio(pairedRatio(values, bareValues)) : "—",
    ]);
  }
  return table(["runner", unit, `× ${piName}`, "× bare"], rows);
}

function figure(
  label: string,
  unit: string,
  results: Map<string, number[]>,
  target?: { maxVsPi: number; text: string; aheadOfPeers?: boolean },
  oursName = OURS,
  piName = PI,
): Figure {
  const ours = results.get(oursName);
  const pi = results.get(piName);
  const bareValues = results.get(BARE);
  const fig: Figure = {
    label,
    unit,
    ours: ours && summarize(ours),
    pi: pi && summarize(pi),
    bare: bareValues && summarize(bareValues),
    oursVsPi: ours && pi ? pairedRatio(ours, pi) : undefined,
    oursVsBare: ours && bareValues ? pairedRatio(ours, bareValues) : undefined,
    target: target?.text,
    byRunner: results,
    oursName,
    aheadOfPeers: target?.aheadOfPeers,
  };
  if (target && fig.oursVsPi) fig.met = fig.oursVsPi.median <= target.maxVsPi && aheadOfPeers(fig) !== false;
  figures.push(fig);
  return fig;
}

/** Whether agentchart is ahead of every other peer measured (undefined: not asked, or none measured). */
function aheadOfPeers(fig: Figure): boolean | undefined {
  const ours = fig.byRunner.get(OURS);
  const peers = OTHER_PEERS.map((name) => fig.byRunner.get(name)).filter((values) => values !== undefined);
  if (!fig.aheadOfPeers || !ours || peers.length === 0) return undefined;
  return peers.every((values) => pairedRatio(ours, values).median < 1);
}

// ---------------------------------------------------------------------------------------------------
// scenarios

async function scenarioTurns(runners: Runner[], which: "text" | "tool") {
  const script = which === "text" ? TEXT : TOOLS;
  const n = runsArg ?? (quick ? 300 : which === "text" ? 2000 : 1000);
  const rounds = roundsArg ?? (quick ? 3 : 5);
  log(`scenario ${which === "text" ? 1 : 2}: ${which} turn, ${n} runs × ${rounds} rounds`);
  const results = await roundRobin(
    runners.map((runner) => perRun(runner, script, n)),
    { rounds, warmup: 2, log },
  );
  raw[`turn_${which}`] = Object.fromEntries(results);
  const title =
    which === "text"
      ? `1. Framework overhead per turn (fresh agent, prompt → 20-delta text reply), µs per run, N = ${n}`
      : `2. Tool round-trip (fresh agent, prompt → 4 parallel tool calls → 20-delta answer), µs per run, N = ${n}`;
  section(title, runnerTable(results, "µs / run"));
  const label = which === "text" ? "1. per text turn" : "2. per tool round-trip";
  const maxVsPi = which === "text" ? 3.0 : 4.0;
  figure(label, "µs", results, {
    maxVsPi,
    text: `≤ ${maxVsPi.toFixed(1)}× pi, ahead of the other peers`,
    aheadOfPeers: true,
  });
  if (results.has(OURS_LOOP) && results.has(PI_LOOP))
    figure(`${label} (loop fn)`, "µs", results, undefined, OURS_LOOP, PI_LOOP);
}

async function scenarioDelta(runners: Runner[]) {
  const deltas = 10_000;
  const runs = runsArg ?? (quick ? 3 : 10);
  const rounds = roundsArg ?? (quick ? 3 : 5);
  log(`scenario 3: ${deltas}-delta reply, ${runs} runs × ${rounds} rounds`);
  const results = await roundRobin(
    runners.map((runner) => perDelta(runner, deltas, runs)),
    { rounds, warmup: 2, log },
  );
  raw.delta = Object.fromEntries(results);
  section(
    "3. Cost per streamed delta (one 10,000-delta reply, one subscriber counting text deltas), ns per delta",
    runnerTable(results, "ns / delta"),
  );
  figure("3. per streamed delta", "ns", results, {
    maxVsPi: 1.0,
    text: "< 1.0× pi, ahead of the other peers",
    aheadOfPeers: true,
  });
}

async function scenarioMemory(runners: Map<string, Runner>) {
  if (!canGc) {
    log("scenario 4 skipped: run with --expose-gc");
    return;
  }
  const count = 1000;
  const rounds = roundsArg ?? 5;
  log(`scenario 4: heap per idle agent, ${count} agents × ${rounds} rounds`);
  const noop = () => {};
  const variants: Variant[] = [heapPerAgent("100 messages alone", (seed) => buildHistory(100, seed), count)];
  for (const name of [OURS, PI, BARE]) {
    const runner = runners.get(name);
    if (!runner) continue;
    variants.push(
      heapPerAgent(
        name,
        (seed) => runner.create({ script: TEXT, history: buildHistory(100, seed), onTextDelta: noop }),
        count,
      ),
    );
  }
  for (const name of [OURS, PI]) {
    const runner = runners.get(name);
    if (!runner) continue;
    variants.push(
      heapPerAgent(
        `${name}, after one run`,
        async (seed) => {
          const agent = runner.create({ script: TEXT, history: buildHistory(98, seed), onTextDelta: noop });
          await agent.prompt("hello");
          return agent;
        },
        count,
      ),
    );
  }
  const results = await roundRobin(variants, { rounds, warmup: 1, quiet: false, log });
  raw.memory = Object.fromEntries(results);
  const data = results.get("100 messages alone")!;
  const rows = [...results].map(([name, values]) => [
    name,
    fmtSummary(summarize(values.map((v) => v / 1024))),
    name === "100 messages alone" ? "—" : fmtSummary(summarize(values.map((v, i) => (v - data[i]!) / 1024))),
  ]);
  section(
    `4. Heap per idle agent holding 100 messages (${count} agents, after forced GC), KB per agent`,
    `${table(["variant", "KB / agent (total)", "KB / agent over the messages"], rows)}\n\n"after one run": 98 prebuilt messages + one text prompt (= 100 messages), i.e. what an agent retains once it has run.`,
  );
  const kb = new Map([...results].map(([name, values]) => [name, values.map((v) => v / 1024)]));
  figure("4. heap per idle agent (total)", "KB", kb, { maxVsPi: 1.5, text: "≤ 1.5× pi" });
  const over = new Map(
    [...results]
      .filter(([name]) => name !== "100 messages alone")
      .map(([name, values]) => [name, values.map((v, i) => (v - data[i]!) / 1024)]),
  );
  figure("4. heap per idle agent (framework part)", "KB", over);
  if (kb.has(`${OURS}, after one run`))
    figure(
      "4. heap per agent after one run (total)",
      "KB",
      kb,
      undefined,
      `${OURS}, after one run`,
      `${PI}, after one run`,
    );
}

interface ChildResult {
  wallMs: number;
  /** CPU time (user + system) of the child during the measured run. */
  cpuMs: number;
  baselineRssMb: number;
  peakRssMb: number;
  retainedKbPerAgent: number;
}

async function childConcurrency(runners: Map<string, Runner>) {
  const runner = runners.get(arg("runner") ?? "")!;
  if (!runner) throw new Error(`unknown runner ${arg("runner")}`);
  const agents = Number(arg("agents") ?? 1000);
  const turns = Number(arg("turns") ?? 5);
  const run = async (count: number) => {
    let deltas = 0;
    const onTextDelta = () => {
      deltas++;
    };
    const list = Array.from({ length: count }, () => runner.create({ script: TOOLS, onTextDelta }));
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    await Promise.all(
      list.map(async (agent) => {
        for (let turn = 0; turn < turns; turn++) await agent.prompt(`prompt ${turn}`);
      }),
    );
    const wallMs = performance.now() - start;
    const cpu = process.cpuUsage(cpuStart);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    if (deltas !== count * turns * TOOLS.deltas) throw new Error(`${runner.name}: wrong delta count`);
    for (const agent of list)
      checkTranscript(runner, agent.messageCount(), turns * messagesPerPrompt(runner, TOOLS));
    return { wallMs, cpuMs, list };
  };
  await run(50); // warm-up
  forceGc();
  const baseline = process.memoryUsage();
  const { wallMs, cpuMs, list } = await run(agents);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  forceGc();
  const retained = process.memoryUsage().heapUsed - baseline.heapUsed;
  if (list.length !== agents) throw new Error("unreachable");
  const result: ChildResult = {
    wallMs,
    cpuMs,
    baselineRssMb: baseline.rss / 2 ** 20,
    peakRssMb: peakRss / 2 ** 20,
    retainedKbPerAgent: retained / 1024 / agents,
  };
  console.log(JSON.stringify(result));
}

async function scenarioConcurrency(runnerNames: string[]) {
  const rounds = roundsArg ?? (quick ? 2 : 5);
  const agents = arg("agents") ? Number(arg("agents")) : quick ? 200 : 1000;
  log(`scenario 5: ${agents} concurrent agents × 5 turns × 4 tools, child process per run, ${rounds} rounds`);
  const self = fileURLToPath(import.meta.url);
  const byRunner = new Map<string, ChildResult[]>(runnerNames.map((name) => [name, []]));
  // Every run is a fresh process; the warm-up pass only warms the file cache (`--warmup 0` skips it).
  const warmup = arg("warmup") ? Number(arg("warmup")) : 1;
  for (let round = 0; round < rounds + warmup; round++) {
    const order = runnerNames.map((_, index) => runnerNames[(index + round) % runnerNames.length]!);
    for (const name of order) {
      const child = spawnSync(
        process.execPath,
        [
          "--expose-gc",
          "--import",
          "tsx",
          self,
          "--child",
          "concurrency",
          "--runner",
          name,
          "--agents",
          String(agents),
        ],
        { encoding: "utf8", maxBuffer: 1 << 24 },
      );
      if (child.status !== 0) throw new Error(`child ${name} failed:\n${child.stderr}`);
      const line = child.stdout.trim().split("\n").at(-1)!;
      if (round >= warmup) byRunner.get(name)!.push(JSON.parse(line) as ChildResult);
    }
    log(`  round ${round + 1}/${rounds + warmup}${round < warmup ? " (warm-up)" : ""}`);
  }
  const pick = (f: (r: ChildResult) => number) =>
    new Map([...byRunner].map(([name, list]) => [name, list.map(f)]));
  const wall = pick((r) => r.wallMs);
  const cpu = pick((r) => r.cpuMs);
  const growth = pick((r) => r.peakRssMb - r.baselineRssMb);
  const peak = pick((r) => r.peakRssMb);
  const retained = pick((r) => r.retainedKbPerAgent);
  raw.concurrency = Object.fromEntries(byRunner);
  const piWall = wall.get(PI);
  const piCpu = cpu.get(PI);
  const bareWall = wall.get(BARE);
  const rows = runnerNames.map((name) => [
    name,
    fmtSummary(summarize(wall.get(name)!)),
    piWall ? fmtRatio(pairedRatio(wall.get(name)!, piWall)) : "—",
    bareWall ? fmtRatio(pairedRatio(wall.get(name)!, bareWall)) : "—",
    fmtSummary(summarize(cpu.get(name)!)),
    piCpu ? fmtRatio(pairedRatio(cpu.get(name)!, piCpu)) : "—",
    fmtSummary(summarize(peak.get(name)!)),
    fmtSummary(summarize(growth.get(name)!)),
    fmt(median(retained.get(name)!)),
  ]);
  section(
    `5. ${agents} concurrent agents × 5 turns × (4 parallel tools → 20-delta answer), one child process per run`,
    table(
      [
        "runner",
        "wall ms",
        "× pi Agent",
        "× bare",
        "CPU ms",
        "CPU × pi Agent",
        "peak RSS MB",
        "peak − baseline MB",
        "retained KB / agent",
      ],
      rows,
    ),
  );
  figure("5. concurrency wall time", "ms", wall, { maxVsPi: 3.0, text: "≤ 3.0× pi" });
  figure("5. concurrency CPU time", "ms", cpu);
  figure("5. concurrency peak RSS growth", "MB", growth, { maxVsPi: 2.0, text: "≤ 2.0× pi" });
}

async function scenarioGrowth(runners: Runner[]) {
  const sizes = [0, 1000, 4000, 10_000];
  const turns = quick ? 100 : 200;
  const rounds = roundsArg ?? (quick ? 3 : 5);
  const perSize = new Map<number, Map<string, number[]>>();
  for (const size of sizes) {
    log(`scenario 6: H = ${size}, ${turns} turns × ${rounds} rounds`);
    const results = await roundRobin(
      runners.map((runner) => perTurnWithHistory(runner, size, turns)),
      { rounds, warmup: 1, log },
    );
    perSize.set(size, results);
  }
  raw.growth = Object.fromEntries([...perSize].map(([size, results]) => [size, Object.fromEntries(results)]));
  const names = runners.map((runner) => runner.name);
  const slope = (name: string) => {
    // least-squares slope of the per-size medians, µs per 1,000 messages
    const xs = sizes.map((s) => s / 1000);
    const ys = sizes.map((s) => median(perSize.get(s)!.get(name)!));
    const mx = xs.reduce((a, b) => a + b) / xs.length;
    const my = ys.reduce((a, b) => a + b) / ys.length;
    let num = 0;
    let den = 0;
    for (let i = 0; i < xs.length; i++) {
      num += (xs[i]! - mx) * (ys[i]! - my);
      den += (xs[i]! - mx) ** 2;
    }
    return num / den;
  };
  const rows = names.map((name) => [
    name,
    ...sizes.map((size) => fmtSummary(summarize(perSize.get(size)!.get(name)!))),
    `${fmt(slope(name))} µs`,
  ]);
  section(
    `6. Per-turn cost against history length (5 agents, ${turns} text turns), µs per turn`,
    table(["runner", ...sizes.map((s) => `H=${s.toLocaleString("en-US")}`), "slope / 1,000 msgs"], rows),
  );
  const at = perSize.get(10_000)!;
  figure("6. per turn at H=10,000", "µs", at);
  const fig: Figure = {
    label: "6. slope per 1,000 messages",
    unit: "µs",
    ours: names.includes(OURS) ? summarize([slope(OURS)]) : undefined,
    pi: names.includes(PI) ? summarize([slope(PI)]) : undefined,
    bare: names.includes(BARE) ? summarize([slope(BARE)]) : undefined,
    target: "flat",
    byRunner: new Map(),
    oursName: OURS,
  };
  if (fig.ours && fig.bare) {
    // "flat": our per-turn cost at H=10k within 1.5× of H=0 (noise on this box is ±30 %)
    const h0 = median(perSize.get(0)!.get(OURS)!);
    const h10k = median(at.get(OURS)!);
    fig.met = h10k <= 1.5 * h0;
    fig.target = `flat (H=10k / H=0 = ${fmt(h10k / h0)})`;
  }
  figures.push(fig);
}

async function scenarioBurst(runners: Runner[]) {
  const rounds = roundsArg ?? (quick ? 3 : 5);
  const sizes: [number, number][] = [
    [1000, 20],
    [10_000, 3],
    [40_000, 1],
  ];
  const perSize = new Map<number, Map<string, number[]>>();
  for (const [size, runs] of sizes) {
    log(`scenario 7: burst of ${size} deltas, ${runs} runs × ${rounds} rounds`);
    perSize.set(
      size,
      await roundRobin(
        runners.map((runner) => perDelta(runner, size, runs)),
        { rounds, warmup: 1, log },
      ),
    );
  }
  raw.burst = Object.fromEntries([...perSize].map(([size, results]) => [size, Object.fromEntries(results)]));
  const names = runners.map((runner) => runner.name);
  const rows = names.map((name) => {
    const at10 = median(perSize.get(10_000)!.get(name)!);
    const at40 = median(perSize.get(40_000)!.get(name)!);
    return [
      name,
      ...sizes.map(([size]) => fmtSummary(summarize(perSize.get(size)!.get(name)!))),
      `${fmt(at40 / at10)}×`,
    ];
  });
  section(
    "7. Burst sweep: ns per delta for one reply of N deltas pushed in one microtask",
    table(["runner", ...sizes.map(([s]) => `N=${s.toLocaleString("en-US")}`), "40k / 10k"], rows),
  );
  const f10 = figure("7. burst, ns/delta at 10,000", "ns", perSize.get(10_000)!);
  const f40 = figure("7. burst, ns/delta at 40,000", "ns", perSize.get(40_000)!);
  if (f10.ours && f40.ours) {
    const ratio = f40.ours.median / f10.ours.median;
    f40.target = `linear (40k / 10k = ${fmt(ratio)})`;
    f40.met = ratio <= 1.5;
  }
}

// ---------------------------------------------------------------------------------------------------

function summaryTable(): string {
  const rows = figures.map((f) => [
    f.label,
    f.unit,
    f.ours ? fmt(f.ours.median) : "—",
    f.pi ? fmt(f.pi.median) : "—",
    f.bare ? fmt(f.bare.median) : "—",
    f.oursVsPi ? `**${fmtRatio(f.oursVsPi)}**` : "—",
    f.oursVsBare ? fmtRatio(f.oursVsBare) : "—",
    f.target ?? "",
    f.met === undefined ? "" : f.met ? "met" : "**missed**",
  ]);
  return table(
    ["figure", "unit", "agentchart", "pi", "bare", "ours / pi", "ours / bare", "target", ""],
    rows,
  );
}

/** The figures of scenarios with peers: each runner's median and its paired ratio to pi, per figure. */
function peerTable(): string | undefined {
  const withPeers = figures.filter(
    (f) => f.oursName === OURS && OTHER_PEERS.some((name) => f.byRunner.has(name)),
  );
  if (withPeers.length === 0) return undefined;
  const columns = PEER_TABLE.filter((name) => withPeers.some((f) => f.byRunner.has(name)));
  const rows = withPeers.map((f) => {
    const pi = f.byRunner.get(PI);
    const cells = columns.map((name) => {
      const values = f.byRunner.get(name);
      if (!values) return "—";
      const ratio = pi && name !== PI ? ` (${fmtRatio(pairedRatio(values, pi))})` : "";
      return `${fmt(median(values))}${ratio}`;
    });
    const ahead = aheadOfPeers(f);
    const result = f.met === undefined ? "" : f.met ? "met" : "**missed**";
    return [
      f.label,
      f.unit,
      ...cells,
      f.target ?? "",
      ahead === undefined ? result : `${result}${ahead ? "" : " (behind a peer)"}`,
    ];
  });
  return table(["figure", "unit", ...columns, "target", ""], rows);
}

function machineFacts(): string {
  const cpu = cpus();
  return [
    `- load average at the end: ${loadAverage()}`,
    `- Node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM`,
    `- quiet waits: ${quietStats.waits}, of which timed out (machine busy > 0.5 core): ${quietStats.timeouts}`,
  ].join("\n");
}

function loadAverage(): string {
  return loadavg()
    .map((v) => v.toFixed(2))
    .join(" ");
}

async function main() {
  if (!piInstalled()) {
    console.error(PI_MISSING_MESSAGE);
    process.exit(1);
  }
  const child = arg("child") === "concurrency";
  const runners = await allRunners(child ? [arg("runner") ?? ""] : runnerFilter);
  if (child) return childConcurrency(runners);
  if (!canGc) log("warning: no --expose-gc: GC is not forced between measurements and scenario 4 is skipped");
  const selected = (names: string[]) =>
    names
      .filter((name) => !runnerFilter || runnerFilter.includes(name))
      .map((name) => runners.get(name)!)
      .filter(Boolean);
  const startedAt = new Date().toISOString();
  const load = loadAverage();
  const turnRunners = selected([OURS, OURS_LOOP, OURS_SCRIPTED, PI, PI_LOOP, ...OTHER_PEERS, BARE]);
  if (only.has("1")) await scenarioTurns(turnRunners, "text");
  if (only.has("2")) await scenarioTurns(turnRunners, "tool");
  if (only.has("3")) await scenarioDelta(turnRunners);
  if (only.has("4")) await scenarioMemory(runners);
  if (only.has("5")) await scenarioConcurrency(selected([OURS, PI, ...OTHER_PEERS, BARE]).map((r) => r.name));
  if (only.has("6")) await scenarioGrowth(selected([OURS, OURS_LOOP, PI, PI_LOOP, BARE]));
  if (only.has("7")) await scenarioBurst(selected([OURS, PI, BARE]));

  const summary = summaryTable();
  console.log(`\n### Summary (medians; ratios are medians of paired per-round ratios)\n\n${summary}\n`);
  const peers = peerTable();
  if (peers)
    console.log(
      `\n### Every peer (median, and in brackets the median paired ratio to pi Agent)\n\n${peers}\n`,
    );
  console.log(
    `agentchart build: ${AGENTCHART_BUILD}. Clock of scenarios 1-3: ${cpuClock ? "CPU time of the process" : "wall time"}.\nFaux LLM: bench/faux.ts, pushed into pi-ai's createAssistantMessageEventStream() for pi and emitted\nthrough an rxjs Observable for agentchart (one microtask per answer for both).\n\nMachine:\n${machineFacts()}\n- started ${startedAt}, load average then ${load}\n`,
  );
  const out = arg("json");
  if (out) writeFileSync(out, JSON.stringify({ startedAt, figures, raw, sections, summary }, null, 2));
}

await main();

// Tracing overhead: text turns of one Agent, uninstrumented vs `instrument(agent)` with the no-op tracer
// (no tracer provider registered: the API's default) vs with a real SDK tracer exporting to memory; plus
// one long streamed reply, to show the per-delta path is untouched (no span or event per delta). Same
// process, same zero-latency faux (bench/faux.ts), round-robin rounds with forced GC and a quiet-machine
// wait; medians (min–max) and medians of the paired per-round ratios against the uninstrumented Agent.
// The figure is CPU time (user + system, `process.cpuUsage`) per turn: on a shared machine it moves far
// less than wall time, which other processes' load inflates.
//
//   node --expose-gc --import tsx bench/otel.bench.ts [--rounds N] [--turns N] [--deltas N]
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { canGc, fmt, fmtSummary, pairedRatio, quietStats, roundRobin, summarize, table } from "./common.js";
import { FAUX_MODEL } from "./faux.js";
import { ourFauxStreamFn } from "./loop-runners.js";

// The compiled library when built (as users run it), else the sources; Agent and instrument must come
// from the same build (instrument checks `instanceof Agent`).
type Core = typeof import("../src/index.js");
type Otel = typeof import("../src/otel.js");
const useDist =
  existsSync(new URL("../dist/otel.js", import.meta.url)) && process.env.AGENTCHART_BENCH_SOURCES !== "1";
const [{ Agent }, { instrument }] = (await Promise.all(
  useDist
    ? [
        import(new URL("../dist/index.js", import.meta.url).href),
        import(new URL("../dist/otel.js", import.meta.url).href),
      ]
    : [import("../src/index.js"), import("../src/otel.js")],
)) as [Core, Otel];

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
}
const TURNS = option("turns", 1_000);
const ROUNDS = option("rounds", 9);
const LONG_DELTAS = option("deltas", 10_000);
/** Long replies per measurement. */
const LONG_REPLIES = 20;

const exporter = new InMemorySpanExporter();
const sdkTracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
  "bench",
);

type Tracing = "none" | "no-op tracer" | "in-memory exporter";

/** CPU microseconds per text turn (`deltas` deltas) of one agent prompted `turns` times. */
async function perTextTurn(tracing: Tracing, turns: number, deltas: number): Promise<number> {
  const agent = new Agent({
    model: FAUX_MODEL as never,
    streamFn: ourFauxStreamFn({ tools: 0, deltas }) as never,
  });
  let seen = 0;
  agent.subscribe((event) => {
    if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") seen++;
  });
  const handle =
    tracing === "none"
      ? undefined
      : instrument(agent, tracing === "in-memory exporter" ? { tracer: sdkTracer } : {});
  const start = process.cpuUsage();
  for (let turn = 0; turn < turns; turn++) await agent.prompt(`Question ${turn}`);
  const used = process.cpuUsage(start);
  const micros = (used.user + used.system) / turns;
  handle?.dispose();
  if (seen !== turns * deltas) throw new Error(`expected ${turns * deltas} deltas, saw ${seen}`);
  exporter.reset();
  return micros;
}

const variants: Tracing[] = ["none", "no-op tracer", "in-memory exporter"];
console.log(
  `agentchart ${useDist ? "dist (compiled)" : "src via tsx"} · Node ${process.version} · load ${loadavg()[0]!.toFixed(2)}${canGc ? "" : " · no --expose-gc"}`,
);
console.log(
  `per text turn: ${TURNS} turns × 20 deltas per measurement; long reply: ${LONG_REPLIES} × ${LONG_DELTAS} deltas; ${ROUNDS} rounds\n`,
);

const turnResults = await roundRobin(
  variants.map((name) => ({ name, measure: () => perTextTurn(name, TURNS, 20) })),
  { rounds: ROUNDS, warmup: 2, log: (text) => console.error(text) },
);
const longResults = await roundRobin(
  variants.map((name) => ({
    name,
    measure: async () => ((await perTextTurn(name, 1, LONG_DELTAS)) * 1000) / LONG_DELTAS,
  })),
  { rounds: ROUNDS, warmup: 2, log: (text) => console.error(text) },
);

// What one traced long reply records: the chat span's events must not grow with the deltas.
const probe = new Agent({
  model: FAUX_MODEL as never,
  streamFn: ourFauxStreamFn({ tools: 0, deltas: LONG_DELTAS }) as never,
});
const probeHandle = instrument(probe, { tracer: sdkTracer });
await probe.prompt("long");
probeHandle.dispose();
const probeSpans = exporter.getFinishedSpans();
const chatEvents = probeSpans.find((span) => span.name.startsWith("chat "))?.events.length ?? Number.NaN;
const allEvents = probeSpans.reduce((sum, span) => sum + span.events.length, 0);
exporter.reset();

const baseTurn = turnResults.get("none")!;
const baseDelta = longResults.get("none")!;
const targets: Record<Tracing, string> = {
  none: "",
  "no-op tracer": "≤ 1.05×",
  "in-memory exporter": "≤ 1.5×",
};
console.log(
  table(
    [
      "variant",
      "CPU µs per text turn",
      "× uninstrumented",
      "target",
      "CPU ns per delta (long reply)",
      "× uninstrumented",
    ],
    variants.map((name) => [
      name,
      fmtSummary(summarize(turnResults.get(name)!)),
      name === "none" ? "1" : `**${fmt(pairedRatio(turnResults.get(name)!, baseTurn).median)}×**`,
      targets[name],
      fmtSummary(summarize(longResults.get(name)!)),
      name === "none" ? "1" : `${fmt(pairedRatio(longResults.get(name)!, baseDelta).median)}×`,
    ]),
  ),
);
console.log(
  `\nspans of one traced ${LONG_DELTAS}-delta reply: ${probeSpans.length}; events on its chat span: ${chatEvents}; events in all: ${allEvents}`,
);
console.log(`quiet waits: ${quietStats.waits}, timed out: ${quietStats.timeouts}`);

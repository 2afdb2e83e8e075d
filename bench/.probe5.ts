import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { Agent } from "../dist/index.js";
import { instrument } from "../dist/otel.js";
import { FAUX_MODEL } from "./faux.js";
import { ourFauxStreamFn } from "./loop-runners.js";

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
  "b",
);
async function run(m: string, turns: number) {
  const agent = new Agent({
    model: FAUX_MODEL as never,
    streamFn: ourFauxStreamFn({ tools: 0, deltas: 20 }) as never,
  });
  agent.subscribe(() => {});
  const h = m === "none" ? undefined : instrument(agent, { tracer });
  const s = process.cpuUsage();
  for (let i = 0; i < turns; i++) await agent.prompt("q");
  const u = process.cpuUsage(s);
  h?.dispose();
  exporter.reset();
  return (u.user + u.system) / turns;
}
const res: Record<string, number[]> = { none: [], mem: [] };
for (let r = 0; r < 15; r++)
  for (const m of Object.keys(res)) {
    (globalThis as any).gc();
    res[m]!.push(await run(m, 400));
  }
const med = (x: number[]) => [...x].sort((p, q) => p - q)[x.length >> 1]!;
for (const m of Object.keys(res))
  console.log(
    process.argv[2],
    m,
    med(res[m]!).toFixed(1),
    med(res[m]!.map((v, i) => v / res.none![i]!)).toFixed(3),
  );

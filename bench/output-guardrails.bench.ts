// Typed output and guardrails, per streamed delta: one reply of 10,000 text deltas (the faux LLM,
// burst delivery), run by the agentchart Agent plain, with a passing output guardrail (held
// streaming: every event waits in the stream actor, then is released), and with a typed-output
// schema (the reply's JSON text parsed for `output_delta`s). Same process, round-robin, paired ratios
// to the plain agent, which is the baseline (issue 18: held ≤ 1.2× per delta; plain unchanged).
//
//   node --expose-gc --import tsx bench/output-guardrails.bench.ts [--rounds N]
import { map } from "rxjs";
import { z } from "zod";
import { AGENTCHART_BUILD, core } from "./agentchart-build.js";
import { fmtRatio, fmtSummary, pairedRatio, roundRobin, summarize, table } from "./common.js";
import { FAUX_MODEL, type Script } from "./faux.js";
import { ourFauxStreamFn } from "./loop-runners.js";

const argv = process.argv.slice(2);
const rounds = argv.includes("--rounds") ? Number(argv[argv.indexOf("--rounds") + 1]) : 10;
const DELTAS = 10_000;
const RUNS = 5;
const script: Script = { tools: 0, deltas: DELTAS };

/** A faux reply whose text is one JSON object of a single long string (4 characters per delta). */
function jsonStreamFn() {
  const plain = ourFauxStreamFn(script);
  return (model: unknown, context: { messages: { role?: string }[] }) => {
    let count = 0;
    return plain(model, context).pipe(
      map((event: any) => {
        if (event.type !== "text_delta") return event;
        count++;
        const delta = count === 1 ? '{"t":"' : count === DELTAS ? '"}' : event.delta;
        const part = event.partial.content[0];
        part.text = part.text.slice(0, -4) + delta;
        return { ...event, delta };
      }),
    );
  };
}

type Variant = "plain" | "held" | "typed";
const Schema = z.object({ t: z.string() });

async function perDelta(variant: Variant): Promise<number> {
  let deltas = 0;
  const agents = Array.from({ length: RUNS }, () => {
    const agent = new core.Agent({
      model: FAUX_MODEL as any,
      streamFn: (variant === "typed" ? jsonStreamFn() : ourFauxStreamFn(script)) as any,
      ...(variant === "held"
        ? { guardrails: { output: [{ name: "pass", check: () => ({ tripwire: false }) }] } }
        : {}),
    });
    agent.subscribe((event) => {
      if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") deltas++;
    });
    return agent;
  });
  const start = performance.now();
  for (const agent of agents) {
    const result = await agent.prompt("go", variant === "typed" ? { output: Schema } : {});
    if (variant === "typed" && result.output === undefined)
      throw new Error(`typed run gave no output: ${result.stopReason} ${result.error?.message}`);
  }
  const elapsed = performance.now() - start;
  if (deltas !== DELTAS * RUNS) throw new Error(`${variant}: ${deltas} deltas, expected ${DELTAS * RUNS}`);
  return (elapsed * 1e6) / (DELTAS * RUNS);
}

const figures = await roundRobin(
  (["plain", "held", "typed"] as const).map((variant) => ({
    name: variant,
    measure: () => perDelta(variant),
  })),
  { rounds, warmup: 2, log: (text) => process.stderr.write(`${text}\n`) },
);
const get = (name: Variant) => figures.get(name)!;
console.log(`### Per streamed delta, one ${DELTAS.toLocaleString("en-US")}-delta reply × ${RUNS}, ns\n`);
console.log(
  table(
    ["agent", "ns per delta", "ratio to plain", "target"],
    [
      ["plain (no schema, no guardrail)", fmtSummary(summarize(get("plain"))), "1×", "baseline"],
      [
        "held (one passing output guardrail)",
        fmtSummary(summarize(get("held"))),
        `**${fmtRatio(pairedRatio(get("held"), get("plain")))}**`,
        "≤ 1.2×",
      ],
      [
        "typed output (JSON text, `output_delta`s)",
        fmtSummary(summarize(get("typed"))),
        fmtRatio(pairedRatio(get("typed"), get("plain"))),
        "—",
      ],
    ],
  ),
);
console.log(`\nbuild: ${AGENTCHART_BUILD}; rounds ${rounds}.`);

// Persist/restore benchmark: `agent.persist()` + `JSON.stringify` of an agent holding 1,000 messages,
// against `JSON.stringify` of the message array alone (target ≤ 2×), and `Agent.restore` of that JSON
// against `JSON.parse` of it (target ≤ 2×). Same process, round-robin, paired ratios.
//
//   node --expose-gc --import tsx bench/persist.bench.ts [--rounds N]
import { AGENTCHART_BUILD, core, testing } from "./agentchart-build.js";
import { fmt, fmtRatio, fmtSummary, pairedRatio, roundRobin, summarize, table } from "./common.js";
import { buildHistory, FAUX_MODEL } from "./faux.js";

const argv = process.argv.slice(2);
const rounds = argv.includes("--rounds") ? Number(argv[argv.indexOf("--rounds") + 1]) : 15;
const MESSAGES = 1_000;
const REPEAT = 50;

const messages = buildHistory(MESSAGES, 1);
const options = { model: FAUX_MODEL as any, streamFn: testing.scriptedModel([]) };
const agent = new core.Agent({ ...options, messages });
const persistedJson = JSON.stringify(agent.persist());
const messagesJson = JSON.stringify(messages);
let sink = 0;

/** Microseconds per operation, `REPEAT` operations in a row. */
function timed(operation: () => unknown): Promise<number> {
  const start = performance.now();
  for (let index = 0; index < REPEAT; index++) sink += (operation() as { length?: number }).length ?? 1;
  return Promise.resolve(((performance.now() - start) * 1000) / REPEAT);
}

const figures = await roundRobin(
  [
    { name: "persist + stringify", measure: () => timed(() => JSON.stringify(agent.persist())) },
    { name: "stringify messages", measure: () => timed(() => JSON.stringify(messages)) },
    { name: "restore", measure: () => timed(() => [core.Agent.restore(persistedJson, options)]) },
    { name: "parse messages", measure: () => timed(() => JSON.parse(messagesJson)) },
  ],
  { rounds, warmup: 3, log: (text) => process.stderr.write(`${text}\n`) },
);
const get = (name: string) => figures.get(name)!;
const persistRatio = pairedRatio(get("persist + stringify"), get("stringify messages"));
const restoreRatio = pairedRatio(get("restore"), get("parse messages"));

console.log(
  `### Persist and restore an agent holding ${MESSAGES.toLocaleString("en-US")} messages, µs per operation\n`,
);
console.log(
  table(
    ["operation", "µs", "baseline", "µs", "ratio", "target", ""],
    [
      [
        "`persist()` + `JSON.stringify`",
        fmtSummary(summarize(get("persist + stringify"))),
        "`JSON.stringify(messages)`",
        fmtSummary(summarize(get("stringify messages"))),
        `**${fmtRatio(persistRatio)}**`,
        "≤ 2×",
        persistRatio.median <= 2 ? "met" : "**missed**",
      ],
      [
        "`Agent.restore(json)`",
        fmtSummary(summarize(get("restore"))),
        "`JSON.parse(messagesJson)`",
        fmtSummary(summarize(get("parse messages"))),
        `**${fmtRatio(restoreRatio)}**`,
        "≤ 2×",
        restoreRatio.median <= 2 ? "met" : "**missed**",
      ],
    ],
  ),
);
console.log(
  `\nSnapshot ${fmt(persistedJson.length / 1024)} KB, messages alone ${fmt(messagesJson.length / 1024)} KB; build: ${AGENTCHART_BUILD}; rounds ${rounds}.${sink < 0 ? "" : ""}`,
);

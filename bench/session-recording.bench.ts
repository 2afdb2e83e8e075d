// The session as the recording: N scripted turns through one AgentHarness over a JSONL session
// (temp dir) with `record: true` — the recording kept in the session as custom entries, each step's
// transcript as references to its message entries — against the same harness without it, in the same
// process. Round-robin rounds, medians (min–max) and the median of the paired per-round ratios.
//
//   node --expose-gc --import tsx bench/session-recording.bench.ts [--rounds N] [--turns N]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness, type Model } from "../src/index.js";
import { JsonlSessionRepo } from "../src/node.js";
import { type ScriptedTurn, scriptedModel } from "../src/testing.js";
import { fmtRatio, fmtSummary, pairedRatio, roundRobin, summarize, table } from "./common.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
}
const TURNS = option("turns", 200);
const ROUNDS = option("rounds", 7);

const model: Model = {
  id: "bench",
  api: "scripted",
  provider: "scripted",
  contextWindow: 1e9,
  maxTokens: 4096,
};
const reply: ScriptedTurn = { text: "The answer is a short paragraph of text for the benchmark.", deltas: 4 };
const root = mkdtempSync(join(tmpdir(), "agentchart-session-recording-bench-"));

/** Milliseconds for `TURNS` prompts of one harness over a fresh JSONL session. */
async function turns(record: boolean): Promise<number> {
  const session = await new JsonlSessionRepo({ root }).create({ cwd: root });
  const streamFn = scriptedModel(Array.from({ length: TURNS }, () => reply));
  const harness = new AgentHarness({ session, model, streamFn, record });
  const start = performance.now();
  for (let i = 0; i < TURNS; i++) await harness.prompt(`Question ${i}`);
  await session.flush();
  const elapsed = performance.now() - start;
  await harness.close();
  await session.close();
  return elapsed;
}

try {
  const figures = await roundRobin(
    [
      { name: "bare", measure: () => turns(false) },
      { name: "record", measure: () => turns(true) },
    ],
    { rounds: ROUNDS, warmup: 1, log: (text) => process.stderr.write(`${text}\n`) },
  );
  const bare = figures.get("bare")!;
  const recorded = figures.get("record")!;
  console.log(`### The session as the recording: ${TURNS} turns of one harness over a JSONL session, ms\n`);
  console.log(
    table(
      ["run", "ms", "baseline", "ms", "ratio"],
      [
        [
          "`record: true` (into the session)",
          fmtSummary(summarize(recorded)),
          "no `record`",
          fmtSummary(summarize(bare)),
          `**${fmtRatio(pairedRatio(recorded, bare))}**`,
        ],
      ],
    ),
  );
  console.log(`\n${ROUNDS} rounds, wall time, src via tsx.`);
} finally {
  rmSync(root, { recursive: true, force: true });
}

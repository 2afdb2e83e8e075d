// 200 SIGKILL trials against a JSONL session writer (see test/support/crash-trials.ts).
// Run: npx tsx bench/session-crash.ts [trials] [none|fsync]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlSessionRepo } from "../src/node.js";
import { runCrashTrial } from "../test/support/crash-trials.js";

const trials = Number(process.argv[2] ?? 200);
const durability = process.argv[3] === "fsync" ? "fsync" : "none";
const root = mkdtempSync(join(tmpdir(), "agentchart-crash-bench-"));
const session = await new JsonlSessionRepo({ root }).create({ id: "crash" });
await session.close();
let acknowledged = 0;
let recovered = 0;
let failures = 0;
const started = performance.now();
for (let trial = 0; trial < trials; trial++) {
  const result = await runCrashTrial(root, "crash", Math.floor(Math.random() * 80), durability);
  acknowledged += result.acknowledged;
  recovered += result.recovered;
  if (result.missing.length > 0) {
    failures++;
    console.error(`trial ${trial}: ${result.missing.length} acknowledged entries missing`);
  }
}
const final = await new JsonlSessionRepo({ root }).open("crash");
console.log(
  `${trials} SIGKILL trials (${durability}): ${acknowledged} acknowledged appends, ${final.getEntries().length} entries on disk, ` +
    `${recovered} torn tails repaired, ${failures} trials lost an acknowledged entry — ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
await final.close();
rmSync(root, { recursive: true, force: true });
process.exit(failures === 0 ? 0 : 1);

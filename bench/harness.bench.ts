// Harness benchmark: 1,000 turns through AgentHarness with persistence to a JSONL session (temp dir)
// vs the same turns on a bare Agent without a session, same process, median of 7 rounds.
// Run: npx tsx bench/harness.bench.ts
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, AgentHarness, type Model } from "../src/index.js";
import { JsonlSessionRepo } from "../src/node.js";
import { type ScriptedTurn, scriptedModel } from "../src/testing.js";

const TURNS = 1_000;
const ROUNDS = 7;
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
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function bareAgent(): Promise<number> {
  const agent = new Agent({ model, streamFn: script(), systemPrompt: "You are a helpful assistant." });
  const start = performance.now();
  for (let i = 0; i < TURNS; i++) await agent.prompt(`Question ${i}`);
  return performance.now() - start;
}

async function harnessWithJsonl(): Promise<number> {
  const session = await new JsonlSessionRepo({ root }).create({ cwd: root });
  const harness = new AgentHarness({ session, model, streamFn: script() });
  const start = performance.now();
  for (let i = 0; i < TURNS; i++) await harness.prompt(`Question ${i}`);
  const elapsed = performance.now() - start;
  await session.close();
  return elapsed;
}

const agentTimes: number[] = [];
const harnessTimes: number[] = [];
await bareAgent();
await harnessWithJsonl();
for (let round = 0; round < ROUNDS; round++) {
  agentTimes.push(await bareAgent());
  harnessTimes.push(await harnessWithJsonl());
}
rmSync(root, { recursive: true, force: true });
const agentMs = median(agentTimes);
const harnessMs = median(harnessTimes);
const perTurn = (ms: number) => `${((ms / TURNS) * 1000).toFixed(0)} µs`;
console.log(`| path | ms per ${TURNS} turns | per turn |`);
console.log("| --- | ---: | ---: |");
console.log(`| bare Agent, no session | ${agentMs.toFixed(1)} | ${perTurn(agentMs)} |`);
console.log(`| AgentHarness + JSONL session | ${harnessMs.toFixed(1)} | ${perTurn(harnessMs)} |`);
console.log(`| ratio | | ${(harnessMs / agentMs).toFixed(2)}× |`);

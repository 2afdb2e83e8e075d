// `read` tool benchmark: `read {path, limit: 3}` of a 1 GB file against a bare baseline measured in
// the same run — `fs.createReadStream` + `readline`, stopped after 3 lines (the least a streaming
// reader can do in Node). The file is made in a temp folder: 64 KB of text lines, then a hole up to
// 1 GB (sparse, no disk used; only the first chunk is ever read by a reader that stops in time).
// 1. Time per call: round-robin rounds with forced GC and a quiet-machine wait, each measurement the
//    mean of CALLS calls; medians (min–max) and the median of the paired per-round ratios.
// 2. Memory: every (variant, round) in a fresh child process: one warm-up call on a small file, GC,
//    then one call on the 1 GB file; RSS after the call over RSS before it, and the growth of the
//    peak RSS (`maxRSS`). A third variant, the whole-file `fs.readFile` that `read` did before it
//    streamed, shows what the method reports for a reader that loads the file (memory only, first
//    round only: it reads the whole gigabyte).
// Targets (issue 19): ≤ 50 ms and ≤ 50 MB over the baseline RSS.
//
//   node --expose-gc --import tsx bench/read-tool.bench.ts [--rounds N] [--calls N]
import { spawnSync } from "node:child_process";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { readTool } from "../src/node-tools.js";
import {
  canGc,
  fmt,
  fmtSummary,
  forceGc,
  pairedRatio,
  quietStats,
  roundRobin,
  summarize,
  table,
} from "./common.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
}
const ROUNDS = option("rounds", 7);
const CALLS = option("calls", 20);
const FILE_BYTES = 1024 ** 3;
const LINES = 3;
const FILE_NAME = "one-gigabyte.log";
const WARM_UP_FILE_NAME = "warm-up.log";

type VariantName = "agentchart read" | "bare stream + readline";
type MemoryVariantName = VariantName | "whole-file readFile (read before)";

/** The first lines of the file through the `read` tool, as the agent loop calls it. */
async function viaReadTool(dir: string, fileName = FILE_NAME): Promise<string[]> {
  const result = await readTool.execute(
    { path: fileName, limit: LINES },
    {
      toolCallId: "bench",
      idempotencyKey: "bench:bench",
      signal: new AbortController().signal,
      update: () => {},
      context: { cwd: dir },
    },
  );
  const block = result.content[0];
  const text = block?.type === "text" ? block.text : "";
  return text.split("\n\n[")[0]!.split("\n");
}

/** The bare baseline: a read stream through readline, destroyed once it gave `LINES` lines. */
async function viaReadline(dir: string, fileName = FILE_NAME): Promise<string[]> {
  const stream = createReadStream(path.join(dir, fileName), { encoding: "utf8" });
  const lines: string[] = [];
  for await (const line of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
    lines.push(line);
    if (lines.length === LINES) break;
  }
  stream.destroy();
  return lines;
}

/** How `read` worked before: the whole file in one Buffer (its text decoding then failed at 1 GB). */
async function viaWholeFile(dir: string, fileName = FILE_NAME): Promise<string[]> {
  const buffer = await fs.readFile(path.join(dir, fileName));
  return buffer
    .subarray(0, 64 * 1024)
    .toString("utf8")
    .split("\n")
    .slice(0, LINES);
}

const VARIANTS: Record<VariantName, (dir: string, fileName?: string) => Promise<string[]>> = {
  "agentchart read": viaReadTool,
  "bare stream + readline": viaReadline,
};
const MEMORY_VARIANTS: Record<MemoryVariantName, (dir: string, fileName?: string) => Promise<string[]>> = {
  ...VARIANTS,
  "whole-file readFile (read before)": viaWholeFile,
};

/** Child mode: a warm-up call on the small file, GC, one measured call; prints the figures as JSON. */
async function measureMemoryInChild(variant: MemoryVariantName, dir: string): Promise<void> {
  const run = MEMORY_VARIANTS[variant];
  await run(dir, WARM_UP_FILE_NAME);
  forceGc();
  const rssBefore = process.memoryUsage.rss();
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  const lines = await run(dir);
  const rssAfter = process.memoryUsage.rss();
  const peakAfter = process.resourceUsage().maxRSS * 1024;
  if (lines.length !== LINES) throw new Error(`${variant} gave ${lines.length} lines`);
  console.log(JSON.stringify({ rssGrowth: rssAfter - rssBefore, peakGrowth: peakAfter - peakBefore }));
}

async function makeFile(): Promise<string> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(tmpdir(), "agentchart-read-bench-")));
  const file = path.join(dir, FILE_NAME);
  const text = Array.from(
    { length: 1024 },
    (_, index) => `${String(index + 1).padStart(6, "0")} ${"lorem ipsum dolor sit amet ".repeat(2)}`,
  )
    .join("\n")
    .slice(0, 64 * 1024);
  await fs.writeFile(file, `${text}\n`);
  await fs.writeFile(path.join(dir, WARM_UP_FILE_NAME), `${text}\n`);
  await fs.truncate(file, FILE_BYTES);
  return dir;
}

const childIndex = process.argv.indexOf("--child");
if (childIndex > 0) {
  await measureMemoryInChild(
    process.argv[childIndex + 1] as MemoryVariantName,
    process.argv[childIndex + 2]!,
  );
} else {
  await main();
}

async function main(): Promise<void> {
  const load = loadavg()[0]!;
  const dir = await makeFile();
  try {
    const expected = await viaReadline(dir);
    const shown = await viaReadTool(dir);
    if (JSON.stringify(shown) !== JSON.stringify(expected)) {
      throw new Error(`read showed ${JSON.stringify(shown)}, readline ${JSON.stringify(expected)}`);
    }

    // 1. Time per call.
    const timeCalls = (run: (dir: string) => Promise<string[]>) => async () => {
      const start = performance.now();
      for (let call = 0; call < CALLS; call++) await run(dir);
      return (performance.now() - start) / CALLS;
    };
    const times = await roundRobin(
      (Object.keys(VARIANTS) as VariantName[]).map((name) => ({ name, measure: timeCalls(VARIANTS[name]) })),
      { rounds: ROUNDS, warmup: 2 },
    );

    // 2. Memory, each measurement in a fresh process.
    const script = fileURLToPath(import.meta.url);
    const memory = new Map<MemoryVariantName, { rssGrowth: number[]; peakGrowth: number[] }>();
    for (let round = 0; round < ROUNDS; round++) {
      const variants = Object.keys(round === 0 ? MEMORY_VARIANTS : VARIANTS) as MemoryVariantName[];
      for (const variant of variants) {
        const child = spawnSync(
          process.execPath,
          ["--expose-gc", "--import", "tsx", script, "--child", variant, dir],
          { encoding: "utf8" },
        );
        if (child.status !== 0) throw new Error(`child for ${variant} failed: ${child.stderr}`);
        const figures = JSON.parse(child.stdout.trim().split("\n").pop()!) as {
          rssGrowth: number;
          peakGrowth: number;
        };
        const entry = memory.get(variant) ?? { rssGrowth: [], peakGrowth: [] };
        entry.rssGrowth.push(figures.rssGrowth / 1024 ** 2);
        entry.peakGrowth.push(figures.peakGrowth / 1024 ** 2);
        memory.set(variant, entry);
      }
    }

    const ours = times.get("agentchart read")!;
    const bare = times.get("bare stream + readline")!;
    const ratio = pairedRatio(ours, bare);
    const oursMemory = memory.get("agentchart read")!;
    const bareMemory = memory.get("bare stream + readline")!;
    const wholeMemory = memory.get("whole-file readFile (read before)")!;
    const worstRss = Math.max(...oursMemory.rssGrowth, ...oursMemory.peakGrowth);
    console.log(
      `read {limit: ${LINES}} of a ${fmt(FILE_BYTES / 1024 ** 3)} GB file; ${CALLS} calls per time measurement, ` +
        `${ROUNDS} rounds, gc ${canGc ? "forced" : "unavailable"}, load average at start ${load.toFixed(1)}, ` +
        `quiet waits timed out ${quietStats.timeouts}/${quietStats.waits}, Node ${process.version}`,
    );
    console.log(
      table(
        [
          "figure",
          "agentchart read",
          "bare stream + readline",
          "ratio (paired)",
          "whole-file readFile (read before)",
          "target",
          "result",
        ],
        [
          [
            "ms per call",
            fmtSummary(summarize(ours)),
            fmtSummary(summarize(bare)),
            `${fmt(ratio.median)}× (${fmt(ratio.min)}–${fmt(ratio.max)})`,
            "",
            "≤ 50 ms",
            summarize(ours).max <= 50 ? "met" : "missed",
          ],
          [
            "MB RSS after the call over before it",
            fmtSummary(summarize(oursMemory.rssGrowth)),
            fmtSummary(summarize(bareMemory.rssGrowth)),
            "",
            fmtSummary(summarize(wholeMemory.rssGrowth)),
            "≤ 50 MB",
            worstRss <= 50 ? "met" : "missed",
          ],
          [
            "MB peak-RSS growth during the call",
            fmtSummary(summarize(oursMemory.peakGrowth)),
            fmtSummary(summarize(bareMemory.peakGrowth)),
            "",
            fmtSummary(summarize(wholeMemory.peakGrowth)),
            "≤ 50 MB",
            worstRss <= 50 ? "met" : "missed",
          ],
        ],
      ),
    );
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

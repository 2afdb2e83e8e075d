// Session layer benchmark: agentchart vs the raw floor measured in the same run.
// Run: npx tsx bench/session.bench.ts   (prints a markdown table)
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentMessage } from "../src/index.js";
import { emptyUsage } from "../src/index.js";
import { JsonlSessionRepo } from "../src/node.js";
import { parseSessionText } from "../src/sessions.js";

const RUNS = 7;
const ENTRIES = 10_000;
const root = mkdtempSync(join(tmpdir(), "agentchart-bench-"));
const piSession = resolve(import.meta.dirname, "../test/fixtures/pi-sessions/before-compaction.jsonl");

function message(i: number): AgentMessage {
  if (i % 2 === 0)
    return {
      role: "user",
      content: `Question ${i}: please look at src/file-${i}.ts and explain it.`,
      timestamp: 1e12 + i,
    };
  return {
    role: "assistant",
    content: [
      {
        type: "text",
        text: `Answer ${i}: the file defines a small helper that ${"does something useful ".repeat(6)}`,
      },
    ],
    api: "openai-responses",
    provider: "openai",
    model: "gpt-5",
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: 1e12 + i,
  };
}
const messages = Array.from({ length: ENTRIES }, (_, i) => message(i));

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
let fileNo = 0;
const freshPath = () => join(root, `raw-${fileNo++}.jsonl`);

/** Raw floor: one fd, JSON.stringify + writeSync per entry (optionally fdatasync per entry). */
function rawAppend(
  path: string,
  count: number,
  fsync: boolean,
  parentOf: (i: number) => number | null,
): void {
  const fd = openSync(path, "a");
  writeSync(
    fd,
    `${JSON.stringify({ type: "session", version: 3, id: "raw", timestamp: new Date().toISOString(), cwd: "/b" })}\n`,
  );
  for (let i = 0; i < count; i++) {
    const parent = parentOf(i);
    const entry = {
      type: "message",
      id: `e${i}`,
      parentId: parent === null ? null : `e${parent}`,
      timestamp: new Date().toISOString(),
      message: messages[i % ENTRIES],
    };
    writeSync(fd, `${JSON.stringify(entry)}\n`);
    if (fsync) fdatasyncSync(fd);
  }
  closeSync(fd);
}

/** Raw floor: readFileSync + JSON.parse of every line, Map id → entry, walk the leaf's parents. */
function rawReadContext(path: string): number {
  const lines = readFileSync(path, "utf8").split("\n");
  const byId = new Map<string, { id?: string; parentId?: string | null; message?: unknown }>();
  let last: string | undefined;
  for (const line of lines) {
    if (!line) continue;
    const entry = JSON.parse(line);
    if (entry.id !== undefined) byId.set(entry.id, entry);
    last = entry.id;
  }
  const path_: unknown[] = [];
  for (
    let e = last === undefined ? undefined : byId.get(last);
    e;
    e = e.parentId ? byId.get(e.parentId) : undefined
  )
    path_.push(e.message);
  return path_.reverse().length;
}

const linearParent = (i: number) => (i === 0 ? null : i - 1);
// 5,000 trunk entries + 100 branches of 50; branch b forks at trunk entry ⌊(b+1)·5000/101⌋ (as in perf-anchors §5).
const TRUNK = 5_000;
const treeParent = (i: number) => {
  if (i < TRUNK) return linearParent(i);
  const b = Math.floor((i - TRUNK) / 50);
  return (i - TRUNK) % 50 === 0 ? Math.floor(((b + 1) * TRUNK) / 101) : i - 1;
};

async function agentchartAppend(
  count: number,
  durability: "none" | "fsync",
  awaitEach: boolean,
  tree = false,
) {
  const repo = new JsonlSessionRepo({ root, durability });
  const session = await repo.create({ cwd: "/bench" });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    if (tree) {
      const parent = treeParent(i);
      if (parent !== (i === 0 ? null : i - 1)) await session.moveTo(parent === null ? null : ids[parent]!);
    }
    const pending = session.appendMessage(messages[i % ENTRIES]!);
    if (awaitEach) ids.push((await pending).id);
    else ids.push(session.leafId!);
  }
  await session.flush();
  await session.close();
  return session;
}

interface Row {
  name: string;
  ours: number;
  floor: number;
  unit: string;
}
const rows: Row[] = [];
async function measure(
  name: string,
  ours: () => Promise<unknown> | unknown,
  floor: () => unknown,
  unit = "ms",
) {
  const a: number[] = [];
  const b: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    let t = performance.now();
    floor();
    b.push(performance.now() - t);
    t = performance.now();
    await ours();
    a.push(performance.now() - t);
  }
  rows.push({ name, ours: median(a), floor: median(b), unit });
}

// Warm up the JIT for both paths.
await agentchartAppend(2_000, "none", false);
rawAppend(freshPath(), 2_000, false, linearParent);

await measure(
  "append 10,000 messages (fire-and-forget, flush)",
  () => agentchartAppend(ENTRIES, "none", false),
  () => rawAppend(freshPath(), ENTRIES, false, linearParent),
);
await measure(
  "append 10,000 messages (await each)",
  () => agentchartAppend(ENTRIES, "none", true),
  () => rawAppend(freshPath(), ENTRIES, false, linearParent),
);
await measure(
  "append 300 messages, fsync, await each",
  () => agentchartAppend(300, "fsync", true),
  () => rawAppend(freshPath(), 300, true, linearParent),
);

const linear = await agentchartAppend(ENTRIES, "none", false);
const rawLinear = freshPath();
rawAppend(rawLinear, ENTRIES, false, linearParent);
const reopenRepo = new JsonlSessionRepo({ root });
await measure(
  "reopen 10,000 + buildContext",
  async () => {
    const session = await reopenRepo.open(linear.id);
    if (session.buildContext().messages.length !== ENTRIES) throw new Error("bad context");
    await session.close();
  },
  () => rawReadContext(rawLinear),
);

await measure(
  "read 2.3 MB pi v1 session (migrate) + buildContext",
  () => {
    const parsed = parseSessionText(readFileSync(piSession, "utf8"));
    if (parsed.tree.buildContext().messages.length !== 446) throw new Error("bad context");
  },
  () => rawReadContext(piSession),
);

await measure(
  "tree: 5,000 trunk + 100 branches of 50, append",
  () => agentchartAppend(ENTRIES, "none", false, true),
  () => rawAppend(freshPath(), ENTRIES, false, treeParent),
);
const tree = await agentchartAppend(ENTRIES, "none", false, true);
const rawTree = freshPath();
rawAppend(rawTree, ENTRIES, false, treeParent);
await measure(
  "tree: reopen + buildContext from leaf",
  async () => {
    const session = await reopenRepo.open(tree.id);
    session.buildContext();
    await session.close();
  },
  () => rawReadContext(rawTree),
);

console.log(`Node ${process.version}, median of ${RUNS} runs each\n`);
console.log("| operation | agentchart | floor (raw fs, same run) | ratio |");
console.log("|---|---|---|---|");
for (const row of rows) {
  console.log(
    `| ${row.name} | ${row.ours.toFixed(1)} ms | ${row.floor.toFixed(1)} ms | ${(row.ours / row.floor).toFixed(2)}× |`,
  );
}
rmSync(root, { recursive: true, force: true });

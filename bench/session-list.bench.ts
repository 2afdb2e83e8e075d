// Session listing benchmark: `JsonlSessionRepo.list()` over 1,000 sessions of ~1 MB against 1,000
// sessions of ~1 KB, measured in the same run (target: ≤ 10×); plus pi-written 1 MB files, listed
// before any index exists (cold: the listing scans and writes the indexes) and after.
// Run: node --expose-gc --import tsx bench/session-list.bench.ts [--sessions N] [--rounds N]
import {
  closeSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlSessionRepo } from "../src/node.js";
import { readFirstLine } from "../src/storage/jsonl-files.js";
import { listIndexPathOf } from "../src/storage/session-list-index.js";
import { fmt, pairedRatio, roundRobin, summarize, table } from "./common.js";

const argValue = (flag: string, fallback: number) => {
  const at = process.argv.indexOf(flag);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const SESSIONS = argValue("--sessions", 1_000);
const ROUNDS = argValue("--rounds", 7);
const LARGE_BYTES = 1024 * 1024;
const MESSAGE_TEXT = "lorem ipsum dolor sit amet ".repeat(380); // ~10 KB per message entry
const SHORT_TEXT = "a short question about the code?";

const base = mkdtempSync(join(tmpdir(), "agentchart-list-bench-"));
const roots = { small: join(base, "small"), large: join(base, "large"), pi: join(base, "pi") };
const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });

/** Sessions written through the library (whose writer leaves a list index at close); every other one named early. */
async function writeThroughLibrary(root: string, targetBytes: number, text: string): Promise<void> {
  const repo = new JsonlSessionRepo({ root });
  for (let i = 0; i < SESSIONS; i++) {
    const session = await repo.create({ cwd: `/bench/${i % 10}` });
    if (i % 2 === 0) session.setName(`session ${i}`);
    for (let bytes = 300; bytes < targetBytes; bytes += text.length + 150) session.appendMessage(user(text));
    await session.close();
  }
}

/** Sessions as pi writes them (no index), ~1 MB each; every other one named in its second entry. */
function writeLikePi(root: string): void {
  const dir = join(root, "--bench-pi--");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < SESSIONS; i++) {
    const id = `pi-${String(i).padStart(5, "0")}`;
    const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp, cwd: "/bench/pi" })];
    let parentId: string | null = null;
    for (let n = 0, bytes = 0; bytes < LARGE_BYTES; n++) {
      const entry =
        n === 1 && i % 2 === 0
          ? { type: "session_info", id: `e${n}`, parentId, timestamp, name: `pi session ${i}` }
          : { type: "message", id: `e${n}`, parentId, timestamp, message: user(MESSAGE_TEXT) };
      const line = JSON.stringify(entry);
      lines.push(line);
      bytes += line.length + 1;
      parentId = `e${n}`;
    }
    writeFileSync(join(dir, `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`), `${lines.join("\n")}\n`);
  }
}

function sessionFiles(root: string): string[] {
  return readdirSync(root).flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => join(root, dir, name)),
  );
}

function removeIndexes(root: string): void {
  for (const file of sessionFiles(root)) rmSync(listIndexPathOf(file), { force: true });
}

/** Floor: readdir, then open + read the first line + fstat + close per file, nothing parsed. */
function rawHeaders(root: string): number {
  let bytes = 0;
  for (const file of sessionFiles(root)) {
    const fd = openSync(file, "r");
    bytes += readFirstLine(fd).length;
    fstatSync(fd);
    closeSync(fd);
  }
  return bytes;
}

async function timedList(root: string, expectNamed: number): Promise<number> {
  const repo = new JsonlSessionRepo({ root });
  const start = performance.now();
  const infos = await repo.list();
  const elapsed = performance.now() - start;
  const named = infos.filter((info) => info.name !== undefined).length;
  if (infos.length !== SESSIONS || named !== expectNamed) {
    throw new Error(`listed ${infos.length} sessions, ${named} named; expected ${SESSIONS}, ${expectNamed}`);
  }
  return elapsed;
}

const named = Math.ceil(SESSIONS / 2);
console.log(
  `writing ${SESSIONS} sessions of ~1 KB, ${SESSIONS} of ~1 MB (library) and ${SESSIONS} of ~1 MB (pi-style) …`,
);
await writeThroughLibrary(roots.small, 1024, SHORT_TEXT);
await writeThroughLibrary(roots.large, LARGE_BYTES, MESSAGE_TEXT);
writeLikePi(roots.pi);
const sizeOf = (root: string) =>
  sessionFiles(root).reduce((sum, file) => sum + statSync(file).size, 0) / SESSIONS;
console.log(
  `mean file size: small ${fmt(sizeOf(roots.small))} B, large ${fmt(sizeOf(roots.large) / 1024)} KB, pi ${fmt(sizeOf(roots.pi) / 1024)} KB`,
);

// Cold pi-style listing: no index exists, so each file is scanned backwards for a name (whole files
// for the unnamed half and the early-named half) and an index is written. Measured before each round.
const results = await roundRobin(
  [
    { name: "1 KB", measure: () => timedList(roots.small, named) },
    { name: "1 MB", measure: () => timedList(roots.large, named) },
    // The indexes written by the cold listing of the round before (the warm-up round included).
    { name: "1 MB pi, indexed", measure: () => timedList(roots.pi, named) },
    { name: "floor 1 MB", measure: async () => timeSync(() => rawHeaders(roots.large)) },
    {
      name: "1 MB pi, cold",
      measure: () => {
        removeIndexes(roots.pi);
        return timedList(roots.pi, named);
      },
    },
  ],
  { rounds: ROUNDS, warmup: 1, log: (line) => console.log(line) },
);

function timeSync(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

const small = results.get("1 KB") as number[];
const rows = [...results].map(([name, values]) => {
  const summary = summarize(values);
  const ratio = pairedRatio(values, small);
  return [
    name,
    `${fmt(summary.median)} (${fmt(summary.min)}–${fmt(summary.max)})`,
    fmt((summary.median * 1000) / SESSIONS),
    `${fmt(ratio.median)}× (${fmt(ratio.min)}–${fmt(ratio.max)})`,
  ];
});
console.log(`\nNode ${process.version}, ${SESSIONS} sessions per set, ${ROUNDS} rounds (+1 warm-up)\n`);
console.log(table(["list() of", "ms, median (min–max)", "µs per session", "ratio to 1 KB, paired"], rows));
const largeRatio = pairedRatio(results.get("1 MB") as number[], small);
console.log(
  `\n1 MB / 1 KB = ${fmt(largeRatio.median)}× (target ≤ 10×: ${largeRatio.median <= 10 ? "met" : "missed"})`,
);
rmSync(base, { recursive: true, force: true });

// PostgreSQL session repo vs bare `pg` statements, measured in the same run on the same server.
// Run: npx tsx bench/postgres.bench.ts [--rounds N]   (uses AGENTCHART_TEST_DATABASE_URL, or starts a
// throwaway cluster with .ci/with-postgres.sh when it is not set; prints a markdown table)
import pg from "pg";
import type { AgentMessage } from "../src/index.js";
import { emptyUsage } from "../src/index.js";
import { PostgresSessionRepo } from "../src/postgres.js";
import { fmt, fmtSummary, pairedRatio, roundRobin, summarize, table } from "./common.js";
import { postgresUrl } from "./postgres-server.js";

const url = postgresUrl(import.meta.url);

const roundsArg = process.argv.indexOf("--rounds");
const ROUNDS = roundsArg === -1 ? 7 : Number(process.argv[roundsArg + 1]);
const APPENDS = 300;
const ENTRIES = 10_000;
const schema = `bench_${process.pid}`;

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
        text: `Answer ${i}: the file defines a helper that ${"does something useful ".repeat(6)}`,
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

const pool = new pg.Pool({ connectionString: url, max: 4 });
const repo = new PostgresSessionRepo({ pool, schema });
await pool.query(`CREATE TABLE IF NOT EXISTS bare_entries_${process.pid} (
  session_id text NOT NULL, seq integer NOT NULL, entry jsonb NOT NULL, PRIMARY KEY (session_id, seq))`);
const bareTable = `bare_entries_${process.pid}`;

// The 10,000-entry session for the read rows, and the same rows in the bare table.
const big = await repo.create({ id: "big", cwd: "/bench" });
for (let i = 0; i < ENTRIES; i++) void big.appendMessage(message(i));
await big.close();
await pool.query(
  `INSERT INTO ${bareTable} (session_id, seq, entry) SELECT 'big', seq, entry FROM "${schema}".entries WHERE session_id = 'big'`,
);

let sessionNo = 0;
let bareNo = 0;

/** µs per awaited append through the repo (fenced statement), one session per measurement. */
async function repoAppend(): Promise<number> {
  const session = await repo.create({ id: `append-${sessionNo++}`, cwd: "/bench" });
  const started = performance.now();
  for (let i = 0; i < APPENDS; i++) await session.appendMessage(message(i));
  const elapsed = performance.now() - started;
  await session.close();
  return (elapsed * 1000) / APPENDS;
}

/** µs per awaited bare INSERT of the same entry row (JSON.stringify + one statement). */
async function bareAppend(): Promise<number> {
  const id = `bare-${bareNo++}`;
  let parentId: string | null = null;
  const started = performance.now();
  for (let i = 0; i < APPENDS; i++) {
    const entry: { id: string } & Record<string, unknown> = {
      type: "message",
      id: `e${i}`,
      parentId,
      timestamp: new Date().toISOString(),
      message: message(i),
    };
    await pool.query(`INSERT INTO ${bareTable} (session_id, seq, entry) VALUES ($1, $2, $3::jsonb)`, [
      id,
      i + 1,
      JSON.stringify(entry),
    ]);
    parentId = entry.id;
  }
  return ((performance.now() - started) * 1000) / APPENDS;
}

/** ms to open the 10,000-entry session (taking its lease) and build its context; closing is not timed. */
async function repoOpen(): Promise<number> {
  const started = performance.now();
  const session = await repo.open("big");
  const context = session.buildContext();
  const elapsed = performance.now() - started;
  await session.close();
  if (context.messages.length !== ENTRIES) throw new Error(`context has ${context.messages.length} messages`);
  return elapsed;
}

/** ms for a bare SELECT of the same rows, each parsed with JSON.parse (pg's jsonb parser). */
async function bareOpen(): Promise<number> {
  const started = performance.now();
  const { rows } = await pool.query<{ entry: { message: unknown } }>(
    `SELECT entry FROM ${bareTable} WHERE session_id = 'big' ORDER BY seq`,
  );
  const messages = rows.map((row) => row.entry.message);
  const elapsed = performance.now() - started;
  if (messages.length !== ENTRIES) throw new Error(`read ${messages.length} rows`);
  return elapsed;
}

const log = (text: string) => process.stderr.write(`${text}\n`);
const appends = await roundRobin(
  [
    { name: "repo", measure: repoAppend },
    { name: "bare", measure: bareAppend },
  ],
  { rounds: ROUNDS, warmup: 1, log },
);
const opens = await roundRobin(
  [
    { name: "repo", measure: repoOpen },
    { name: "bare", measure: bareOpen },
  ],
  { rounds: ROUNDS, warmup: 1, log },
);

const { rows: version } = await pool.query<{ server_version: string }>("SHOW server_version");
await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
await pool.query(`DROP TABLE ${bareTable}`);
await pool.end();

const appendRatio = pairedRatio(appends.get("repo")!, appends.get("bare")!);
const openRatio = pairedRatio(opens.get("repo")!, opens.get("bare")!);
console.log(
  `Node ${process.version}, PostgreSQL ${version[0]!.server_version}, ${ROUNDS} rounds (+1 warm-up), medians (min–max); ratios are medians of paired per-round ratios\n`,
);
console.log(
  table(
    ["operation", "PostgresSessionRepo", "bare pg (same run)", "ratio", "target"],
    [
      [
        `append, awaited (µs each, ${APPENDS} per round)`,
        fmtSummary(summarize(appends.get("repo")!)),
        fmtSummary(summarize(appends.get("bare")!)),
        `${fmt(appendRatio.median)}× (${fmt(appendRatio.min)}–${fmt(appendRatio.max)})`,
        "≤ 1.5×",
      ],
      [
        `open + buildContext, ${ENTRIES.toLocaleString("en-US")} entries (ms)`,
        fmtSummary(summarize(opens.get("repo")!)),
        fmtSummary(summarize(opens.get("bare")!)),
        `${fmt(openRatio.median)}× (${fmt(openRatio.min)}–${fmt(openRatio.max)})`,
        "≤ 1.5×",
      ],
    ],
  ),
);

// Throughput of worker processes (`createWorker`, agentchart/postgres) on a simulated model with
// 150–300 ms replies: sessions per second with 1, 2 and 4 worker processes, next to the bare bound
// of the same concurrency (concurrent simulated replies, no database, no queue) measured in the same run.
// Run: npx tsx bench/workers.bench.ts [--sessions N] [--concurrency C]   (uses AGENTCHART_TEST_DATABASE_URL,
// or starts a throwaway cluster with .ci/with-postgres.sh when it is not set; prints a markdown table)
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createClient } from "../src/postgres.js";
import { fmt, table } from "./common.js";
import { postgresUrl } from "./postgres-server.js";

const url = postgresUrl(import.meta.url);
const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const SESSIONS = flag("--sessions", 200);
const CONCURRENCY = flag("--concurrency", 8);
const pool = new pg.Pool({ connectionString: url, max: 2 });

function startWorker(schema: string): { child: ChildProcess; ready: Promise<number> } {
  const file = fileURLToPath(new URL("./worker-process.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", file, url, schema, String(CONCURRENCY)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("READY\n")) resolve(performance.now());
    });
    child.on("exit", (code) => reject(new Error(`worker exited (${code}) before it was ready`)));
  });
  return { child, ready };
}

/** Submits SESSIONS prompts, starts `workers` processes, and times from the first ready one to the last idle session. */
async function run(workers: number): Promise<number> {
  const schema = `bench_workers_${process.pid}_${workers}`;
  const client = await createClient({ connectionString: url, schema });
  for (let i = 0; i < SESSIONS; i++) await client.submit(`s${i}`, `prompt ${i}`, { cwd: "/bench" });
  const started = Array.from({ length: workers }, () => startWorker(schema));
  const t0 = Math.min(...(await Promise.all(started.map((worker) => worker.ready))));
  for (;;) {
    const { rows } = await pool.query<{ idle: number }>(
      `SELECT count(*)::int AS idle FROM "${schema}".runs WHERE state = 'idle'`,
    );
    if (rows[0]!.idle === SESSIONS) break;
    await new Promise((resolve) => setTimeout(resolve, 20)); // polling the figure, not synchronising a test
  }
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(
    started.map(
      ({ child }) =>
        new Promise((resolve) => {
          child.once("exit", resolve);
          child.kill("SIGTERM");
        }),
    ),
  );
  await client.close();
  await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  await pool.query(`DROP SCHEMA "${schema}_jobs" CASCADE`);
  return SESSIONS / seconds;
}

/** The bare bound: the same simulated replies, `concurrency` at a time, nothing else. */
async function bare(concurrency: number): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < SESSIONS)
        await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 150));
    }),
  );
  return SESSIONS / ((performance.now() - t0) / 1000);
}

const rows: string[][] = [];
let single = 0;
for (const workers of [1, 2, 4]) {
  const perSecond = await run(workers);
  const bound = await bare(workers * CONCURRENCY);
  if (workers === 1) single = perSecond;
  rows.push([
    String(workers),
    String(workers * CONCURRENCY),
    fmt(perSecond),
    fmt(bound),
    `${fmt(perSecond / bound)}×`,
    `${fmt(perSecond / single)}×`,
  ]);
}
console.log(
  `${SESSIONS} sessions (one prompt each), ${CONCURRENCY} sessions at a time per worker process, simulated replies of 150–300 ms\n`,
);
console.log(
  table(
    [
      "worker processes",
      "sessions at a time",
      "sessions/s",
      "bare bound sessions/s",
      "of bare",
      "vs 1 worker",
    ],
    rows,
  ),
);
await pool.end();

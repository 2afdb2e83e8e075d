// The database-fault matrix of agentchart/postgres (issue 34): what a fault costs and whether anything
// is lost or duplicated. On a throwaway PostgreSQL cluster this script owns (it stops and starts it):
//  - database stopped 3 s and 30 s under load: 2 worker processes (test/support/worker-child.ts,
//    lease 2 s, replies 150–300 ms) serving 30 sessions whose prompt calls `effect` (idempotent sink);
//    the cluster is stopped once sessions run. Reported: workers alive after it, time from restart to
//    every session idle, transcripts exact, sink keys and keys that arrived twice.
//  - a half-open append connection: an in-process worker (lease 1.5 s) whose next append goes into a
//    connection a loopback proxy blackholes; reported: time from the blackhole to another worker's
//    takeover (lease epoch + 1) and to the session idle, transcript exact.
//  - 1,000 watchers on one client (through the proxy): connections opened, time until every watcher
//    has the entry appended after they all subscribed.
// Run: npx tsx bench/pg-faults.bench.ts [outages | connections]   (one half of the matrix; PostgreSQL 15 binaries in /usr/lib/postgresql/15/bin or PG_BIN;
// prints a markdown table)
import { filter, firstValueFrom, scan } from "rxjs";
import { z } from "zod";
import { type AgentTool, defineTool } from "../src/index.js";
import { createClient, createWorker, PostgresSessionRepo } from "../src/postgres.js";
import { scriptedModel } from "../src/testing.js";
import { OwnCluster } from "../test/postgres-server/own-cluster.js";
import { TcpProxy } from "../test/postgres-server/tcp-proxy.js";
import { ProcessDriver, repoRoot, spawnTs } from "../test/support/cli-process.js";
import { testModel } from "../test/support/loop-harness.js";
import { transcriptReply } from "../test/support/worker-model.js";
import { table } from "./common.js";

const SESSIONS = 30;
const cluster = await OwnCluster.create();
const rows: string[][] = [];
/** Adds a row of the table (and prints it at once: a later stage may take long). */
const report = (row: string[]) => {
  rows.push(row);
  process.stderr.write(`| ${row.join(" | ")} |\n`);
};

/** The message texts of a session, tool calls as "[toolCall]". */
async function texts(repo: PostgresSessionRepo, id: string): Promise<string[]> {
  const lines = (await repo.exportJsonl(id)).trim().split("\n").slice(1);
  return lines
    .map((line) => JSON.parse(line) as { type: string; message?: { content: unknown } })
    .filter((entry) => entry.type === "message")
    .map(({ message }) =>
      typeof message!.content === "string"
        ? message!.content
        : (message!.content as { type: string; text?: string }[])
            .map((block) => (block.type === "text" ? block.text : `[${block.type}]`))
            .join(""),
    );
}

/** Resolves once every session of the schema is idle (polled: a figure, not a test's synchronisation). */
async function allIdle(schema: string, count: number): Promise<void> {
  const pg = (await import("pg")).default;
  const pool = new pg.Pool({ connectionString: cluster.url, max: 1 });
  pool.on("error", () => {});
  try {
    for (;;) {
      const idle = await pool
        .query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".runs WHERE state = 'idle'`)
        .then(
          ({ rows: [row] }) => row!.n,
          () => -1,
        );
      if (idle === count) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await pool.end();
  }
}

async function outage(seconds: number): Promise<void> {
  const schema = `outage_${seconds}`;
  const client = await createClient({ connectionString: cluster.url, schema, heartbeatMs: 1_000 });
  const repo = new PostgresSessionRepo({ connectionString: cluster.url, schema });
  const pg = (await import("pg")).default;
  const setupPool = new pg.Pool({ connectionString: cluster.url, max: 1 });
  setupPool.on("error", () => {}); // its idle connection is closed by the outage
  await setupPool.query(`CREATE TABLE "${schema}".effects (key text PRIMARY KEY, attempts integer NOT NULL)`);
  const workers = [0, 1].map(
    () =>
      new ProcessDriver(
        spawnTs("test/support/worker-child.ts", [cluster.url, schema, "normal"], {
          cwd: repoRoot,
          env: { ...process.env, WORKER_LATENCY: "1" },
        }),
      ),
  );
  await Promise.all(workers.map((worker) => worker.waitFor("READY\n")));
  process.stderr.write(`outage ${seconds} s: workers ready\n`);
  for (let i = 0; i < SESSIONS; i++) await client.submit(`s${i}`, `effect t${i}`, { cwd: "/bench" });
  await Promise.race(workers.map((worker) => worker.waitFor("STARTED ")));
  process.stderr.write(`outage ${seconds} s: stopping the cluster\n`);
  await cluster.stop();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000)); // the outage
  await cluster.start();
  process.stderr.write(`outage ${seconds} s: restarted\n`);
  const restarted = performance.now();
  await allIdle(schema, SESSIONS);
  const recovery = (performance.now() - restarted) / 1000;
  let exact = 0;
  for (let i = 0; i < SESSIONS; i++) {
    const got = await texts(repo, `s${i}`);
    if (JSON.stringify(got) === JSON.stringify([`effect t${i}`, "[toolCall]", "applied", "done: applied"]))
      exact++;
  }
  const { rows: effects } = await setupPool.query<{ attempts: number }>(
    `SELECT attempts FROM "${schema}".effects`,
  );
  const alive = workers.filter(
    (worker) => worker.child.exitCode === null && worker.child.signalCode === null,
  ).length;
  report([
    `database stopped ${seconds} s under load (2 workers, ${SESSIONS} sessions)`,
    `${alive}/2 alive`,
    `${(recovery).toFixed(1)} s restart → all idle`,
    `${exact}/${SESSIONS} exact; ${effects.length} keys, ${effects.filter((effect) => effect.attempts > 1).length} twice`,
    "—",
  ]);
  for (const worker of workers) worker.child.kill("SIGTERM");
  await Promise.all(workers.map((worker) => worker.exited));
  await setupPool.end();
  await repo.close();
  await client.close();
}

async function halfOpen(): Promise<void> {
  const schema = "half_open";
  const client = await createClient({ connectionString: cluster.url, schema });
  const repo = new PostgresSessionRepo({ connectionString: cluster.url, schema });
  const proxy = await TcpProxy.start(cluster.url);
  let runs = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started!: () => void;
  const startedRun = new Promise<void>((resolve) => {
    started = resolve;
  });
  const slow = defineTool({
    name: "slow",
    description: "Works until released",
    parameters: z.object({ target: z.string() }),
    execute: async () => {
      if (++runs === 1) {
        started();
        await released;
      }
      return { content: [{ type: "text", text: "slow done" }] };
    },
  });
  const start = (connectionString: string) =>
    createWorker({
      connectionString,
      schema,
      concurrency: 1,
      leaseMs: 1_500,
      handleSignals: false,
      recordDeltas: false,
      harness: () => ({
        model: testModel,
        streamFn: scriptedModel(Array.from({ length: 4 }, () => transcriptReply)),
        tools: [{ ...slow, replay: "safe" } as AgentTool],
      }),
      onError: () => {},
    });
  const stuck = await start(proxy.url);
  await client.submit("half", "slow target", { cwd: "/bench" });
  await startedRun;
  const blackholed = proxy.blackholeWhen((chunk) => chunk.includes("WITH leased AS"));
  release();
  await blackholed;
  const t0 = performance.now();
  const successor = await start(cluster.url); // started now: the stuck worker had the session
  const pg = (await import("pg")).default;
  const pool = new pg.Pool({ connectionString: cluster.url, max: 1 });
  let takeover = 0;
  for (;;) {
    const {
      rows: [row],
    } = await pool.query<{ epoch: number; state: string }>(
      `SELECT s.lease_epoch::int AS epoch, r.state FROM "${schema}".sessions s JOIN "${schema}".runs r ON r.session_id = s.id WHERE s.id = 'half'`,
    );
    if (takeover === 0 && row!.epoch > 1) takeover = performance.now() - t0;
    if (row!.state === "idle" && takeover > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20)); // polling the figure
  }
  const idle = performance.now() - t0;
  const exact =
    JSON.stringify(await texts(repo, "half")) ===
    JSON.stringify(["slow target", "[toolCall]", "slow done", "done: slow done"]);
  report([
    "half-open append connection (lease 1.5 s)",
    "stuck worker fenced",
    `takeover ${(takeover / 1000).toFixed(2)} s, idle ${(idle / 1000).toFixed(2)} s after the blackhole`,
    exact ? "1/1 exact" : "transcript differs",
    "—",
  ]);
  await pool.end();
  await proxy.close();
  await stuck.stop();
  await successor.stop();
  await repo.close();
  await client.close();
}

async function watchers(): Promise<void> {
  const schema = "watchers";
  const proxy = await TcpProxy.start(cluster.url);
  const client = await createClient({ connectionString: proxy.url, schema });
  const repo = new PostgresSessionRepo({ connectionString: cluster.url, schema });
  const sessions = await Promise.all(
    Array.from({ length: 10 }, (_, i) => repo.create({ id: `w${i}`, cwd: "/bench" })),
  );
  const opened = proxy.opened;
  const seen = Array.from({ length: 1_000 }, (_, i) =>
    firstValueFrom(
      client.watch(`w${i % 10}`, { afterSeq: 0 }).pipe(
        scan((count, update) => count + (update.type === "entry" ? 1 : 0), 0),
        filter((count) => count === 1),
      ),
    ),
  );
  const t0 = performance.now();
  for (const session of sessions)
    void session.appendMessage({ role: "user", content: "hello", timestamp: 1 });
  await Promise.all(sessions.map((session) => session.flush()));
  await Promise.all(seen);
  const elapsed = performance.now() - t0;
  report([
    "1,000 watchers on one client (10 sessions)",
    `${proxy.opened} connections (${opened} before the watches)`,
    `${(elapsed).toFixed(0)} ms until every watcher had the entry`,
    "1,000/1,000 got it once",
    "—",
  ]);
  for (const session of sessions) await session.close();
  await client.close();
  await proxy.close();
  await repo.close();
}

const only = process.argv[2];
process.on("SIGTERM", () => void cluster.destroy().finally(() => process.exit(143)));
try {
  if (only === "outages" || only === "connections") {
    if (only === "outages") {
      await outage(3);
      await outage(30);
    } else {
      await halfOpen();
      await watchers();
    }
    console.log(table(["fault", "processes / connections", "time", "lost or duplicated", ""], rows));
    await cluster.destroy();
    process.exit(0);
  }
  await outage(3);
  await outage(30);
  await halfOpen();
  await watchers();
  console.log(table(["fault", "processes / connections", "time", "lost or duplicated", ""], rows));
} finally {
  await cluster.destroy();
}

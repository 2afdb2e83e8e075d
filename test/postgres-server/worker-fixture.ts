import pg from "pg";
import { filter, firstValueFrom, scan } from "rxjs";
import { afterAll, afterEach } from "vitest";
import { type CallAddress, callKey } from "../../src/commands/addressed-command.js";
import { CHANGE_CHANNEL } from "../../src/postgres/postgres-schema.js";
import {
  type AgentClient,
  createClient,
  PostgresSessionRepo,
  type SessionUpdate,
} from "../../src/postgres.js";
import { ProcessDriver, repoRoot, spawnTs } from "../support/cli-process.js";
import { DATABASE_URL_VARIABLE } from "./require-server.js";
import { serverPool } from "./server-pool.js";

/** Worker processes and a client on a fresh schema of the test server; all stopped after each test. */
export function workerFixture(prefix: string) {
  const server = serverPool(prefix);
  const url = process.env[DATABASE_URL_VARIABLE]!;
  const children: ProcessDriver[] = [];
  const clients: AgentClient[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGKILL");
      await child.exited;
    }
    for (const client of clients.splice(0)) await client.close();
  });
  afterAll(async () => {
    // pg-boss's schemas, next to each session schema.
    const { rows } = await server.pool.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`,
      [`${prefix}\\_%\\_jobs`],
    );
    for (const row of rows) await server.pool.query(`DROP SCHEMA IF EXISTS "${row.nspname}" CASCADE`);
  });

  return {
    server,
    url,
    /** A fresh schema with the session tables and the effects sink; a client on it. */
    async setup(): Promise<{ schema: string; client: AgentClient; repo: PostgresSessionRepo }> {
      const schema = server.schema();
      const client = await createClient({ connectionString: url, schema });
      clients.push(client);
      await server.pool.query(
        `CREATE TABLE "${schema}".effects (key text PRIMARY KEY, attempts integer NOT NULL)`,
      );
      return { schema, client, repo: new PostgresSessionRepo({ pool: server.pool, schema }) };
    },
    /** Starts `script` (default test/support/worker-child.ts) and waits until it serves. */
    async startWorker(
      schema: string,
      mode = "normal",
      drainMs?: number,
      env: NodeJS.ProcessEnv = {},
      script = "test/support/worker-child.ts",
    ): Promise<ProcessDriver> {
      const args = [url, schema, mode, ...(drainMs === undefined ? [] : [String(drainMs)])];
      const child = new ProcessDriver(
        spawnTs(script, args, { cwd: repoRoot, env: { ...process.env, ...env } }),
      );
      children.push(child);
      await child.waitFor("READY\n");
      return child;
    },
    /**
     * What the session holds of the worker tables: the parked run's `paused` column (the pauses it
     * waits at; no row: `[]`, approvals only: `[null]`), whether it is leased, its commands' kinds.
     */
    async parkedRow(schema: string, sessionId: string) {
      const query = async (sql: string) => (await server.pool.query(sql, [sessionId])).rows;
      const lease = await query(`SELECT lease_owner FROM "${schema}".sessions WHERE id = $1`);
      return {
        paused: (await query(`SELECT paused FROM "${schema}".parked_runs WHERE session_id = $1`)).map(
          (row) => row.paused as unknown,
        ),
        leased: lease[0]?.lease_owner !== null,
        commands: await query(`SELECT kind FROM "${schema}".commands WHERE session_id = $1 ORDER BY id`),
      };
    },
    /** The effects sink's rows. */
    async effects(schema: string): Promise<{ key: string; attempts: number }[]> {
      const { rows } = await server.pool.query<{ key: string; attempts: number }>(
        `SELECT key, attempts FROM "${schema}".effects ORDER BY key`,
      );
      return rows;
    },
  };
}

/** Resolves with the updates seen until the session's run state is `state` (after `afterSeq`). */
export function watchUntil(
  client: AgentClient,
  sessionId: string,
  state: string,
  afterSeq = 0,
): Promise<SessionUpdate[]> {
  return firstValueFrom(
    client.watch(sessionId, { afterSeq }).pipe(
      scan((seen, update) => [...seen, update], [] as SessionUpdate[]),
      filter((seen) => {
        const last = seen.at(-1)!;
        return last.type === "run_state" && last.state === state;
      }),
    ),
  );
}

/** The texts of the session's messages (tool calls as "[toolCall]"), read without its lease. */
export async function messageTexts(repo: PostgresSessionRepo, sessionId: string): Promise<string[]> {
  const lines = (await repo.exportJsonl(sessionId)).split("\n").filter(Boolean).slice(1);
  const texts: string[] = [];
  for (const line of lines) {
    const entry = JSON.parse(line) as { type: string; message?: { content: unknown } };
    if (entry.type !== "message") continue;
    const content = entry.message!.content;
    if (typeof content === "string") texts.push(content);
    else
      texts.push(
        (content as { type: string; text?: string }[])
          .map((block) => (block.type === "text" ? block.text : `[${block.type}]`))
          .join(""),
      );
  }
  return texts;
}

/**
 * Resolves once `request` waits for approval in the session (a parked run's call, or a live run's),
 * checked at each change notice of the session.
 */
export function untilAwaiting(client: AgentClient, sessionId: string, request: CallAddress): Promise<void> {
  return untilTrue(sessionId, async () =>
    (await client.approvalRequests(sessionId)).some((candidate) => callKey(candidate) === callKey(request)),
  );
}

/** Resolves once `check` holds, checked now and at each change notice of the session. */
export async function untilTrue(sessionId: string, check: () => Promise<boolean>): Promise<void> {
  const listener = new pg.Client({ connectionString: process.env[DATABASE_URL_VARIABLE] });
  await listener.connect();
  try {
    await listener.query(`LISTEN ${CHANGE_CHANNEL}`);
    await new Promise<void>((resolve, reject) => {
      const test = () =>
        check().then((holds) => {
          if (holds) resolve();
        }, reject);
      listener.on("notification", (notice) => {
        if (notice.payload?.endsWith(`/${sessionId}`)) void test();
      });
      void test();
    });
  } finally {
    await listener.end();
  }
}

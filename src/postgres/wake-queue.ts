import type PgBoss from "pg-boss";
import { PgBossQueue } from "./pg-driver.js";
import type { PostgresQueryable } from "./postgres-pool.js";
import { WAKE_CHANNEL } from "./postgres-schema.js";

/** The pg-boss queue of "wake session X" jobs. */
export const WAKE_QUEUE = "agentchart-wake";

/** The data of a wake job. */
export interface WakeJob {
  sessionId: string;
}

/** The schema pg-boss keeps its tables in, next to the session schema (`<schema>_jobs`). */
export function jobSchemaOf(schema: string): string {
  return `${schema}_jobs`;
}

/**
 * Starts pg-boss on `connectionString` (its tables in `<schema>_jobs`, created on first use) with the
 * wake queue: policy `short`, so at most one wake job per session waits at a time (more wakes while
 * one waits are dropped; a wake while a job runs queues one more, so nothing written meanwhile is
 * missed). `supervise` runs pg-boss's maintenance (expiry, retention) — workers do, clients do not.
 */
export async function startWakeQueue(
  connectionString: string,
  schema: string,
  options: { supervise: boolean; max?: number },
): Promise<PgBoss> {
  const boss = new PgBossQueue({
    connectionString,
    schema: jobSchemaOf(schema),
    supervise: options.supervise,
    schedule: false,
    ...(options.max === undefined ? {} : { max: options.max }),
  });
  // A broken idle connection is reported here; without a listener it would crash the process.
  boss.on("error", () => {});
  await boss.start();
  await boss.createQueue(WAKE_QUEUE, { name: WAKE_QUEUE, policy: "short", retryLimit: 5, retryDelay: 1 });
  return boss;
}

/**
 * Sends a wake job for the session (dropped if one already waits), then announces it on
 * {@link WAKE_CHANNEL} so that idle workers of `schema` fetch it at once — both on `db`, so that
 * within a transaction they happen only if it commits.
 */
export async function wakeSession(
  boss: PgBoss,
  db: PostgresQueryable,
  schema: string,
  sessionId: string,
): Promise<void> {
  const job: WakeJob = { sessionId };
  const executeSql = (text: string, values?: unknown[]) => db.query(text, values);
  await boss.send(WAKE_QUEUE, job, { singletonKey: sessionId, db: { executeSql } });
  await db.query("SELECT pg_notify($1, $2)", [WAKE_CHANNEL, schema]);
}

import type PgBoss from "pg-boss";
import { defer, EMPTY, type Observable, switchMap } from "rxjs";
import { SessionError } from "../types/session-error.js";
import { pg } from "./pg-driver.js";
import { quoteSchema } from "./postgres-schema.js";
import { PostgresSessionRepo } from "./postgres-session-repo.js";
import { RunStore, type SessionCommand } from "./run-store.js";
import { type SessionUpdate, WatchRegistry, watchSession } from "./session-watch.js";
import { startWakeQueue, wakeSession } from "./wake-queue.js";

/** Options of {@link createClient}. */
export interface ClientOptions {
  connectionString: string;
  /** Schema of the session tables (default "agentchart"), as the workers use it. */
  schema?: string;
  /** `watch` polls this often (ms) when LISTEN/NOTIFY is unavailable (default 500). */
  pollMs?: number;
}

/** What `submit` stored. */
export interface Submitted {
  sessionId: string;
  /** The number of entries the session held before the prompt: `watch(id, { afterSeq })` from here. */
  afterSeq: number;
}

/** An app's handle on sessions served by workers: every call writes a command and wakes the session. */
export interface AgentClient {
  /**
   * Queues a prompt for the session (created, with `cwd`, on first submit) and wakes it.
   * @throws SessionError("invalid_id") for a malformed id, ("storage") when the database fails.
   */
  submit(sessionId: string, prompt: string, options?: { cwd?: string }): Promise<Submitted>;
  /** Steers the running turn (a prompt when the session is idle). */
  steer(sessionId: string, text: string): Promise<void>;
  /** Follows up after the run (a prompt when the session is idle). */
  followUp(sessionId: string, text: string): Promise<void>;
  /** Aborts the running turn (nothing when none runs). */
  abort(sessionId: string): Promise<void>;
  /** Approves a tool call waiting for approval: the run goes on, on any worker. */
  approve(sessionId: string, toolCallId: string): Promise<void>;
  /** Denies a tool call waiting for approval (its result is the error "Tool call denied: reason"). */
  deny(sessionId: string, toolCallId: string, reason?: string): Promise<void>;
  /**
   * New entries (after `afterSeq`, default: those stored when the watch starts) and run-state changes
   * of the session; LISTEN/NOTIFY, falling back to polling.
   */
  watch(sessionId: string, options?: { afterSeq?: number }): Observable<SessionUpdate>;
  /**
   * Ends every `watch()` of this client (their subscribers complete) and closes the client's
   * connections, theirs included, so that nothing keeps the process alive. Later watches error.
   */
  close(): Promise<void>;
}

/**
 * A client for apps: writes commands for sessions served by workers (`createWorker`) and watches
 * the sessions. Rejects when the database or the queue cannot be reached.
 */
export async function createClient(options: ClientOptions): Promise<AgentClient> {
  const schema = options.schema ?? "agentchart";
  const s = quoteSchema(schema);
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 4 });
  pool.on("error", () => {});
  const repo = new PostgresSessionRepo({ pool, schema });
  const store = new RunStore(pool, s);
  const watches = new WatchRegistry();
  let boss: PgBoss;
  try {
    await repo.list({ cwd: "/" }); // creates or upgrades the schema
    boss = await startWakeQueue(options.connectionString, schema, { supervise: false, max: 2 });
  } catch (error) {
    await pool.end();
    throw error;
  }

  const entryCount = async (sessionId: string): Promise<number | undefined> => {
    const { rows } = await pool.query<{ count: number }>(
      `SELECT entry_count AS count FROM ${s}.sessions WHERE id = $1`,
      [sessionId],
    );
    return rows[0]?.count;
  };
  const send = async (sessionId: string, command: SessionCommand): Promise<void> => {
    if ((await entryCount(sessionId)) === undefined) {
      throw new SessionError("not_found", `Session "${sessionId}" does not exist in schema "${schema}".`);
    }
    await store.addCommand(sessionId, command);
    await wakeSession(boss, pool, schema, sessionId);
  };

  return {
    async submit(sessionId, prompt, submitOptions = {}) {
      let afterSeq = await entryCount(sessionId);
      if (afterSeq === undefined) {
        try {
          const created = await repo.create({ id: sessionId, cwd: submitOptions.cwd ?? process.cwd() });
          await created.close();
        } catch (error) {
          if (!(error instanceof SessionError && error.code === "already_exists")) throw error;
        }
        afterSeq = (await entryCount(sessionId)) ?? 0;
      }
      await store.addCommand(sessionId, { kind: "prompt", text: prompt });
      await wakeSession(boss, pool, schema, sessionId);
      return { sessionId, afterSeq };
    },
    steer: (sessionId, text) => send(sessionId, { kind: "steer", text }),
    followUp: (sessionId, text) => send(sessionId, { kind: "followUp", text }),
    abort: (sessionId) => send(sessionId, { kind: "abort" }),
    approve: (sessionId, toolCallId) => send(sessionId, { kind: "approve", toolCallId }),
    deny: (sessionId, toolCallId, reason) =>
      send(
        sessionId,
        reason === undefined ? { kind: "deny", toolCallId } : { kind: "deny", toolCallId, reason },
      ),
    watch(sessionId, watchOptions = {}) {
      const source = {
        connectionString: options.connectionString,
        pool,
        s,
        schema,
        store,
        pollMs: options.pollMs ?? 500,
        watches,
      };
      if (watchOptions.afterSeq !== undefined) return watchSession(source, sessionId, watchOptions.afterSeq);
      // A close while the count is read ends the watch before it starts.
      return defer(() => entryCount(sessionId)).pipe(
        switchMap((count) => (watches.ended ? EMPTY : watchSession(source, sessionId, count ?? 0))),
      );
    },
    async close() {
      await watches.endAll();
      await boss.stop({ graceful: false, wait: true });
      await pool.end();
    },
  };
}

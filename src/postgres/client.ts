import type PgBoss from "pg-boss";
import { defer, EMPTY, type Observable, switchMap } from "rxjs";
import type { AgentPathOption } from "../agent/agent.js";
import { SessionError } from "../types/session-error.js";
import { type ApprovalRequest, approvalRequestOf } from "./approval-wait.js";
import { type ClientRun, ClientRuns } from "./client-runs.js";
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

/** What `watch` reports without `deltas`: entries and run-state changes. */
export type SessionEntryUpdate = Exclude<SessionUpdate, { type: "delta" }>;

/** Options of `watch`. */
type WatchOptions = { afterSeq?: number; afterPosition?: number; deltas?: boolean };

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
  /**
   * Approves a tool call waiting for approval — a sub-agent's with its `agentPath` (as
   * `approvalRequests` lists it): the run goes on, on any worker.
   */
  approve(sessionId: string, toolCallId: string, options?: AgentPathOption): Promise<void>;
  /** Denies a tool call waiting for approval (its result is the error "Tool call denied: reason"). */
  deny(sessionId: string, toolCallId: string, reason?: string, options?: AgentPathOption): Promise<void>;
  /**
   * New entries (after `afterSeq`, default: those stored when the watch starts) and run-state changes
   * of the session; LISTEN/NOTIFY, falling back to polling.
   */
  watch(sessionId: string, options?: { afterSeq?: number; deltas?: false }): Observable<SessionEntryUpdate>;
  /**
   * With `deltas: true`, also the recorded deltas of the reply streaming now (see `WorkerOptions.recordDeltas`),
   * in stream order: a reader that joins mid-reply gets the reply's deltas so far, then the live
   * ones, then the reply's message entry, which supersedes them (they are deleted once it is stored:
   * a reader that was not reading meanwhile gets the message without the deltas it missed). `afterPosition` (an update's `position`) resumes after that update exactly; without it,
   * after entry `afterSeq` (default: the entries stored when the watch starts).
   *
   * ```ts
   * client.watch("s1", { afterSeq: 4, deltas: true }).subscribe((update) => {
   *   if (update.type === "delta" && update.delta.type === "text_delta") process.stdout.write(update.delta.delta);
   * });
   * ```
   */
  watch(
    sessionId: string,
    options: { afterSeq?: number; afterPosition?: number; deltas: true },
  ): Observable<SessionUpdate>;
  /**
   * Starts a run named `runId` once: stores the prompt as a command (as `submit` does, creating the
   * session with `cwd` on first use) and records the run, at the session's current entry count, so
   * that any process can find and replay it (`run`). A run that exists is returned as it is
   * (`started: false`), its prompt not sent again.
   * @throws SessionError("locked") while the session runs another run (or one waits for approval),
   * ("invalid_id") for a malformed id, ("storage") when the database fails.
   */
  startRun(
    sessionId: string,
    runId: string,
    prompt: string,
    options?: { cwd?: string },
  ): Promise<{ run: ClientRun; started: boolean }>;
  /** The run named `runId` of the session, if one was started (`startRun`). */
  run(sessionId: string, runId: string): Promise<ClientRun | undefined>;
  /**
   * The ids of the root agent's tool calls a parked run of the session waits on for approval (none:
   * `[]`); `approvalRequests` lists sub-agents' calls too.
   */
  awaitingApproval(sessionId: string): Promise<string[]>;
  /**
   * The tool calls a parked run of the session waits on for approval, at every depth: a sub-agent's
   * with its `agentPath` (pass it to `approve`/`deny`). None: `[]`.
   *
   * ```ts
   * for (const { toolCallId, agentPath } of await client.approvalRequests("s1"))
   *   await client.approve("s1", toolCallId, { agentPath });
   * ```
   */
  approvalRequests(sessionId: string): Promise<ApprovalRequest[]>;
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
  const runs = new ClientRuns(pool, s);
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
  /** Creates the session (with `cwd`) unless it exists; resolves with its entry count. */
  const ensureSession = async (sessionId: string, cwd: string | undefined): Promise<number> => {
    const count = await entryCount(sessionId);
    if (count !== undefined) return count;
    try {
      const created = await repo.create({ id: sessionId, cwd: cwd ?? process.cwd() });
      await created.close();
    } catch (error) {
      if (!(error instanceof SessionError && error.code === "already_exists")) throw error;
    }
    return (await entryCount(sessionId)) ?? 0;
  };
  const send = async (sessionId: string, command: SessionCommand): Promise<void> => {
    if ((await entryCount(sessionId)) === undefined) {
      throw new SessionError("not_found", `Session "${sessionId}" does not exist in schema "${schema}".`);
    }
    await store.addCommand(sessionId, command);
    await wakeSession(boss, pool, schema, sessionId);
  };

  const watch = (sessionId: string, watchOptions: WatchOptions = {}): Observable<SessionUpdate> => {
    const source = {
      connectionString: options.connectionString,
      pool,
      s,
      schema,
      store,
      pollMs: options.pollMs ?? 500,
      watches,
    };
    const deltas = watchOptions.deltas === true;
    const afterPosition = deltas ? watchOptions.afterPosition : undefined;
    if (watchOptions.afterSeq !== undefined || afterPosition !== undefined) {
      const afterSeq = watchOptions.afterSeq ?? 0;
      return watchSession(source, sessionId, {
        afterSeq,
        deltas,
        ...(afterPosition === undefined ? {} : { afterPosition }),
      });
    }
    // A close while the count is read ends the watch before it starts.
    return defer(() => entryCount(sessionId)).pipe(
      switchMap((count) =>
        watches.ended ? EMPTY : watchSession(source, sessionId, { afterSeq: count ?? 0, deltas }),
      ),
    );
  };

  return {
    async submit(sessionId, prompt, submitOptions = {}) {
      const afterSeq = await ensureSession(sessionId, submitOptions.cwd);
      await store.addCommand(sessionId, { kind: "prompt", text: prompt });
      await wakeSession(boss, pool, schema, sessionId);
      return { sessionId, afterSeq };
    },
    steer: (sessionId, text) => send(sessionId, { kind: "steer", text }),
    followUp: (sessionId, text) => send(sessionId, { kind: "followUp", text }),
    abort: (sessionId) => send(sessionId, { kind: "abort" }),
    approve: (sessionId, toolCallId, decisionOptions = {}) =>
      send(sessionId, { kind: "approve", toolCallId, ...pathOf(decisionOptions) }),
    deny: (sessionId, toolCallId, reason, decisionOptions = {}) =>
      send(sessionId, {
        kind: "deny",
        toolCallId,
        ...(reason === undefined ? {} : { reason }),
        ...pathOf(decisionOptions),
      }),
    watch: watch as AgentClient["watch"],
    async startRun(sessionId, runId, prompt, runOptions = {}) {
      await ensureSession(sessionId, runOptions.cwd);
      const started = await runs.start(sessionId, runId, prompt);
      if (started.started) await wakeSession(boss, pool, schema, sessionId);
      return started;
    },
    run: (sessionId, runId) => runs.find(sessionId, runId),
    awaitingApproval: async (sessionId) =>
      ((await store.parked(sessionId))?.awaiting ?? []).filter((key) => !approvalRequestOf(key).agentPath),
    approvalRequests: async (sessionId) =>
      ((await store.parked(sessionId))?.awaiting ?? []).map(approvalRequestOf),
    async close() {
      await watches.endAll();
      await boss.stop({ graceful: false, wait: true });
      await pool.end();
    },
  };
}

/** The `agentPath` field of a decision command (none for the root's calls). */
function pathOf(options: AgentPathOption): { agentPath?: string[] } {
  return options.agentPath && options.agentPath.length > 0 ? { agentPath: [...options.agentPath] } : {};
}

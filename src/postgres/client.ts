import type PgBoss from "pg-boss";
import { defer, EMPTY, type Observable, switchMap } from "rxjs";
import {
  type AddressedCommand,
  type AgentAddress,
  addressOf,
  type CallAddress,
  callOfKey,
} from "../commands/addressed-command.js";
import { CommandError } from "../commands/command-error.js";
import { parseAgentCommand } from "../commands/parse-command.js";
import { userMessage } from "../loop/messages.js";
import { assertValidSessionId } from "../storage/ids.js";
import type { BudgetPause } from "../types/budget.js";
import { SessionError } from "../types/session-error.js";
import { type ClientRun, ClientRuns } from "./client-runs.js";
import { NoticeListener } from "./notice-listener.js";
import { pg } from "./pg-driver.js";
import { inTransaction } from "./postgres-pool.js";
import { CHANGE_CHANNEL, quoteSchema } from "./postgres-schema.js";
import { PostgresSessionRepo } from "./postgres-session-repo.js";
import { RunStore } from "./run-store.js";
import { type SessionUpdate, WatchRegistry, watchSession } from "./session-watch.js";
import { startWakeQueue, wakeSession } from "./wake-queue.js";

/** Options of {@link createClient}. */
export interface ClientOptions {
  connectionString: string;
  /** Schema of the session tables (default "agentchart"), as the workers use it. */
  schema?: string;
  /** `watch` polls this often (ms) while LISTEN/NOTIFY is unavailable (default 500). */
  pollMs?: number;
  /**
   * The watches' shared LISTEN connection is proven alive this often, and dropped and made again
   * when a round trip takes longer than this (ms, default 5 000): a silent connection stalls watches
   * (they poll meanwhile) for at most about twice this.
   */
  heartbeatMs?: number;
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
   * Queues a prompt for the session (created, with `cwd`, on first submit) and wakes it, in one
   * transaction: when it fails, nothing was created or queued. Any text is stored exactly (NUL and
   * lone surrogates included).
   * @throws SessionError("invalid_id") for a malformed id or cwd, ("storage") when the database fails.
   */
  submit(sessionId: string, prompt: string, options?: { cwd?: string }): Promise<Submitted>;
  /**
   * Stores a command of the machine's vocabulary for the session and wakes it — the one way the client
   * drives a run; the methods below are shorthands that build these commands. The command is read
   * with `parseAgentCommand` first (what it accepts is what a row may hold). A decision
   * (`APPROVE_TOOL`, `DENY_TOOL`) is stored only while the call it names waits for approval (a
   * parked run's, or a live run's), bound to that call's approval request — it can never answer a
   * later call under the same id; of decisions on one request sent before a worker applies them,
   * the last one counts. `RAISE_BUDGET` / `CONTINUE_ONCE` are stored only while the session's run is
   * parked with a run at a budget limit at the command's `agentPath` (none: the root's; see
   * `awaitingBudget`). Anything else a worker decides when it takes the row; one it cannot
   * apply (a client's result for a call that does not wait, a command for a sub-agent's queue) is
   * recorded in the session as an `agentchart.command_refused` entry that `watch` shows.
   * @throws CommandError("invalid_command") for what is not a command; ("not_waiting") — naming the
   * agent path and call — when the call does not wait for approval, or no run waits at a budget
   * limit at that path (nothing is stored); SessionError("not_found") for an unknown session,
   * ("invalid_id") for a malformed id.
   *
   * ```ts
   * import { createClient } from "agentchart/postgres";
   * const client = await createClient({ connectionString: "postgres://localhost/app" });
   * await client.send("s1", { type: "RAISE_BUDGET", limits: { maxModelCalls: 20 } });
   * ```
   */
  send(sessionId: string, command: AddressedCommand): Promise<void>;
  /** Steers the running turn (a prompt when the session is idle): `send` of a `STEER`. */
  steer(sessionId: string, text: string): Promise<void>;
  /** Follows up after the run (a prompt when the session is idle): `send` of a `FOLLOW_UP`. */
  followUp(sessionId: string, text: string): Promise<void>;
  /** Aborts the running turn, or the parked run (nothing when none runs): `send` of an `ABORT`. */
  abort(sessionId: string): Promise<void>;
  /**
   * Approves a tool call waiting for approval — a sub-agent's with its `agentPath` (as
   * `approvalRequests` lists it): `send` of an `APPROVE_TOOL`; the run goes on, on any worker.
   * @throws CommandError("not_waiting") when the call does not wait for approval now (see `send`).
   */
  approve(sessionId: string, toolCallId: string, options?: AgentAddress): Promise<void>;
  /**
   * Denies a tool call waiting for approval (its result is the error "Tool call denied: reason"):
   * `send` of a `DENY_TOOL`.
   * @throws CommandError("not_waiting") when the call does not wait for approval now (see `send`).
   */
  deny(sessionId: string, toolCallId: string, reason?: string, options?: AgentAddress): Promise<void>;
  /**
   * New entries (after `afterSeq`, default: those stored when the watch starts) and run-state changes
   * of the session; LISTEN/NOTIFY on one connection all watches of the client share (kept alive by a
   * heartbeat, made again when it goes silent), falling back to polling meanwhile.
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
   * const client = await createClient({ connectionString: process.env.DATABASE_URL! });
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
   * The ids of the root agent's tool calls that wait for approval now — of a parked run, or of a run
   * going on — (none: `[]`); `approvalRequests` lists sub-agents' calls too.
   */
  awaitingApproval(sessionId: string): Promise<string[]>;
  /**
   * The tool calls that wait for approval now (of a parked run, or of a run going on), at every
   * depth, in the order they asked: a sub-agent's with its `agentPath` (pass it to `approve`/`deny`).
   * None: `[]`.
   *
   * ```ts
   * const client = await createClient({ connectionString: process.env.DATABASE_URL! });
   * for (const { toolCallId, agentPath } of await client.approvalRequests("s1"))
   *   await client.approve("s1", toolCallId, { agentPath });
   * ```
   */
  approvalRequests(sessionId: string): Promise<CallAddress[]>;
  /**
   * The runs of the session's parked run waiting at a budget limit or loop breaker — the root's
   * first, each sub-agent's (any depth) with its `agentPath` — as `state.awaitingBudget` listed them
   * when it was parked; none (`[]`) when no run is parked at a limit. A `RAISE_BUDGET` or
   * `CONTINUE_ONCE` with that `agentPath` (or `ABORT`) goes on.
   *
   * ```ts
   * const client = await createClient({ connectionString: process.env.DATABASE_URL! });
   * for (const { budget, limit, agentPath } of await client.awaitingBudget("s1"))
   *   await client.send("s1", { type: "RAISE_BUDGET", limits: { [budget]: limit * 2 }, ...(agentPath ? { agentPath } : {}) });
   * ```
   */
  awaitingBudget(sessionId: string): Promise<BudgetPause[]>;
  /**
   * The first of `awaitingBudget(sessionId)`: the limit the parked run waits at (a sub-agent's with
   * its `agentPath`), or `undefined` when no run is parked at one.
   */
  budgetPause(sessionId: string): Promise<BudgetPause | undefined>;
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
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const listener = new NoticeListener({
    connectionString: options.connectionString,
    channel: CHANGE_CHANNEL,
    heartbeatMs,
    heartbeatTimeoutMs: heartbeatMs,
  });
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
  const notFound = (sessionId: string) =>
    new SessionError("not_found", `Session "${sessionId}" does not exist in schema "${schema}".`);
  /** The entry count of an existing session. @throws SessionError("invalid_id"), ("not_found"). */
  const existing = async (sessionId: string): Promise<number> => {
    assertValidSessionId(sessionId);
    const count = await entryCount(sessionId);
    if (count === undefined) throw notFound(sessionId);
    return count;
  };
  const send = async (sessionId: string, json: AddressedCommand): Promise<void> => {
    const command = parseAgentCommand(json);
    await existing(sessionId);
    const refused = (what: string) => {
      const at = command.agentPath ? ` at agent path ${command.agentPath.join("/")}` : "";
      const call = "toolCallId" in command ? { toolCallId: command.toolCallId } : {};
      return new CommandError(
        "not_waiting",
        `${command.type}: ${what}${at} in session "${sessionId}"; nothing was stored.`,
        { command: command.type, ...(command.agentPath ? { agentPath: command.agentPath } : {}), ...call },
      );
    };
    if (command.type === "APPROVE_TOOL" || command.type === "DENY_TOOL") {
      if ((await store.addDecision(sessionId, command)) === undefined)
        throw refused(`tool call "${command.toolCallId}" does not wait for approval now`);
    } else if (command.type === "RAISE_BUDGET" || command.type === "CONTINUE_ONCE") {
      if ((await store.addBudgetCommand(sessionId, command)) === undefined)
        throw refused("no run waits at a budget limit");
    } else await store.addCommand(sessionId, command);
    await wakeSession(boss, pool, schema, sessionId);
  };

  const watch = (sessionId: string, watchOptions: WatchOptions = {}): Observable<SessionUpdate> => {
    const source = {
      listener,
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
      if (typeof prompt !== "string")
        throw new SessionError("invalid_entry", `The prompt for session "${sessionId}" must be a string.`);
      const afterSeq = await inTransaction(pool, async (db) => {
        const count = await repo.ensureSession(db, sessionId, submitOptions.cwd ?? process.cwd());
        await new RunStore(db, s).addCommand(sessionId, { type: "PROMPT", messages: [userMessage(prompt)] });
        await wakeSession(boss, db, schema, sessionId);
        return count;
      });
      return { sessionId, afterSeq };
    },
    send,
    steer: (sessionId, text) => send(sessionId, { type: "STEER", message: userMessage(text) }),
    followUp: (sessionId, text) => send(sessionId, { type: "FOLLOW_UP", message: userMessage(text) }),
    abort: (sessionId) => send(sessionId, { type: "ABORT" }),
    approve: (sessionId, toolCallId, decisionOptions = {}) =>
      send(sessionId, { type: "APPROVE_TOOL", toolCallId, ...addressOf(decisionOptions) }),
    deny: (sessionId, toolCallId, reason, decisionOptions = {}) =>
      send(sessionId, {
        type: "DENY_TOOL",
        toolCallId,
        ...(reason === undefined ? {} : { reason }),
        ...addressOf(decisionOptions),
      }),
    watch: watch as AgentClient["watch"],
    async startRun(sessionId, runId, prompt, runOptions = {}) {
      await repo.ensureSession(pool, sessionId, runOptions.cwd ?? process.cwd());
      const started = await runs.start(sessionId, runId, prompt);
      if (started.started) await wakeSession(boss, pool, schema, sessionId);
      return started;
    },
    run: (sessionId, runId) => runs.find(sessionId, runId),
    awaitingApproval: async (sessionId) =>
      [...(await store.approvalRequests(sessionId)).keys()].filter((key) => !callOfKey(key).agentPath),
    approvalRequests: async (sessionId) =>
      [...(await store.approvalRequests(sessionId)).keys()].map(callOfKey),
    awaitingBudget: async (sessionId) => (await store.parked(sessionId))?.awaitingBudget ?? [],
    budgetPause: async (sessionId) => (await store.parked(sessionId))?.awaitingBudget[0],
    async close() {
      await watches.endAll();
      await listener.close();
      await boss.stop({ graceful: false, wait: true });
      await pool.end();
    },
  };
}

import type PgBoss from "pg-boss";
import type { Subscription } from "rxjs";
import type { AgentHarness } from "../harness/agent-harness.js";
import type { AgentHarnessOptions } from "../harness/harness-options.js";
import { SessionError } from "../types/session-error.js";
import { NoticeListener } from "./notice-listener.js";
import { pg } from "./pg-driver.js";
import { quoteSchema, WAKE_CHANNEL } from "./postgres-schema.js";
import type { PostgresSession } from "./postgres-session.js";
import { PostgresSessionRepo } from "./postgres-session-repo.js";
import { ReplyRecorder } from "./reply-recorder.js";
import { type RunState, RunStore } from "./run-store.js";
import { SessionRun } from "./session-run.js";
import { WakeJobLoop } from "./wake-job-loop.js";
import { startWakeQueue, wakeSession } from "./wake-queue.js";

/** The harness options a worker builds for a session it serves (the session is filled in). */
export type WorkerHarnessOptions = Omit<AgentHarnessOptions, "session">;

/** Options of {@link createWorker}. */
export interface WorkerOptions {
  connectionString: string;
  /** Schema of the session tables (default "agentchart"); pg-boss uses `<schema>_jobs`. */
  schema?: string;
  /** Sessions served at once (default 4). */
  concurrency?: number;
  /** The model, tools and settings of a session's harness; called each time a worker takes it. */
  harness: (session: PostgresSession) => WorkerHarnessOptions | Promise<WorkerHarnessOptions>;
  /**
   * Called with each harness the worker builds for a session, before it runs: register hooks
   * (`harness.on`) and observers (`harness.events$`) here. Must not throw.
   */
  onHarness?: (harness: AgentHarness, session: PostgresSession) => void;
  /** Lease length (default 30 000 ms); a dead worker's sessions are re-woken after it lapses. */
  leaseMs?: number;
  /** How often lapsed leases are looked for (default a third of `leaseMs`). */
  reconcileMs?: number;
  /** How often steer, follow-up, abort and approval commands are read during a run (default 250 ms). */
  commandPollMs?: number;
  /** How often the queue is polled for wake jobs (default 0.5 s, pg-boss's minimum). */
  pollingIntervalSeconds?: number;
  /** On `stop()`, how long running turns may take to finish before they are handed back (default 10 s). */
  drainMs?: number;
  /** Stop (drain) on SIGTERM and SIGINT (default true). */
  handleSignals?: boolean;
  /**
   * Called when a served session's lease is lost (the worker stalled past it and another took the
   * session over): the run stops, and its later writes are refused with `fenced`.
   */
  onLeaseLost?: (sessionId: string, error: SessionError) => void;
  /**
   * Record the deltas of each streaming reply in `reply_deltas` (default true), so that
   * `watch(id, { deltas: true })` in any process replays the running reply. They are deleted once
   * the reply's message is stored.
   */
  recordDeltas?: boolean;
  /**
   * How long recorded deltas are collected before they are written as one statement (default 20 ms):
   * the delay a reader in another process sees at most beyond the write itself.
   */
  deltaBatchMs?: number;
  /** Receives errors of jobs and of the reconciler (default `console.error`). */
  onError?: (error: unknown) => void;
  /** Called after each wake job with what came of it (a throwing callback goes to `onError`). */
  onJob?: (report: WorkerJobReport) => void;
}

/**
 * What came of one wake job: the session's state once released (`idle`, `awaiting_approval`, `awaiting_budget`,
 * `queued` when handed back on drain), `lost` when its lease was lost, `skipped` when the session was
 * leased elsewhere or deleted, `failed` when serving it threw (the error goes to pg-boss's retry).
 */
export interface WorkerJobReport {
  sessionId: string;
  outcome: RunState | "lost" | "skipped" | "failed";
  durationMs: number;
}

/** A running worker. */
export interface AgentWorker {
  /**
   * Stops taking jobs and drains: running turns get `drainMs` to finish; then they are handed back
   * (lease released, session woken again for another worker). Resolves once everything is closed.
   */
  stop(): Promise<void>;
  /** Resolves once the worker has stopped (after `stop()` or a signal). */
  readonly stopped: Promise<void>;
  /** Wakes a session (as the client does): a worker will serve it. */
  wake(sessionId: string): Promise<void>;
}

/**
 * Starts a worker: it serves "wake session X" jobs from pg-boss, `concurrency` at a time. Serving
 * a session: take its lease (`open`; a session leased elsewhere is left to its owner, which looks
 * for new commands after releasing it), finish an interrupted run (`harness.resume()`, or the
 * parked run once all its approvals are decided), take the pending commands in order, and release
 * the lease. A run whose calls wait for approval is persisted into the database and frees the worker.
 * A reconciler re-wakes sessions whose lease lapsed (a dead worker's): the lease, not the queue,
 * decides who writes. Rejects when the database or the queue cannot be reached.
 */
export async function createWorker(options: WorkerOptions): Promise<AgentWorker> {
  const schema = options.schema ?? "agentchart";
  const s = quoteSchema(schema);
  const concurrency = options.concurrency ?? 4;
  if (!(Number.isInteger(concurrency) && concurrency > 0)) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}.`);
  }
  const leaseMs = options.leaseMs ?? 30_000;
  const onError = options.onError ?? ((error: unknown) => console.error("agentchart worker:", error));
  // A statement unanswered for this long is abandoned and its connection dropped (a half-open one
  // would otherwise hold the job forever; its lease is lost well before: see SessionLease).
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: concurrency + 2,
    query_timeout: Math.max(leaseMs, 10_000),
  });
  pool.on("error", () => {});
  const repo = new PostgresSessionRepo({
    pool,
    schema,
    leaseMs,
    ...(options.onLeaseLost ? { onLeaseLost: options.onLeaseLost } : {}),
  });
  const store = new RunStore(pool, s);
  let boss: PgBoss;
  try {
    await repo.list({ cwd: "/" }); // creates or upgrades the schema
    boss = await startWakeQueue(options.connectionString, schema, { supervise: true });
  } catch (error) {
    await pool.end();
    throw error;
  }
  const draining = new AbortController();
  const handBack = new AbortController();
  const wake = (sessionId: string) => wakeSession(boss, pool, schema, sessionId);

  const serve = async (sessionId: string): Promise<WorkerJobReport["outcome"]> => {
    let session: PostgresSession;
    try {
      session = await repo.open(sessionId);
    } catch (error) {
      // Leased elsewhere: its owner looks for new commands after releasing it. Deleted: nothing to do.
      if (error instanceof SessionError && (error.code === "locked" || error.code === "not_found")) {
        return "skipped";
      }
      throw error;
    }
    let run: SessionRun | undefined;
    let state: Awaited<ReturnType<SessionRun["serve"]>> = "queued";
    const recorder =
      (options.recordDeltas ?? true)
        ? new ReplyRecorder({ pool, s, schema, session, onError, batchMs: options.deltaBatchMs ?? 20 })
        : undefined;
    const recordings: Subscription[] = [];
    try {
      await store.setState(sessionId, "running");
      const harnessOptions = await options.harness(session);
      run = new SessionRun({
        session,
        options: { ...harnessOptions, session },
        store,
        handBack: handBack.signal,
        draining: draining.signal,
        commandPollMs: options.commandPollMs ?? 250,
        onHarness: (harness: AgentHarness) => {
          if (recorder) recordings.push(recorder.follow(harness.events$));
          options.onHarness?.(harness, session);
        },
      });
      state = await run.serve();
    } finally {
      for (const recording of recordings) recording.unsubscribe();
      await recorder?.settled(); // the reply's deltas are gone before the state says it ended
      await session.close().catch(() => {}); // releases the lease (a fenced writer's close touches nothing)
      run?.dispose();
      // Recorded once the lease is released, so a watcher that sees it may act on it at once.
      if (state !== "lost") await store.setStateIfUnleased(sessionId, state).catch(onError);
    }
    if (state === "queued" || (state !== "lost" && (await store.needsWake(sessionId)))) await wake(sessionId);
    return state;
  };
  const serveAndReport = async (sessionId: string): Promise<void> => {
    const started = performance.now();
    let outcome: WorkerJobReport["outcome"] = "failed";
    try {
      outcome = await serve(sessionId);
    } finally {
      try {
        options.onJob?.({ sessionId, outcome, durationMs: Math.round(performance.now() - started) });
      } catch (error) {
        onError(error);
      }
    }
  };

  // `concurrency` loops of one job each (our own, not pg-boss's `work()`: see WakeJobLoop). Idle
  // loops are woken by WAKE_CHANNEL, on one LISTEN connection kept alive by a heartbeat.
  const loops = Array.from(
    { length: concurrency },
    () =>
      new WakeJobLoop({
        boss,
        serve: (job) => serveAndReport(job.sessionId),
        pollMs: (options.pollingIntervalSeconds ?? 0.5) * 1000,
        retryMs: 1_000,
        onError,
      }),
  );
  const wakeLoops = () => {
    if (draining.signal.aborted) return;
    for (const loop of loops) loop.notify();
  };
  const listener = new NoticeListener({ connectionString: options.connectionString, channel: WAKE_CHANNEL });
  const leaveListener = listener.subscribe(schema, {
    notice: wakeLoops,
    listening: (up) => {
      if (up) wakeLoops(); // announcements may have been missed meanwhile
    },
  });

  const reconcile = async () => {
    for (const sessionId of await store.lapsedSessions(100)) await wake(sessionId);
  };
  const reconciler = setInterval(
    () => void reconcile().catch(onError),
    options.reconcileMs ?? Math.max(100, leaseMs / 3),
  );

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  let stopping: Promise<void> | undefined;
  const drainMs = options.drainMs ?? 10_000;
  const onSignal = () => void stop();
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      clearInterval(reconciler);
      draining.abort();
      const handBackTimer = setTimeout(() => handBack.abort(), drainMs);
      // Waits while jobs are active: each finishes its turn, or hands it back when drain time is up.
      await Promise.all(loops.map((loop) => loop.stop()));
      clearTimeout(handBackTimer);
      leaveListener();
      await listener.close();
      await boss.stop({ graceful: false, wait: true }).catch(onError);
      await pool.end();
      resolveStopped();
    })();
    return stopping;
  };
  if (options.handleSignals ?? true) {
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  }
  return { stop, stopped, wake };
}

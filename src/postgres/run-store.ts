import type { PersistedHarness } from "../harness/snapshot.js";
import type { SessionRunState } from "../storage/session-stream-update.js";
import type { PostgresQueryable } from "./postgres-pool.js";

/**
 * What an app asks of a session, written by the client and consumed by the worker that holds the
 * session's lease, in `id` order.
 */
export type SessionCommand =
  | { kind: "prompt"; text: string }
  | { kind: "steer"; text: string }
  | { kind: "followUp"; text: string }
  | { kind: "abort" }
  | { kind: "approve"; toolCallId: string; agentPath?: string[] }
  | { kind: "deny"; toolCallId: string; reason?: string; agentPath?: string[] };

/** A stored command and its id (ascending in the order the commands were written). */
export type StoredCommand = SessionCommand & { id: string };

/** Where a session's run stands (see {@link SessionRunState}). */
export type RunState = SessionRunState;

/** A run persisted while its tool calls wait for approval. */
export interface ParkedRun {
  /**
   * `harness.persist()` of the waiting run; `null` for a run found waiting in the session after its
   * worker died before parking it (resumed from the session alone).
   */
  harness: PersistedHarness | null;
  /** The calls waiting for a decision, by `approvalKey` (a sub-agent's call: its path and its id). */
  awaiting: string[];
}

/**
 * The SQL of a decision command's `approvalKey`: its `agentPath` and its `toolCallId` joined by "/".
 * @param alias the alias of the `commands` row.
 */
function decisionKeySql(alias: string): string {
  const path = `COALESCE(${alias}.payload->'agentPath', '[]'::jsonb)`;
  return `array_to_string(ARRAY(SELECT jsonb_array_elements_text(${path})) || (${alias}.payload->>'toolCallId'), '/')`;
}

/** The SQL of the worker/client tables (migration version 2) of one schema. */
export class RunStore {
  /** @param s the quoted schema name. */
  constructor(
    private readonly db: PostgresQueryable,
    private readonly s: string,
  ) {}

  /** Records the run state of a session (and notifies watchers through the trigger). */
  async setState(sessionId: string, state: RunState): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.s}.runs (session_id, state) VALUES ($1, $2)
       ON CONFLICT (session_id) DO UPDATE SET state = EXCLUDED.state, updated_at = now()
       WHERE runs.state IS DISTINCT FROM EXCLUDED.state`,
      [sessionId, state],
    );
  }

  /**
   * Records the state a worker leaves a session in, after it released the lease: only while no
   * other writer holds the session (one that took it meanwhile records its own state); `idle` is
   * recorded as `queued` while commands wait (they came in after the worker looked).
   */
  async setStateIfUnleased(sessionId: string, state: RunState): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.s}.runs (session_id, state)
       SELECT id, CASE WHEN $2 = 'idle' AND EXISTS (SELECT 1 FROM ${this.s}.commands c WHERE c.session_id = $1)
                       THEN 'queued' ELSE $2 END
         FROM ${this.s}.sessions
        WHERE id = $1 AND (lease_owner IS NULL OR lease_expires_at <= now())
       ON CONFLICT (session_id) DO UPDATE SET state = EXCLUDED.state, updated_at = now()
       WHERE runs.state IS DISTINCT FROM EXCLUDED.state`,
      [sessionId, state],
    );
  }

  /** The run state of a session (`idle` if none was ever recorded). */
  async state(sessionId: string): Promise<RunState> {
    const { rows } = await this.db.query<{ state: RunState }>(
      `SELECT state FROM ${this.s}.runs WHERE session_id = $1`,
      [sessionId],
    );
    return rows[0]?.state ?? "idle";
  }

  /**
   * Stores a command and, if the session was idle, marks it `queued` — one statement, so a watcher
   * never sees the command without the state. Resolves with the command's id.
   */
  async addCommand(sessionId: string, command: SessionCommand): Promise<string> {
    const { rows } = await this.db.query<{ id: string }>(
      `WITH command AS (
         INSERT INTO ${this.s}.commands (session_id, kind, payload) VALUES ($1, $2, $3::jsonb) RETURNING id
       ), queued AS (
         INSERT INTO ${this.s}.runs (session_id, state) VALUES ($1, 'queued')
         ON CONFLICT (session_id) DO UPDATE SET state = 'queued', updated_at = now() WHERE runs.state = 'idle'
       )
       SELECT id::text FROM command`,
      [sessionId, command.kind, JSON.stringify(command)],
    );
    return rows[0]!.id;
  }

  /** The session's pending commands, oldest first. */
  async commands(sessionId: string): Promise<StoredCommand[]> {
    const { rows } = await this.db.query<{ id: string; payload: SessionCommand }>(
      `SELECT id::text, payload FROM ${this.s}.commands WHERE session_id = $1 ORDER BY id`,
      [sessionId],
    );
    return rows.map((row) => ({ ...row.payload, id: row.id }));
  }

  /** Removes consumed commands. */
  async deleteCommands(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(`DELETE FROM ${this.s}.commands WHERE id = ANY($1::bigint[])`, [ids]);
  }

  /** Stores (or replaces) the session's parked run. */
  async park(sessionId: string, parked: ParkedRun): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.s}.parked_runs (session_id, harness, awaiting) VALUES ($1, $2::jsonb, $3::text[])
       ON CONFLICT (session_id) DO UPDATE SET harness = EXCLUDED.harness, awaiting = EXCLUDED.awaiting,
         parked_at = now()`,
      [sessionId, JSON.stringify(parked.harness), parked.awaiting],
    );
  }

  /** The session's parked run, if it has one. */
  async parked(sessionId: string): Promise<ParkedRun | undefined> {
    const { rows } = await this.db.query<ParkedRun>(
      `SELECT harness, awaiting FROM ${this.s}.parked_runs WHERE session_id = $1`,
      [sessionId],
    );
    return rows[0];
  }

  /** Forgets the session's parked run (it was restored and finished). */
  async unpark(sessionId: string): Promise<void> {
    await this.db.query(`DELETE FROM ${this.s}.parked_runs WHERE session_id = $1`, [sessionId]);
  }

  /**
   * Whether a worker has something to do for the session: any pending command, or — for a parked
   * run — an abort, or a decision for every call it waits on (other commands wait until the run
   * goes on).
   */
  async needsWake(sessionId: string): Promise<boolean> {
    const { rows } = await this.db.query<{ wake: boolean }>(
      `SELECT CASE
                WHEN p.session_id IS NULL
                  THEN EXISTS (SELECT 1 FROM ${this.s}.commands c WHERE c.session_id = $1)
                ELSE EXISTS (SELECT 1 FROM ${this.s}.commands c WHERE c.session_id = $1 AND c.kind = 'abort')
                  OR NOT EXISTS (
                  SELECT 1 FROM unnest(p.awaiting) AS waiting (id)
                   WHERE NOT EXISTS (
                     SELECT 1 FROM ${this.s}.commands c
                      WHERE c.session_id = $1 AND c.kind IN ('approve', 'deny')
                        AND ${decisionKeySql("c")} = waiting.id))
              END AS wake
         FROM (SELECT $1::text AS id) AS wanted
         LEFT JOIN ${this.s}.parked_runs p ON p.session_id = wanted.id`,
      [sessionId],
    );
    return rows[0]?.wake === true;
  }

  /**
   * Sessions whose writer's lease lapsed without being released (the writer died or stalled): a
   * run may be unfinished there. At most `limit`, longest lapsed first.
   */
  async lapsedSessions(limit: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT id FROM ${this.s}.sessions
        WHERE lease_owner IS NOT NULL AND lease_expires_at <= now()
        ORDER BY lease_expires_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }
}

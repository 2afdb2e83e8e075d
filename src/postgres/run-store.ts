import { callKey } from "../commands/addressed-command.js";
import { CommandError } from "../commands/command-error.js";
import type { CommandFromOutside } from "../commands/parse-command.js";
import { parseAgentCommand } from "../commands/parse-command.js";
import type { PersistedHarness } from "../harness/snapshot.js";
import type { SessionRunState } from "../storage/session-stream-update.js";
import type { BudgetPause } from "../types/budget.js";
import { type JsonbLines, pushLine } from "./jsonb-lines.js";
import type { PostgresQueryable } from "./postgres-pool.js";
import { type StoredJson, storedValue } from "./postgres-session-repo.js";

/**
 * A `commands` row as a worker reads it, in the order the rows were stored (numeric `id` order): the
 * command it holds, read back through `parseAgentCommand` (so rows of 0.2, `{ kind: "approve", … }`,
 * still run), and — for an `APPROVE_TOOL` / `DENY_TOOL` — the approval request it was bound to when
 * stored; or, for a row that holds no command of the vocabulary, the `CommandError` that says why.
 */
export type StoredCommand = { id: string; requestId?: string } & (
  | { command: CommandFromOutside; error?: undefined }
  | { command?: undefined; error: CommandError }
);

/** A decision command: `APPROVE_TOOL` or `DENY_TOOL`. */
export type DecisionCommand = Extract<CommandFromOutside, { type: "APPROVE_TOOL" | "DENY_TOOL" }>;

/** A command for a run waiting at a budget limit: `RAISE_BUDGET` or `CONTINUE_ONCE`. */
export type BudgetCommand = Extract<CommandFromOutside, { type: "RAISE_BUDGET" | "CONTINUE_ONCE" }>;

/** Where a session's run stands (see {@link SessionRunState}). */
export type RunState = SessionRunState;

/**
 * A run persisted while it waits for people: tool calls waiting for approval, or runs of its tree
 * (the root's, a sub-agent's) waiting at a budget limit or loop breaker.
 */
export interface ParkedRun {
  /**
   * `harness.persist()` of the waiting run; `null` for a run found waiting in the session after its
   * worker died before parking it (resumed from the session alone).
   */
  harness: PersistedHarness | null;
  /** The calls waiting for a decision, by `callKey` (a sub-agent's call: its path and its id). */
  awaiting: string[];
  /**
   * The runs of the tree waiting at a budget limit or loop breaker (`state.awaitingBudget` when it
   * was parked: the root's first, a sub-agent's with its `agentPath`); `[]` when it waits for
   * approvals only. A `RAISE_BUDGET` / `CONTINUE_ONCE` addressed to one of them, or `ABORT`, goes on.
   */
  awaitingBudget: BudgetPause[];
}

/** A value as a row stores it: jsonb, and the exact JSON when jsonb cannot hold it (`*_raw`). */
function jsonbOf(value: unknown): { json: string; raw: string | null } {
  const lines: JsonbLines = { json: [], raw: [] };
  pushLine(lines, JSON.stringify(value));
  return { json: lines.json[0]!, raw: lines.raw[0]! };
}

/** The SQL of the worker/client tables (migration versions 2 and 4) of one schema. */
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
   * never sees the command without the state. Any text is stored exactly (NUL and lone surrogates
   * too). Resolves with the command's id.
   */
  async addCommand(sessionId: string, command: CommandFromOutside): Promise<string> {
    const id = await this.#insertCommand(sessionId, command);
    return id!;
  }

  /**
   * Stores a decision only while the call it names waits for approval (a row of
   * `approval_requests`), bound to that request: its `requestId` is filled in from the row, in the
   * same statement. Resolves with the command's id, or `undefined` when the call does not wait
   * (nothing is stored).
   */
  addDecision(sessionId: string, decision: DecisionCommand): Promise<string | undefined> {
    return this.#insertCommand(sessionId, decision, {
      join: `JOIN ${this.s}.approval_requests r ON r.session_id = $1 AND r.request_key = $5`,
      value: callKey(decision),
      requestId: "r.request_id",
    });
  }

  /**
   * Stores a `RAISE_BUDGET` or `CONTINUE_ONCE` only while the session's run is parked with a run of
   * its tree at a budget limit at the command's `agentPath` (none: the root's run), in one
   * statement. Resolves with the command's id, or `undefined` when no run waits at one there
   * (nothing is stored).
   */
  addBudgetCommand(sessionId: string, command: BudgetCommand): Promise<string | undefined> {
    return this.#insertCommand(sessionId, command, {
      join: `JOIN ${this.s}.parked_runs p ON p.session_id = $1 AND EXISTS (
               SELECT 1 FROM jsonb_array_elements(p.paused) AS pause
                WHERE COALESCE(pause -> 'agentPath', '[]'::jsonb) = $5::jsonb)`,
      value: JSON.stringify(command.agentPath ?? []),
    });
  }

  /**
   * Inserts the command row (and marks an idle session `queued`) in one statement; `only` stores it
   * only where its join finds a row (with `value` as `$5`), taking the request id from there.
   */
  async #insertCommand(
    sessionId: string,
    command: CommandFromOutside,
    only?: { join: string; value: string; requestId?: string },
  ): Promise<string | undefined> {
    const payload = jsonbOf(command);
    const { rows } = await this.db.query<{ id: string }>(
      `WITH command AS (
         INSERT INTO ${this.s}.commands (session_id, kind, payload, payload_raw, request_id)
         SELECT $1, $2, $3::jsonb, $4, ${only?.requestId ?? "NULL"}
           FROM (VALUES (1)) AS one ${only?.join ?? ""}
         RETURNING id
       ), queued AS (
         INSERT INTO ${this.s}.runs (session_id, state) SELECT $1, 'queued' FROM command
         ON CONFLICT (session_id) DO UPDATE SET state = 'queued', updated_at = now() WHERE runs.state = 'idle'
       )
       SELECT id::text FROM command`,
      [sessionId, command.type, payload.json, payload.raw, ...(only ? [only.value] : [])],
    );
    return rows[0]?.id;
  }

  /**
   * The session's pending commands in the order they were stored (by their numeric id: the column,
   * not its text, which would put "10" before "9").
   */
  async commands(sessionId: string): Promise<StoredCommand[]> {
    const { rows } = await this.db.query<StoredJson & { id: string; request_id: string | null }>(
      `SELECT c.id::text AS id, CASE WHEN c.payload_raw IS NULL THEN c.payload END AS json,
              c.payload_raw AS raw, c.request_id
         FROM ${this.s}.commands c WHERE c.session_id = $1 ORDER BY c.id`,
      [sessionId],
    );
    return rows.map((row): StoredCommand => {
      const bound = row.request_id === null ? { id: row.id } : { id: row.id, requestId: row.request_id };
      try {
        return { ...bound, command: parseAgentCommand(storedValue(row)) };
      } catch (error) {
        const refusal =
          error instanceof CommandError
            ? error
            : new CommandError("invalid_command", `Command row ${row.id}: ${String(error)}`);
        return { ...bound, error: refusal };
      }
    });
  }

  /** Removes consumed commands. */
  async deleteCommands(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(`DELETE FROM ${this.s}.commands WHERE id = ANY($1::bigint[])`, [ids]);
  }

  /**
   * Stores (or replaces) the session's parked run; its `awaitingBudget` goes into the `paused`
   * column (a JSON array of the pauses, NULL when it waits for approvals only).
   */
  async park(sessionId: string, parked: ParkedRun): Promise<void> {
    const harness = jsonbOf(parked.harness);
    await this.db.query(
      `INSERT INTO ${this.s}.parked_runs (session_id, harness, harness_raw, awaiting, paused)
       VALUES ($1, $2::jsonb, $3, $4::text[], $5::jsonb)
       ON CONFLICT (session_id) DO UPDATE SET harness = EXCLUDED.harness, harness_raw = EXCLUDED.harness_raw,
         awaiting = EXCLUDED.awaiting, paused = EXCLUDED.paused, parked_at = now()`,
      [
        sessionId,
        harness.json,
        harness.raw,
        parked.awaiting,
        parked.awaitingBudget.length === 0 ? null : JSON.stringify(parked.awaitingBudget),
      ],
    );
  }

  /** The session's parked run, if it has one. */
  async parked(sessionId: string): Promise<ParkedRun | undefined> {
    const { rows } = await this.db.query<StoredJson & { awaiting: string[]; paused: BudgetPause[] | null }>(
      `SELECT CASE WHEN harness_raw IS NULL THEN harness END AS json, harness_raw AS raw, awaiting, paused
         FROM ${this.s}.parked_runs WHERE session_id = $1`,
      [sessionId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      harness:
        row.raw === null && row.json === null ? null : (storedValue(row) as unknown as PersistedHarness),
      awaiting: row.awaiting,
      awaitingBudget: row.paused ?? [],
    };
  }

  /** Forgets the session's parked run (it was restored and finished). */
  async unpark(sessionId: string): Promise<void> {
    await this.db.query(`DELETE FROM ${this.s}.parked_runs WHERE session_id = $1`, [sessionId]);
  }

  /**
   * Whether a worker has something to do for the session: any pending command, or — for a parked
   * run — an abort, a budget command for a run paused at a limit (stored only for a path that
   * waits: see `addBudgetCommand`), or a decision for every call it waits on (other commands wait until the run goes on). Commands are matched by the `kind` column
   * (the command's `type`; 0.2 wrote its lowercase `kind`).
   */
  async needsWake(sessionId: string): Promise<boolean> {
    const { rows } = await this.db.query<{ wake: boolean }>(
      `SELECT CASE
                WHEN p.session_id IS NULL
                  THEN EXISTS (SELECT 1 FROM ${this.s}.commands c WHERE c.session_id = $1)
                ELSE EXISTS (SELECT 1 FROM ${this.s}.commands c
                              WHERE c.session_id = $1 AND c.kind IN ('ABORT', 'abort'))
                  OR (p.paused IS NOT NULL AND EXISTS (SELECT 1 FROM ${this.s}.commands c
                              WHERE c.session_id = $1 AND c.kind IN ('RAISE_BUDGET', 'CONTINUE_ONCE')))
                  OR (p.paused IS NULL AND NOT EXISTS (
                  SELECT 1 FROM unnest(p.awaiting) AS waiting (key)
                   WHERE NOT EXISTS (
                     SELECT 1 FROM ${this.s}.commands c
                       JOIN ${this.s}.approval_requests r
                         ON r.session_id = c.session_id AND r.request_id = c.request_id
                      WHERE c.session_id = $1 AND r.request_key = waiting.key)))
              END AS wake
         FROM (SELECT $1::text AS id) AS wanted
         LEFT JOIN ${this.s}.parked_runs p ON p.session_id = wanted.id`,
      [sessionId],
    );
    return rows[0]?.wake === true;
  }

  /**
   * Records that calls (by `callKey`) wait for approval. `fresh`: each is a new request, under a
   * new id (a call asking now — perhaps under the id of an earlier call of the run, answered since);
   * `keep`: the same wait goes on (a run parked, or found waiting after a crash), so a request
   * already recorded keeps its id and the decisions bound to it.
   */
  async askApproval(sessionId: string, keys: readonly string[], mode: "fresh" | "keep"): Promise<void> {
    if (keys.length === 0) return;
    await this.db.query(
      `INSERT INTO ${this.s}.approval_requests (session_id, request_key, request_id)
       SELECT $1, key, gen_random_uuid()::text FROM unnest($2::text[]) AS key
       ON CONFLICT (session_id, request_key) DO ${
         mode === "fresh" ? "UPDATE SET request_id = EXCLUDED.request_id, asked_at = now()" : "NOTHING"
       }`,
      [sessionId, keys],
    );
  }

  /**
   * The approval requests waiting in the session, in the order they were asked: each request's id by
   * the `callKey` of its call.
   */
  async approvalRequests(sessionId: string): Promise<Map<string, string>> {
    const { rows } = await this.db.query<{ request_key: string; request_id: string }>(
      `SELECT request_key, request_id FROM ${this.s}.approval_requests WHERE session_id = $1
        ORDER BY asked_at, request_key`,
      [sessionId],
    );
    return new Map(rows.map((row) => [row.request_key, row.request_id]));
  }

  /**
   * Forgets approval requests that were answered (decided, or the call ended otherwise), by
   * `callKey`: a decision sent for them from now on is refused.
   */
  async answerApproval(sessionId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.query(
      `DELETE FROM ${this.s}.approval_requests WHERE session_id = $1 AND request_key = ANY($2::text[])`,
      [sessionId, keys],
    );
  }

  /**
   * Sessions whose writer's lease lapsed without being released (the writer died, stalled, or its
   * append path went half-open): a run may be unfinished there. At most `limit`, longest lapsed
   * first. A session whose state says `running` is marked `queued` in the same statement (it waits
   * for a worker now), so that watchers learn the lease lapsed before another worker resumes it.
   */
  async lapsedSessions(limit: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `WITH lapsed AS (
         SELECT id FROM ${this.s}.sessions
          WHERE lease_owner IS NOT NULL AND lease_expires_at <= now()
          ORDER BY lease_expires_at LIMIT $1
       ), marked AS (
         UPDATE ${this.s}.runs SET state = 'queued', updated_at = now()
          WHERE session_id IN (SELECT id FROM lapsed) AND state = 'running'
       )
       SELECT id FROM lapsed`,
      [limit],
    );
    return rows.map((row) => row.id);
  }
}

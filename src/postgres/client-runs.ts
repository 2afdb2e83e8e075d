import { userMessage } from "../loop/messages.js";
import { SessionError } from "../types/session-error.js";
import { inTransaction, type PostgresPool, type PostgresQueryable } from "./postgres-pool.js";
import { RunStore } from "./run-store.js";
import { entryPosition } from "./stream-position.js";

/** A run an app started by id (`startRun`): where it begins in the session's stream, where it ends. */
export interface ClientRun {
  runId: string;
  /** The session's entry count when the run was started: its entries come after this one. */
  afterSeq: number;
  /** The stream position of entry `afterSeq` (`watch` positions; 0 for an empty session). */
  afterPosition: number;
  /** Where the next run of the session began (this run's entries are at most this one), if any. */
  endSeq?: number;
}

/** The SQL of `client_runs` (schema version 3): runs named by the app, started once. */
export class ClientRuns {
  /** @param s the quoted schema name. */
  constructor(
    private readonly pool: PostgresPool,
    private readonly s: string,
  ) {}

  /**
   * The run `runId` of the session, or a new one: in one transaction that locks the session row,
   * the prompt becomes a command and the run is recorded at the current entry count.
   * @throws SessionError("not_found") for a missing session, ("locked") while the session is not idle.
   */
  start(sessionId: string, runId: string, prompt: string): Promise<{ run: ClientRun; started: boolean }> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ count: number }>(
        `SELECT entry_count AS count FROM ${this.s}.sessions WHERE id = $1 FOR UPDATE`,
        [sessionId],
      );
      if (rows.length === 0) throw new SessionError("not_found", `Session "${sessionId}" does not exist.`);
      const existing = await this.#find(client, sessionId, runId);
      if (existing) return { run: existing, started: false };
      const store = new RunStore(client, this.s);
      const state = await store.state(sessionId);
      if (state !== "idle") {
        throw new SessionError(
          "locked",
          `Session "${sessionId}" is ${state.replace("_", " ")}: join its run, or wait for it to end.`,
        );
      }
      const afterSeq = rows[0]!.count;
      const commandId = await store.addCommand(sessionId, {
        type: "PROMPT",
        messages: [userMessage(prompt)],
      });
      await client.query(
        `INSERT INTO ${this.s}.client_runs (session_id, run_id, after_seq, command_id) VALUES ($1, $2, $3, $4)`,
        [sessionId, runId, afterSeq, commandId],
      );
      return { run: { runId, afterSeq, afterPosition: entryPosition(afterSeq) }, started: true };
    });
  }

  /** The run `runId` of the session, if it was started. */
  find(sessionId: string, runId: string): Promise<ClientRun | undefined> {
    return this.#find(this.pool, sessionId, runId);
  }

  async #find(db: PostgresQueryable, sessionId: string, runId: string): Promise<ClientRun | undefined> {
    const { rows } = await db.query<{ after_seq: number; end_seq: number | null }>(
      `SELECT run.after_seq,
              (SELECT min(next.after_seq) FROM ${this.s}.client_runs next
                WHERE next.session_id = run.session_id AND next.after_seq > run.after_seq) AS end_seq
         FROM ${this.s}.client_runs run WHERE run.session_id = $1 AND run.run_id = $2`,
      [sessionId, runId],
    );
    const row = rows[0];
    if (!row) return undefined;
    const run: ClientRun = { runId, afterSeq: row.after_seq, afterPosition: entryPosition(row.after_seq) };
    if (row.end_seq !== null) run.endSeq = row.end_seq;
    return run;
  }
}

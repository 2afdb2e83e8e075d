import { SessionError } from "../types/session-error.js";
import { inTransaction, type PostgresPool } from "./postgres-pool.js";

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The quoted schema name, checked first: lowercase letters, digits and `_`, at most 63 characters
 * (`SessionError("invalid_id")` otherwise), so it can be spliced into SQL safely.
 */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new SessionError(
      "invalid_id",
      `Schema name "${schema}" is not allowed; use lowercase letters, digits and "_" (at most 63 characters).`,
    );
  }
  return `"${schema}"`;
}

/**
 * The schema's versions, in order; each is a list of statements run in one transaction. A released
 * version is never edited: changes go into a new one.
 */
function migrations(s: string): string[][] {
  return [
    [
      `CREATE TABLE ${s}.sessions (
        id text PRIMARY KEY,
        cwd text NOT NULL,
        header jsonb NOT NULL,
        header_raw text,
        name text,
        parent_session text,
        created_at timestamptz NOT NULL,
        modified_at timestamptz NOT NULL DEFAULT now(),
        modified_seq bigint NOT NULL,
        entry_count integer NOT NULL DEFAULT 0,
        lease_owner text,
        lease_epoch bigint NOT NULL DEFAULT 0,
        lease_expires_at timestamptz
      )`,
      `CREATE SEQUENCE ${s}.modification_seq`,
      `CREATE UNIQUE INDEX sessions_by_modification ON ${s}.sessions (modified_seq DESC)`,
      `CREATE INDEX sessions_by_cwd ON ${s}.sessions (cwd, modified_seq DESC)`,
      `CREATE TABLE ${s}.entries (
        session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        entry jsonb NOT NULL,
        raw text,
        PRIMARY KEY (session_id, seq)
      )`,
    ],
    [
      // Version 2: workers and the app client (runs, commands, parked approvals, change notices).
      `CREATE TABLE ${s}.runs (
        session_id text PRIMARY KEY REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        state text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE TABLE ${s}.commands (
        id bigserial PRIMARY KEY,
        session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        kind text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX commands_by_session ON ${s}.commands (session_id, id)`,
      `CREATE TABLE ${s}.parked_runs (
        session_id text PRIMARY KEY REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        harness jsonb NOT NULL,
        awaiting text[] NOT NULL,
        parked_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX sessions_by_lease ON ${s}.sessions (lease_expires_at) WHERE lease_owner IS NOT NULL`,
      `CREATE FUNCTION ${s}.notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify(TG_ARGV[0], TG_TABLE_SCHEMA || '/' || NEW.session_id);
         RETURN NULL;
       END $$`,
      `CREATE TRIGGER entries_notify AFTER INSERT ON ${s}.entries
         FOR EACH ROW EXECUTE FUNCTION ${s}.notify_change('${CHANGE_CHANNEL}')`,
      `CREATE TRIGGER runs_notify AFTER INSERT OR UPDATE ON ${s}.runs
         FOR EACH ROW EXECUTE FUNCTION ${s}.notify_change('${CHANGE_CHANNEL}')`,
    ],
    [
      // Version 3: resumable streams. The deltas of the reply a worker is streaming (deleted once the
      // reply's message entry is stored), and the runs apps started by id (to join them, never twice).
      `CREATE TABLE ${s}.reply_deltas (
        session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        reply text NOT NULL,
        delta jsonb NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`,
      `CREATE TABLE ${s}.client_runs (
        session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        run_id text NOT NULL,
        after_seq integer NOT NULL,
        command_id bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, run_id)
      )`,
      `CREATE INDEX client_runs_by_position ON ${s}.client_runs (session_id, after_seq)`,
    ],
    [
      // Version 4: faults. A command's exact payload when jsonb cannot hold it (NUL, lone surrogates)
      // and, for a decision, the approval request it answers; the approval requests waiting now, each
      // under an id that a decision must name.
      `ALTER TABLE ${s}.commands ADD COLUMN payload_raw text, ADD COLUMN request_id text`,
      `CREATE TABLE ${s}.approval_requests (
        session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        request_key text NOT NULL,
        request_id text NOT NULL,
        asked_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, request_key)
      )`,
      // Runs parked before the upgrade wait under requests of their own, so they can be decided.
      `INSERT INTO ${s}.approval_requests (session_id, request_key, request_id)
       SELECT session_id, key, gen_random_uuid()::text FROM ${s}.parked_runs, unnest(awaiting) AS key
       ON CONFLICT DO NOTHING`,
      `CREATE TRIGGER approval_requests_notify AFTER INSERT OR UPDATE ON ${s}.approval_requests
         FOR EACH ROW EXECUTE FUNCTION ${s}.notify_change('${CHANGE_CHANNEL}')`,
    ],
    [
      // Version 5: budgets. The runs of a parked run's tree waiting at a budget limit or loop breaker
      // (a JSON array of BudgetPause, a sub-agent's with its agentPath; NULL: it waits for approvals
      // only), and the parked harness's exact JSON when jsonb cannot hold it (a budget ledger's reply
      // signature holds NUL).
      `ALTER TABLE ${s}.parked_runs ADD COLUMN paused jsonb, ADD COLUMN harness_raw text`,
    ],
  ];
}

/**
 * The NOTIFY channel on which the database announces new entries and run-state changes; the payload
 * is `<schema>/<session id>`.
 */
export const CHANGE_CHANNEL = "agentchart_changes";

/**
 * The NOTIFY channel on which a wake job is announced once it is queued (payload: the schema), so
 * that idle workers fetch it at once instead of at their next poll.
 */
export const WAKE_CHANNEL = "agentchart_wake";

/**
 * Creates or upgrades the repo's schema to the newest version: one transaction per version,
 * recorded in `<schema>.schema_migrations`. Concurrent callers (several processes starting at once)
 * serialize on a transaction-scoped advisory lock, so each version is applied exactly once.
 * @throws SessionError("storage") if the database is newer than this library.
 */
export async function migrateSchema(pool: PostgresPool, schema: string): Promise<void> {
  const s = quoteSchema(schema);
  const steps = migrations(s);
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`agentchart.schema.${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
        version integer PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${s}.schema_migrations`,
    );
    const current = rows[0]?.version ?? 0;
    if (current > steps.length) {
      throw new SessionError(
        "storage",
        `Schema "${schema}" is at version ${current}, newer than this library (${steps.length}); upgrade agentchart.`,
      );
    }
    for (let version = current + 1; version <= steps.length; version++) {
      for (const statement of steps[version - 1]!) await client.query(statement);
      await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [version]);
    }
  });
}

import type { WriteFault } from "../storage/session-repo.js";
import { normalizeSessionName } from "../storage/session-tree.js";
import type { SessionSink } from "../storage/session-writer.js";
import { toJsonbLines } from "./jsonb-lines.js";
import type { PostgresPool } from "./postgres-pool.js";
import { leaseExpiry, type SessionLease } from "./session-lease.js";

const SESSION_INFO = '"type":"session_info"';

/**
 * The session name a batch sets, if it holds a `session_info` entry (the last one wins). Lines are
 * found by string search; only one whose entry really is a `session_info` counts (the marker may
 * also appear in a nested object of another entry).
 */
function nameChange(text: string): { name: string | null } | undefined {
  let at = text.lastIndexOf(SESSION_INFO);
  while (at !== -1) {
    const start = text.lastIndexOf("\n", at) + 1;
    const end = text.indexOf("\n", at);
    const entry = JSON.parse(text.slice(start, end === -1 ? undefined : end)) as {
      type?: string;
      name?: string;
    };
    if (entry.type === "session_info") return { name: normalizeSessionName(entry.name) ?? null };
    at = start === 0 ? -1 : text.lastIndexOf(SESSION_INFO, start - 1);
  }
  return undefined;
}

/**
 * Appends a session's lines as rows of `entries`, one statement per batch (group commit): the
 * statement first updates the session row — only while this writer holds the current lease epoch,
 * which also renews the lease — and inserts the rows only if that update matched. A batch refused
 * there was not stored at all, and the write fails with `SessionError("fenced")`.
 */
export class PostgresSink implements SessionSink {
  private readonly statement: string;

  constructor(
    private readonly pool: PostgresPool,
    private readonly lease: SessionLease,
    schema: string,
    private readonly writeFault?: WriteFault,
  ) {
    this.statement = `WITH leased AS (
        UPDATE ${schema}.sessions
           SET entry_count = entry_count + cardinality($4::text[]),
               modified_at = now(),
               modified_seq = nextval('${schema}.modification_seq'),
               lease_expires_at = ${leaseExpiry(6)},
               name = CASE WHEN $7::boolean THEN $8::text ELSE name END
         WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 AND lease_expires_at > now()
        RETURNING id, entry_count - cardinality($4::text[]) AS base
      )
      INSERT INTO ${schema}.entries (session_id, seq, entry, raw)
      SELECT leased.id, leased.base + line.n, line.json::jsonb, line.raw
        FROM leased, unnest($4::text[], $5::text[]) WITH ORDINALITY AS line (json, raw, n)`;
  }

  async write(text: string): Promise<void> {
    const fault = this.writeFault?.(this.lease.sessionId);
    if (fault) throw fault;
    if (this.lease.lost.aborted) throw this.lease.lost.reason;
    const lines = toJsonbLines(text);
    if (lines.json.length === 0) return;
    const name = nameChange(text);
    const { sessionId, owner, epoch, leaseMs } = this.lease;
    const result = await this.lease.trackAppend(
      this.pool.query(this.statement, [
        sessionId,
        owner,
        epoch,
        lines.json,
        lines.raw,
        leaseMs,
        name !== undefined,
        name?.name ?? null,
      ]),
    );
    if (result.rowCount !== lines.json.length) throw this.lease.markLost();
  }

  close(): Promise<void> {
    return this.lease.release();
  }
}

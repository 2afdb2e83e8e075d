import { readFile } from "node:fs/promises";
import type { Pool } from "pg";
import type { RecoveredLine, SessionEntry, SessionHeader } from "../storage/entries.js";
import { forkHeader, selectForkEntries } from "../storage/fork.js";
import { assertValidCwd, assertValidSessionId, createSessionId } from "../storage/ids.js";
import {
  type ParsedSession,
  parseSessionText,
  parseSessionValues,
  serializeLine,
  serializeSession,
} from "../storage/session-file.js";
import { createSessionHeader } from "../storage/session-header.js";
import type {
  CreateSessionOptions,
  ForkSessionOptions,
  OpenSessionOptions,
  SessionInfo,
  SessionRepo,
  WriteFault,
} from "../storage/session-repo.js";
import { SessionTree } from "../storage/session-tree.js";
import { SessionError } from "../types/session-error.js";
import { type JsonbLines, pushLine } from "./jsonb-lines.js";
import { pg } from "./pg-driver.js";
import type { PostgresPool, PostgresQueryable } from "./postgres-pool.js";
import { migrateSchema, quoteSchema } from "./postgres-schema.js";
import { PostgresSession } from "./postgres-session.js";
import { PostgresSink } from "./postgres-sink.js";
import { leaseExpiry, SessionLease } from "./session-lease.js";

/** Where the repo connects: a connection string (the repo owns its pool) or your own pool. */
export type PostgresConnection =
  | { connectionString: string; pool?: never }
  | { pool: PostgresPool; connectionString?: never };

/** Options of {@link PostgresSessionRepo}. */
export type PostgresSessionRepoOptions = PostgresConnection & {
  /** Schema holding the tables (default "agentchart"); created with the tables on first use. */
  schema?: string;
  /** Lease length in milliseconds (default 30 000); a lease is renewed every third of it. */
  leaseMs?: number;
  /** Called once when an open session's lease is lost (its `leaseLost` signal aborts too). */
  onLeaseLost?: (sessionId: string, error: SessionError) => void;
  /** Test hook: return an error to make the next write of that session fail. */
  writeFault?: WriteFault;
};

/** Options of {@link PostgresSessionRepo.listPage}. */
export interface ListPageOptions {
  cwd?: string;
  /** Page size (default 100, at most 1000). */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

/** One page of {@link PostgresSessionRepo.listPage}; `nextCursor` is absent on the last page. */
export interface SessionPage {
  sessions: SessionInfo[];
  nextCursor?: string;
}

/** What {@link PostgresSessionRepo.importJsonl} stored. */
export interface ImportedSession {
  id: string;
  /** Format version of the file (1–3); older files were migrated to 3. */
  sourceVersion: number;
  /** Lines skipped under `recover` (and a torn last line). */
  recovered: RecoveredLine[];
}

interface ListRow {
  id: string;
  cwd: string;
  name: string | null;
  parent_session: string | null;
  parent_tool_call_id: string | null;
  created_ms: number;
  modified_ms: number;
  seq: number;
}

const DEFAULT_LEASE_MS = 30_000;

/** A stored JSON value: the jsonb column (parsed by the driver, or text) unless `raw` holds the exact line. */
export interface StoredJson {
  json: unknown;
  raw: string | null;
}

/** The columns of an entry row as a {@link StoredJson}. */
export const ENTRY_COLUMNS = "CASE WHEN raw IS NULL THEN entry END AS json, raw";

const HEADER_COLUMNS = "CASE WHEN header_raw IS NULL THEN header END AS json, header_raw AS raw";

/** The value of a stored line: `raw` (the exact line) when set, else the jsonb column. */
export function storedValue(row: StoredJson): Record<string, unknown> {
  const value = row.raw !== null ? row.raw : row.json;
  return (typeof value === "string" ? JSON.parse(value) : value) as Record<string, unknown>;
}

function headerLines(header: SessionHeader): JsonbLines {
  const lines: JsonbLines = { json: [], raw: [] };
  pushLine(lines, serializeLine(header).slice(0, -1));
  return lines;
}

function entryLines(entries: readonly SessionEntry[]): JsonbLines {
  const lines: JsonbLines = { json: [], raw: [] };
  for (const entry of entries) pushLine(lines, serializeLine(entry).slice(0, -1));
  return lines;
}

function createdAt(header: SessionHeader): string {
  const time = new Date(header.timestamp);
  return Number.isNaN(time.getTime()) ? new Date().toISOString() : time.toISOString();
}

function storageError(action: string, cause: unknown): SessionError {
  if (cause instanceof SessionError) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SessionError("storage", `${action}: ${reason}`, { cause });
}

function lockedError(id: string): SessionError {
  return new SessionError(
    "locked",
    `Session "${id}" is open for writing elsewhere (its lease is live); close it there or wait for the lease to expire.`,
  );
}

/**
 * Sessions in PostgreSQL: one row per session (header, name, lease) and one row per entry (pi's v3
 * entry shapes in `jsonb`), in `schema` (created, and migrated by version, on first use).
 *
 * One writer per session, fenced: `create`/`open`/`fork` take the session's lease (owner, epoch,
 * expiry by the database clock; `locked` while another owner's lease is live). Every append batch is
 * one statement that stores its rows only while the writer holds the current epoch; a writer whose
 * lease was taken gets `SessionError("fenced")` and its write is not stored. Open sessions renew
 * their lease every third of `leaseMs`. Works on any pool with `pg`'s `query`/`connect` shape.
 */
export class PostgresSessionRepo implements SessionRepo {
  private readonly pool: PostgresPool;
  private readonly ownsPool: boolean;
  private readonly s: string;
  private readonly schema: string;
  private readonly leaseMs: number;
  private ready: Promise<void> | undefined;

  /**
   * @throws SessionError("invalid_id") for a schema name that is not a plain lowercase identifier,
   * RangeError for a `leaseMs` that is not a positive number.
   */
  constructor(private readonly options: PostgresSessionRepoOptions) {
    this.schema = options.schema ?? "agentchart";
    this.s = quoteSchema(this.schema);
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!(this.leaseMs > 0 && Number.isFinite(this.leaseMs))) {
      throw new RangeError(`leaseMs must be a positive number of milliseconds, got ${this.leaseMs}.`);
    }
    if (options.pool) {
      this.pool = options.pool;
      this.ownsPool = false;
    } else {
      const pool = new pg.Pool({ connectionString: options.connectionString });
      // An idle connection that breaks (server restart) is dropped by the pool; the next query
      // reports the problem. Without a listener the pool's "error" event would crash the process.
      pool.on("error", () => {});
      this.pool = pool;
      this.ownsPool = true;
    }
  }

  async create(options: CreateSessionOptions = {}): Promise<PostgresSession> {
    const id = options.id ?? createSessionId();
    assertValidSessionId(id);
    const cwd = options.cwd ?? process.cwd();
    assertValidCwd(cwd);
    const header = createSessionHeader({
      id,
      cwd,
      metadata: options.metadata,
      parentSession: options.parentSession,
      parentToolCallId: options.parentToolCallId,
    });
    return this.insertLeased(header, new SessionTree());
  }

  async open(id: string, options: OpenSessionOptions = {}): Promise<PostgresSession> {
    assertValidSessionId(id);
    await this.migrated();
    const owner = createSessionId();
    let epoch: number;
    let header: Record<string, unknown>;
    try {
      const { rows } = await this.pool.query<{ epoch: number } & StoredJson>(
        `UPDATE ${this.s}.sessions
            SET lease_owner = $2, lease_epoch = lease_epoch + 1, lease_expires_at = ${leaseExpiry(3)}
          WHERE id = $1 AND (lease_owner IS NULL OR lease_expires_at <= now())
          RETURNING lease_epoch::float8 AS epoch, ${HEADER_COLUMNS}`,
        [id, owner, this.leaseMs],
      );
      if (rows.length === 0) {
        if (await this.exists(id)) throw lockedError(id);
        throw new SessionError("not_found", `Session "${id}" does not exist in schema "${this.schema}".`);
      }
      epoch = rows[0]!.epoch;
      header = storedValue(rows[0]!);
    } catch (error) {
      throw storageError(`Cannot open session "${id}"`, error);
    }
    const lease = this.lease(id, owner, epoch);
    try {
      const parsed = await this.readEntries(id, header, options);
      return this.session(parsed.header, parsed.tree, lease, parsed.skipped);
    } catch (error) {
      await lease.release().catch(() => {});
      throw storageError(`Cannot open session "${id}"`, error);
    }
  }

  /**
   * @internal The entry count of session `id`, which is created first (with `cwd`, no lease) unless
   * it exists — on `db`, so that in a transaction it is created only if the transaction commits.
   * @throws SessionError("invalid_id") for a malformed id or cwd, ("storage") when the database fails.
   */
  async ensureSession(db: PostgresQueryable, id: string, cwd: string): Promise<number> {
    assertValidSessionId(id);
    assertValidCwd(cwd);
    await this.migrated();
    const count = async () => {
      const { rows } = await db.query<{ count: number }>(
        `SELECT entry_count AS count FROM ${this.s}.sessions WHERE id = $1`,
        [id],
      );
      return rows[0]?.count;
    };
    const existing = await count();
    if (existing !== undefined) return existing;
    try {
      await this.insert(createSessionHeader({ id, cwd }), new SessionTree(), undefined, db);
    } catch (error) {
      // Created meanwhile by another caller: its row is visible once that one committed.
      if (!(error instanceof SessionError && error.code === "already_exists")) throw error;
    }
    return (await count()) ?? 0;
  }

  /** All stored sessions in one indexed query (one snapshot: a session modified meanwhile is not missed). */
  async list(options: { cwd?: string } = {}): Promise<SessionInfo[]> {
    const rows = await this.querySessions(options.cwd, undefined, undefined);
    return rows.map(toInfo);
  }

  /**
   * One page of stored sessions, newest (last modified) first; only those of `cwd` if given. Pages
   * are read by index (keyset on the modification order), so any page costs the same. A session
   * modified while paging moves to the front and is not repeated; use `list()` for one snapshot.
   * @throws SessionError("invalid_id") for a malformed cursor or cwd.
   */
  async listPage(options: ListPageOptions = {}): Promise<SessionPage> {
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 100), 1), 1000);
    if (options.cursor !== undefined && !/^[0-9]{1,18}$/.test(options.cursor)) {
      throw new SessionError("invalid_id", `"${options.cursor}" is not a cursor returned by listPage().`);
    }
    const rows = await this.querySessions(options.cwd, options.cursor, limit + 1);
    const page: SessionPage = { sessions: rows.slice(0, limit).map(toInfo) };
    if (rows.length > limit) page.nextCursor = String(rows[limit - 1]!.seq);
    return page;
  }

  /** Sessions by descending `modified_seq` (of `cwd`, below `cursor`, at most `limit`), by index. */
  private async querySessions(
    cwd: string | undefined,
    cursor: string | undefined,
    limit: number | undefined,
  ): Promise<ListRow[]> {
    if (cwd !== undefined) assertValidCwd(cwd);
    const values: unknown[] = [];
    const where: string[] = [];
    if (cwd !== undefined) {
      values.push(cwd);
      where.push(`cwd = $${values.length}`);
    }
    if (cursor !== undefined) {
      values.push(cursor);
      where.push(`modified_seq < $${values.length}::bigint`);
    }
    if (limit !== undefined) values.push(limit);
    await this.migrated();
    try {
      const { rows } = await this.pool.query<ListRow>(
        `SELECT id, cwd, name, parent_session, header->>'parentToolCallId' AS parent_tool_call_id,
                (extract(epoch FROM created_at) * 1000)::float8 AS created_ms,
                (extract(epoch FROM modified_at) * 1000)::float8 AS modified_ms,
                modified_seq::float8 AS seq
           FROM ${this.s}.sessions
          ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
          ORDER BY ${cwd !== undefined ? "cwd, " : ""}modified_seq DESC
          ${limit !== undefined ? `LIMIT $${values.length}` : ""}`,
        values,
      );
      return rows;
    } catch (error) {
      throw storageError("Cannot list sessions", error);
    }
  }

  async delete(id: string): Promise<void> {
    assertValidSessionId(id);
    await this.migrated();
    try {
      const result = await this.pool.query(
        `DELETE FROM ${this.s}.sessions WHERE id = $1 AND (lease_owner IS NULL OR lease_expires_at <= now())`,
        [id],
      );
      if (result.rowCount === 0 && (await this.exists(id))) throw lockedError(id);
    } catch (error) {
      throw storageError(`Cannot delete session "${id}"`, error);
    }
  }

  async fork(sourceId: string, options: ForkSessionOptions = {}): Promise<PostgresSession> {
    const source = await this.read(sourceId); // no lease: the source's writer may keep appending
    const entries = selectForkEntries(source.tree, options);
    return this.insertLeased(forkHeader(source.header, sourceId), SessionTree.fromEntries(entries));
  }

  /**
   * The session as pi's JSONL text: the header line, then one line per entry in append order.
   * Importing the text again gives back the same header and entries.
   * @throws SessionError("not_found") if there is no such session.
   */
  async exportJsonl(id: string): Promise<string> {
    const parsed = await this.read(id);
    return serializeSession(parsed.header, parsed.tree.getEntries());
  }

  /**
   * Stores a pi JSONL session file (v1/v2 migrated to v3, as the JSONL repo does) under its own
   * session id, without opening it. A torn last line or a malformed middle line fails with
   * `invalid_entry` unless `recover` is set (then they are skipped and listed).
   * @throws SessionError("already_exists") if the id is taken, ("invalid_entry") for a bad file,
   * ("storage") if the file cannot be read.
   */
  async importJsonl(file: string, options: { recover?: boolean } = {}): Promise<ImportedSession> {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      throw storageError(`Cannot read ${file}`, error);
    }
    let parsed: ParsedSession;
    try {
      parsed = parseSessionText(text, options);
    } catch (error) {
      if (error instanceof SessionError) {
        throw new SessionError(error.code, `${error.message} (${file})`, { cause: error });
      }
      throw error;
    }
    const recovered = [...parsed.skipped];
    if (parsed.tornTail) {
      if (!options.recover) {
        throw new SessionError(
          "invalid_entry",
          `Session file line ${parsed.tornTail.line}: ${parsed.tornTail.reason} (${file}); import with { recover: true } to drop it.`,
        );
      }
      const { start: _start, ...line } = parsed.tornTail;
      recovered.push(line);
    }
    assertValidSessionId(parsed.header.id);
    assertValidCwd(parsed.header.cwd);
    await this.insert(parsed.header, parsed.tree, undefined);
    return { id: parsed.header.id, sourceVersion: parsed.sourceVersion, recovered };
  }

  /** Closes the pool the repo created from `connectionString` (a pool you passed stays open). */
  async close(): Promise<void> {
    if (this.ownsPool) await (this.pool as Pool).end();
  }

  /** Creates the schema on first use (once per repo instance; a failed attempt is retried next time). */
  private migrated(): Promise<void> {
    this.ready ??= migrateSchema(this.pool, this.schema).catch((error: unknown) => {
      this.ready = undefined;
      throw storageError(`Cannot prepare schema "${this.schema}"`, error);
    });
    return this.ready;
  }

  private async exists(id: string): Promise<boolean> {
    const { rows } = await this.pool.query(`SELECT 1 FROM ${this.s}.sessions WHERE id = $1`, [id]);
    return rows.length > 0;
  }

  /** Reads a session without taking its lease. */
  private async read(id: string): Promise<ParsedSession> {
    assertValidSessionId(id);
    await this.migrated();
    try {
      const { rows } = await this.pool.query<StoredJson>(
        `SELECT ${HEADER_COLUMNS} FROM ${this.s}.sessions WHERE id = $1`,
        [id],
      );
      if (rows.length === 0) {
        throw new SessionError("not_found", `Session "${id}" does not exist in schema "${this.schema}".`);
      }
      return await this.readEntries(id, storedValue(rows[0]!), {});
    } catch (error) {
      throw storageError(`Cannot read session "${id}"`, error);
    }
  }

  /**
   * The entries of a session, in append order, checked as the lines of a v3 file. The rows arrive
   * parsed (`pg` parses jsonb), so each entry is parsed once, as in a bare SELECT.
   */
  private async readEntries(
    id: string,
    header: Record<string, unknown>,
    options: OpenSessionOptions,
  ): Promise<ParsedSession> {
    const { rows } = await this.pool.query<StoredJson>(
      `SELECT ${ENTRY_COLUMNS}
         FROM ${this.s}.entries WHERE session_id = $1 ORDER BY seq`,
      [id],
    );
    const entries = new Array<Record<string, unknown>>(rows.length);
    for (let i = 0; i < rows.length; i++) entries[i] = storedValue(rows[i]!);
    return parseSessionValues(header, entries, options);
  }

  /**
   * Inserts a new session and its entries in one statement (atomic), leased to `owner` if given, on
   * `db` (default the pool; a transaction's connection to make it part of that transaction).
   */
  private async insert(
    header: SessionHeader,
    tree: SessionTree,
    owner: string | undefined,
    db: PostgresQueryable = this.pool,
  ): Promise<number> {
    await this.migrated();
    const head = headerLines(header);
    const lines = entryLines(tree.getEntries());
    let rows: { epoch: number }[];
    try {
      ({ rows } = await db.query<{ epoch: number }>(
        `WITH inserted AS (
           INSERT INTO ${this.s}.sessions (id, cwd, header, header_raw, name, parent_session, created_at,
                                           modified_seq, entry_count, lease_owner, lease_epoch, lease_expires_at)
           VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7::timestamptz, nextval('${this.s}.modification_seq'),
                   cardinality($8::text[]), $10::text,
                   CASE WHEN $10::text IS NULL THEN 0 ELSE 1 END,
                   CASE WHEN $10::text IS NULL THEN NULL ELSE ${leaseExpiry(11)} END)
           ON CONFLICT (id) DO NOTHING
           RETURNING id, lease_epoch
         ), stored AS (
           INSERT INTO ${this.s}.entries (session_id, seq, entry, raw)
           SELECT inserted.id, line.n, line.json::jsonb, line.raw
             FROM inserted, unnest($8::text[], $9::text[]) WITH ORDINALITY AS line (json, raw, n)
         )
         SELECT lease_epoch::float8 AS epoch FROM inserted`,
        [
          header.id,
          header.cwd,
          head.json[0],
          head.raw[0],
          tree.name ?? null,
          header.parentSession ?? null,
          createdAt(header),
          lines.json,
          lines.raw,
          owner ?? null,
          this.leaseMs,
        ],
      ));
    } catch (error) {
      throw storageError(`Cannot store session "${header.id}"`, error);
    }
    if (rows.length === 0) {
      throw new SessionError(
        "already_exists",
        `Session "${header.id}" already exists; pick another id or open it.`,
      );
    }
    return rows[0]!.epoch;
  }

  private async insertLeased(header: SessionHeader, tree: SessionTree): Promise<PostgresSession> {
    const owner = createSessionId();
    const epoch = await this.insert(header, tree, owner);
    return this.session(header, tree, this.lease(header.id, owner, epoch), undefined);
  }

  private lease(sessionId: string, owner: string, epoch: number): SessionLease {
    const terms = { pool: this.pool, schema: this.s, sessionId, owner, epoch, leaseMs: this.leaseMs };
    return new SessionLease(
      this.options.onLeaseLost ? { ...terms, onLost: this.options.onLeaseLost } : terms,
    );
  }

  private session(
    header: SessionHeader,
    tree: SessionTree,
    lease: SessionLease,
    recovered: RecoveredLine[] | undefined,
  ): PostgresSession {
    const sink = new PostgresSink(this.pool, lease, this.s, this.options.writeFault);
    return new PostgresSession(recovered ? { header, tree, sink, recovered } : { header, tree, sink }, lease);
  }
}

function toInfo(row: ListRow): SessionInfo {
  const info: SessionInfo = {
    id: row.id,
    cwd: row.cwd,
    createdAt: new Date(row.created_ms),
    modifiedAt: new Date(row.modified_ms),
  };
  if (row.name !== null) info.name = row.name;
  if (row.parent_session !== null) info.parentSession = row.parent_session;
  if (row.parent_tool_call_id !== null) info.parentToolCallId = row.parent_tool_call_id;
  return info;
}

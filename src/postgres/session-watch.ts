import { Observable } from "rxjs";
import type { SessionEntry } from "../storage/entries.js";
import type { ReplyDelta } from "../storage/reply-delta.js";
import type { SessionStreamUpdate } from "../storage/session-stream-update.js";
import { errorText } from "../types/error-text.js";
import type { NoticeListener } from "./notice-listener.js";
import type { PostgresPool } from "./postgres-pool.js";
import { ENTRY_COLUMNS, type StoredJson, storedValue } from "./postgres-session-repo.js";
import type { RunState, RunStore } from "./run-store.js";
import { DELTAS_PER_ENTRY, entryOfPosition, entryPosition } from "./stream-position.js";

/** What `watch` reports: entries, deltas of the streaming reply (with `deltas: true`), run states. */
export type SessionUpdate = SessionStreamUpdate;

/** Where a watch starts and what it reports. */
export interface WatchCursor {
  /** Report the entries after this one (and the deltas of replies streaming after it). */
  afterSeq: number;
  /** Report the deltas after this position (an update's `position`); overrides `afterSeq`. */
  afterPosition?: number;
  /** Report the recorded deltas of the streaming reply too (default false: entries only). */
  deltas?: boolean;
}

/** Where and how a watch reads. */
export interface WatchSource {
  /** The LISTEN connection on `CHANGE_CHANNEL` the client's watches share. */
  listener: NoticeListener;
  pool: PostgresPool;
  /** Quoted schema. */
  s: string;
  /** Unquoted schema (the notification payload names it). */
  schema: string;
  store: RunStore;
  /** Poll interval while notices do not arrive (LISTEN unavailable, or its connection being made again). */
  pollMs: number;
  /** The watches of the client: `endAll()` (the client's `close()`) ends them. */
  watches: WatchRegistry;
}

/**
 * The open watches of one client, so that closing the client ends them. After `endAll()`, a new
 * watch errors at once.
 */
export class WatchRegistry {
  readonly #active = new Set<() => Promise<void>>();
  #ended = false;

  /** Whether `endAll()` was called. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Registers a watch's ending (completes it); returns the unregister. */
  add(end: () => Promise<void>): () => void {
    this.#active.add(end);
    return () => this.#active.delete(end);
  }

  /** Ends every open watch (their subscribers complete). */
  async endAll(): Promise<void> {
    this.#ended = true;
    await Promise.all([...this.#active].map((end) => end()));
  }
}

/**
 * The entries of `sessionId` stored after the cursor, then every new one — with `deltas`, also the
 * recorded deltas of the reply streaming now, in stream order (an entry, the deltas of the reply
 * after it, the reply's message entry) — and the run state (now, then each change), as an
 * Observable. Entries and deltas are read in one statement (one snapshot), so a read never reports
 * deltas of a reply after its message; deltas written and deleted (the message stored) between two
 * reads are not reported: the message supersedes them. A run state is reported after every entry
 * stored before it.
 * Woken by LISTEN/NOTIFY on the connection all watches of the client share (`source.listener`);
 * while notices do not arrive — LISTEN cannot be set up (e.g. a transaction-mode pooler), or its
 * connection died and is being made again — it polls every `pollMs`, and when they arrive again it
 * reads from its position: nothing is lost or repeated. Errors of the database end the Observable
 * with an Error. `source.watches.endAll()` completes it and closes its connection; subscribing after that
 * errors (the client is closed).
 */
export function watchSession(
  source: WatchSource,
  sessionId: string,
  cursor: WatchCursor,
): Observable<SessionUpdate> {
  return new Observable<SessionUpdate>((subscriber) => {
    if (source.watches.ended) {
      subscriber.error(new Error(`Cannot watch session "${sessionId}": the client is closed`));
      return;
    }
    let seq = cursor.afterPosition === undefined ? cursor.afterSeq : entryOfPosition(cursor.afterPosition);
    let position = cursor.afterPosition ?? entryPosition(seq);
    let state: RunState | undefined;
    let closed = false;
    let reading: Promise<void> | undefined;
    let again = false;
    let timer: ReturnType<typeof setInterval> | undefined;
    const query = cursor.deltas ? streamQuery(source.s) : entryQuery(source.s);

    const readOnce = async () => {
      // The state first: the entries stored before it are all in the read that follows.
      const now = await source.store.state(sessionId);
      const parameters = cursor.deltas ? [sessionId, seq, position] : [sessionId, seq];
      const { rows } = await source.pool.query<StreamRow>(query, parameters);
      for (const row of rows) {
        if (closed) return;
        position = row.position;
        if (row.reply === null) {
          seq = entryOfPosition(row.position);
          const entry = storedValue(row) as unknown as SessionEntry;
          subscriber.next({ type: "entry", seq, position, entry });
        } else {
          const delta = row.json as ReplyDelta;
          const afterSeq = entryOfPosition(row.position);
          subscriber.next({ type: "delta", position, afterSeq, reply: row.reply, delta });
        }
      }
      if (!closed && now !== state) {
        state = now;
        subscriber.next({ type: "run_state", state: now });
      }
    };
    const read = () => {
      if (closed) return;
      if (reading) {
        again = true;
        return;
      }
      reading = (async () => {
        do {
          again = false;
          await readOnce();
        } while (again && !closed);
      })()
        .catch((error: unknown) => {
          if (!closed)
            subscriber.error(new Error(`Cannot watch session "${sessionId}": ${errorText(error)}`));
        })
        .finally(() => {
          reading = undefined;
        });
    };

    const poll = (on: boolean) => {
      if (on) timer ??= setInterval(read, source.pollMs);
      else if (timer) {
        clearInterval(timer);
        timer = undefined;
      }
    };
    read();
    const leave = source.listener.subscribe(`${source.schema}/${sessionId}`, {
      notice: read,
      listening: (up) => {
        poll(!up);
        if (up) read(); // notices may have been missed while the connection was made
      },
    });
    const unregister = source.watches.add(async () => {
      subscriber.complete();
    });
    return () => {
      closed = true;
      unregister();
      leave();
      poll(false);
    };
  });
}

/** A row of a watch read: an entry (`reply` null) or a recorded delta, at its stream position. */
type StreamRow = StoredJson & { position: number; reply: string | null };

/** The entries after `$2`, as {@link StreamRow}s. */
function entryQuery(s: string): string {
  return `SELECT (seq::bigint * ${DELTAS_PER_ENTRY})::float8 AS position, ${ENTRY_COLUMNS}, NULL::text AS reply
            FROM ${s}.entries WHERE session_id = $1 AND seq > $2 ORDER BY seq`;
}

/**
 * The entries after entry `$2` and the deltas after position `$3` in stream order. Deltas count
 * only for replies after the newest entry known to the reader (older ones are of stored replies,
 * waiting to be deleted) and at most after the newest stored entry (a delta is never reported
 * before the entry its reply follows).
 */
function streamQuery(s: string): string {
  return `SELECT (seq::bigint * ${DELTAS_PER_ENTRY})::float8 AS position, ${ENTRY_COLUMNS}, NULL::text AS reply
            FROM ${s}.entries WHERE session_id = $1 AND seq > $2
          UNION ALL
          SELECT seq::float8, delta, NULL, reply
            FROM ${s}.reply_deltas
           WHERE session_id = $1 AND seq > $3::bigint AND seq >= $2::bigint * ${DELTAS_PER_ENTRY}
             AND seq < (SELECT (entry_count::bigint + 1) * ${DELTAS_PER_ENTRY} FROM ${s}.sessions WHERE id = $1)
          ORDER BY position`;
}

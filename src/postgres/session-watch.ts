import { Observable } from "rxjs";
import type { SessionEntry } from "../storage/entries.js";
import { errorText } from "../types/error-text.js";
import { pg } from "./pg-driver.js";
import type { PostgresPool } from "./postgres-pool.js";
import { CHANGE_CHANNEL } from "./postgres-schema.js";
import { ENTRY_COLUMNS, type StoredJson, storedValue } from "./postgres-session-repo.js";
import type { RunState, RunStore } from "./run-store.js";

/** What `watch` reports: a new entry of the session (with its position), or a run-state change. */
export type SessionUpdate =
  | { type: "entry"; seq: number; entry: SessionEntry }
  | { type: "run_state"; state: RunState };

/** Where and how a watch reads. */
export interface WatchSource {
  connectionString: string;
  pool: PostgresPool;
  /** Quoted schema. */
  s: string;
  /** Unquoted schema (the notification payload names it). */
  schema: string;
  store: RunStore;
  /** Poll interval when LISTEN is unavailable. */
  pollMs: number;
  /** The watches of the client: `endAll()` (the client's `close()`) ends them. */
  watches: WatchRegistry;
}

/**
 * The open watches of one client, so that closing the client ends them and their LISTEN
 * connections. After `endAll()`, a new watch errors at once.
 */
export class WatchRegistry {
  readonly #active = new Set<() => Promise<void>>();
  #ended = false;

  /** Whether `endAll()` was called. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Registers a watch's ending (completes it, resolves once its connection is closed); returns the unregister. */
  add(end: () => Promise<void>): () => void {
    this.#active.add(end);
    return () => this.#active.delete(end);
  }

  /** Ends every open watch (their subscribers complete) and resolves once their connections are closed. */
  async endAll(): Promise<void> {
    this.#ended = true;
    await Promise.all([...this.#active].map((end) => end()));
  }
}

/**
 * The entries of `sessionId` stored after position `afterSeq`, then every new one, and the run
 * state (now, then each change), as an Observable. Woken by LISTEN/NOTIFY on a connection of its
 * own; if LISTEN cannot be set up (e.g. a transaction-mode pooler), it polls every `pollMs`.
 * Errors of the database end the Observable with an Error. `source.watches.endAll()` completes it and
 * closes its connection; subscribing after that errors (the client is closed).
 */
export function watchSession(
  source: WatchSource,
  sessionId: string,
  afterSeq: number,
): Observable<SessionUpdate> {
  return new Observable<SessionUpdate>((subscriber) => {
    if (source.watches.ended) {
      subscriber.error(new Error(`Cannot watch session "${sessionId}": the client is closed`));
      return;
    }
    let seq = afterSeq;
    let state: RunState | undefined;
    let closed = false;
    let reading: Promise<void> | undefined;
    let again = false;
    let timer: ReturnType<typeof setInterval> | undefined;

    const readOnce = async () => {
      const { rows } = await source.pool.query<StoredJson & { seq: number }>(
        `SELECT seq, ${ENTRY_COLUMNS} FROM ${source.s}.entries WHERE session_id = $1 AND seq > $2 ORDER BY seq`,
        [sessionId, seq],
      );
      for (const row of rows) {
        if (closed) return;
        seq = row.seq;
        subscriber.next({ type: "entry", seq: row.seq, entry: storedValue(row) as unknown as SessionEntry });
      }
      const now = await source.store.state(sessionId);
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

    const listener = new pg.Client({ connectionString: source.connectionString });
    const poll = () => {
      timer ??= setInterval(read, source.pollMs);
    };
    listener.on("error", poll); // the LISTEN connection broke: poll from now on
    listener.on("notification", (notice) => {
      if (notice.payload === `${source.schema}/${sessionId}`) read();
    });
    const listening = listener
      .connect()
      .then(() => listener.query(`LISTEN ${CHANGE_CHANNEL}`))
      .catch(poll)
      .finally(read);

    // Ends the connection once its setup settled (ending a connecting client can leave it open).
    let disconnected: Promise<void> | undefined;
    const disconnect = () => {
      disconnected ??= listening.then(() => listener.end()).catch(() => {});
      return disconnected;
    };
    const unregister = source.watches.add(() => {
      subscriber.complete();
      return disconnect();
    });
    return () => {
      closed = true;
      unregister();
      if (timer) clearInterval(timer);
      void disconnect();
    };
  });
}

import type { Client } from "pg";
import { pg } from "./pg-driver.js";

/** What a subscriber of a {@link NoticeListener} is told. */
export interface NoticeSubscriber {
  /** A notice with the subscribed payload arrived. */
  notice(): void;
  /**
   * Notices arrive (`true`: connected and listening — notices may have been missed before, so read
   * what changed) or do not (`false`: connecting, or the connection died; poll meanwhile).
   */
  listening(up: boolean): void;
}

/** Options of {@link NoticeListener}. */
export interface NoticeListenerOptions {
  connectionString: string;
  /** The NOTIFY channel (a plain identifier). */
  channel: string;
  /** How often the connection is proven alive by a round trip (default 5 000 ms). */
  heartbeatMs?: number;
  /** How long a round trip may take before the connection counts as dead (default 5 000 ms). */
  heartbeatTimeoutMs?: number;
  /** The wait between attempts to connect (default 1 000 ms). */
  retryMs?: number;
}

/**
 * One LISTEN connection shared by every subscriber of a process (or client): notices are dispatched
 * by payload. The connection is proven alive by a round trip every `heartbeatMs`; one that errors,
 * ends or stays silent past `heartbeatTimeoutMs` (half-open: a NAT timeout, a failover) is dropped and
 * made again, every `retryMs` until it works. Subscribers learn when notices stop and start again
 * (`listening`), so that they poll meanwhile and read what they missed once it is back. The
 * connection is opened with the first subscriber and closed after the last one leaves.
 *
 * ```ts
 * const read = () => console.log("read the new entries of s1");
 * const poll = () => console.log("poll s1 until LISTEN is back");
 * const listener = new NoticeListener({ connectionString: process.env.DATABASE_URL!, channel: "agentchart_changes" });
 * const leave = listener.subscribe("agentchart/s1", { notice: read, listening: (up) => (up ? read() : poll()) });
 * ```
 */
export class NoticeListener {
  readonly #options: Required<NoticeListenerOptions>;
  readonly #subscribers = new Map<string, Set<NoticeSubscriber>>();
  #count = 0;
  #client: Client | undefined;
  #connecting: Promise<void> | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #retry: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | undefined;
  #closed = false;
  /** Connections made so far (the first and every reconnection). */
  connections = 0;

  constructor(options: NoticeListenerOptions) {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.channel))
      throw new RangeError(`"${options.channel}" is not a plain channel name.`);
    this.#options = { heartbeatMs: 5_000, heartbeatTimeoutMs: 5_000, retryMs: 1_000, ...options };
  }

  /** Whether notices arrive now. */
  get listening(): boolean {
    return this.#client !== undefined;
  }

  /**
   * Calls `subscriber.notice()` for each notice whose payload is `payload`, and tells it whether
   * notices arrive (at once, then on each change). Returns the unsubscribe.
   * Contract: never throws; after `close()` the subscriber is told `listening(false)` only.
   */
  subscribe(payload: string, subscriber: NoticeSubscriber): () => void {
    const set = this.#subscribers.get(payload) ?? new Set<NoticeSubscriber>();
    this.#subscribers.set(payload, set);
    set.add(subscriber);
    this.#count++;
    subscriber.listening(this.listening);
    if (!this.#closed) this.#connecting ??= this.#connect();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      set.delete(subscriber);
      if (set.size === 0) this.#subscribers.delete(payload);
      if (--this.#count === 0) this.#disconnect();
    };
  }

  /** Closes the connection for good; later subscribers poll. Resolves once it is closed. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#disconnect();
    await this.#connecting;
  }

  /** Connects and listens, retrying every `retryMs` while someone subscribes. */
  async #connect(): Promise<void> {
    try {
      while (!this.#closed && this.#count > 0) {
        const client = new pg.Client({
          connectionString: this.#options.connectionString,
          keepAlive: true,
          connectionTimeoutMillis: this.#options.heartbeatTimeoutMs,
          query_timeout: this.#options.heartbeatTimeoutMs,
        });
        client.on("error", () => this.#drop(client));
        client.on("end", () => this.#drop(client));
        client.on("notification", (notice) => {
          for (const subscriber of this.#subscribers.get(notice.payload ?? "") ?? []) subscriber.notice();
        });
        try {
          await client.connect();
          await client.query(`LISTEN ${this.#options.channel}`);
        } catch {
          destroy(client);
          await this.#pause();
          continue;
        }
        if (this.#closed || this.#count === 0) {
          destroy(client);
          return;
        }
        this.connections++;
        this.#client = client;
        this.#heartbeat = setInterval(() => this.#check(client), this.#options.heartbeatMs);
        this.#heartbeat.unref?.();
        this.#tell(true);
        return;
      }
    } finally {
      this.#connecting = undefined;
    }
  }

  /** A round trip on the connection; no answer within `heartbeatTimeoutMs` (`query_timeout`) drops it. */
  #check(client: Client): void {
    client.query("SELECT 1").catch(() => this.#drop(client));
  }

  /** The connection is dead: subscribers poll, and a new one is made. */
  #drop(client: Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    clearInterval(this.#heartbeat);
    destroy(client);
    this.#tell(false);
    if (!this.#closed && this.#count > 0) this.#connecting ??= this.#connect();
  }

  #disconnect(): void {
    this.#retry?.resolve();
    const client = this.#client;
    if (!client) return;
    this.#client = undefined;
    clearInterval(this.#heartbeat);
    destroy(client);
  }

  /** Waits `retryMs` (cut short by `close()` or the last subscriber leaving). */
  #pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#retry = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.#options.retryMs);
      timer.unref?.();
      this.#retry = { timer, resolve: done };
    });
  }

  #tell(up: boolean): void {
    for (const set of [...this.#subscribers.values()])
      for (const subscriber of [...set]) subscriber.listening(up);
  }
}

/**
 * Closes a connection at once, whatever its state: `end()` alone waits for the server's answer, which
 * a half-open connection never sends, so its socket is destroyed too.
 */
function destroy(client: Client): void {
  client.end().catch(() => {});
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

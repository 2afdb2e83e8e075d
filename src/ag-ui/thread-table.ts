import { AgUiError } from "./ag-ui-error.js";

/**
 * The threads an endpoint serves from memory, bounded: a thread not `busy` (no run going on) and not
 * used for `threadIdleMs` is evicted, and opening a thread when `maxThreads` are open evicts the one
 * idle longest. Eviction only forgets the thread here; whoever made it restores it on its next request.
 * Expired threads are swept on each access (no timer keeps the process alive).
 *
 * ```ts
 * interface Thread { live: boolean; close(): Promise<void> }
 * const limits = { maxThreads: 100, threadIdleMs: 10 * 60_000 };
 * const table = new ThreadTable<Thread>(limits, (thread) => thread.live, (id, thread) => thread.close());
 * const thread = table.open("t1", () => ({ live: false, close: async () => {} }));
 * ```
 */
export class ThreadTable<TThread> {
  /** By least recently used first (a use moves a thread to the end). */
  readonly #entries = new Map<string, { thread: TThread; usedAt: number }>();
  readonly #limits: { maxThreads: number; threadIdleMs: number };
  readonly #busy: (thread: TThread) => boolean;
  readonly #evicted: (threadId: string, thread: TThread) => Promise<void>;
  /** Releases of evicted threads still going on, by thread id. */
  readonly #releasing = new Map<string, Promise<void>>();

  constructor(
    limits: { maxThreads: number; threadIdleMs: number },
    busy: (thread: TThread) => boolean,
    evicted: (threadId: string, thread: TThread) => Promise<void>,
  ) {
    this.#limits = limits;
    this.#busy = busy;
    this.#evicted = evicted;
  }

  /** How many threads are open. */
  get size(): number {
    return this.#entries.size;
  }

  /** The open thread of that id (marked used now), or `undefined`. */
  get(threadId: string): TThread | undefined {
    this.#sweep();
    const entry = this.#entries.get(threadId);
    if (entry) this.#use(threadId, entry.thread);
    return entry?.thread;
  }

  /**
   * The thread of that id, made by `create` when it is not open — given the release of the thread
   * evicted under that id while it goes on (the new one must wait for it). Throws `AgUiError`
   * `too_many_threads` when `maxThreads` are open and all are busy.
   */
  open(threadId: string, create: (released: Promise<void> | undefined) => TThread): TThread {
    const open = this.get(threadId);
    if (open !== undefined) return open;
    if (this.#entries.size >= this.#limits.maxThreads && !this.#evictOne())
      throw new AgUiError(
        "too_many_threads",
        `The endpoint serves maxThreads (${this.#limits.maxThreads}) threads with runs going on: try again later`,
      );
    const thread = create(this.#releasing.get(threadId));
    this.#use(threadId, thread);
    return thread;
  }

  /** Marks the thread used now (a run of it ended), if it is still the open one. */
  touch(threadId: string, thread: TThread): void {
    if (this.#entries.get(threadId)?.thread === thread) this.#use(threadId, thread);
  }

  /** Forgets the thread, if it is still the open one. */
  delete(threadId: string, thread: TThread): void {
    if (this.#entries.get(threadId)?.thread === thread) this.#entries.delete(threadId);
  }

  #use(threadId: string, thread: TThread): void {
    this.#entries.delete(threadId);
    this.#entries.set(threadId, { thread, usedAt: Date.now() });
  }

  /** Evicts the threads idle for `threadIdleMs` (the oldest uses come first: stops at a recent one). */
  #sweep(): void {
    const before = Date.now() - this.#limits.threadIdleMs;
    for (const [threadId, entry] of this.#entries) {
      if (entry.usedAt > before) return;
      if (!this.#busy(entry.thread)) this.#evict(threadId, entry.thread);
    }
  }

  /** Evicts the least recently used thread that is not busy; false when every one is. */
  #evictOne(): boolean {
    for (const [threadId, entry] of this.#entries)
      if (!this.#busy(entry.thread)) {
        this.#evict(threadId, entry.thread);
        return true;
      }
    return false;
  }

  #evict(threadId: string, thread: TThread): void {
    this.#entries.delete(threadId);
    const released: Promise<void> = this.#evicted(threadId, thread)
      .catch(() => {})
      .finally(() => {
        if (this.#releasing.get(threadId) === released) this.#releasing.delete(threadId);
      });
    this.#releasing.set(threadId, released);
  }
}

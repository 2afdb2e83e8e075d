import { errorText } from "../types/error-text.js";
import { SessionError } from "../types/session-error.js";

/**
 * Where a session's lines go. Implementations must write text in call order. `write` either stores
 * the text before returning (return nothing; throw if it failed) or returns a promise that settles
 * once the text is stored (as durable as the backend promises); a rejection or throw means the text
 * may not be stored. Returning synchronously lets an append be acknowledged without a round trip.
 */
export interface SessionSink {
  /** Appends complete lines (each ending with "\n"). Called with one pending write at a time. */
  write(text: string): void | Promise<void>;
  /** Releases the backend (file handle, lock). Called once, after the last write settled. */
  close(): void | Promise<void>;
}

/** State of a session's writer: `open`, `failed` after a write failed, `closed` once `close()` was called. */
export type SessionWriterStatus = "open" | "failed" | "closed";

/** One queued write; `text: undefined` is a flush marker that settles once everything before it is written. */
interface QueuedWrite {
  text: string | undefined;
  settle(error?: SessionError): void;
}

const resolved = Promise.resolve();
const ignore = () => {};

/**
 * The one writer of a session: owns its queue, its status and its sink, and writes strictly in order.
 * Writes made in the same tick go to the sink as one batch (at the next promise job, or at once on
 * `close()`); writes made while an asynchronous sink write is in flight (e.g. `fdatasync`) queue up
 * and go together next (group commit). A synchronous sink acknowledges a batch without a round trip.
 * After a failure, the failing, the queued and every later write reject with the same
 * `SessionError("storage")` (a `fenced` error keeps its code); after `close()` new text is refused and
 * flush markers settle with the earlier failure, if any.
 *
 * Contract: `write`/`flush` never throw; their rejections are marked handled, so a caller that does
 * not await them does not crash the process (`flush()` still reports the failure). `close()` resolves
 * even if the writer failed.
 *
 * ```ts
 * import { appendFileSync } from "node:fs";
 * const file = "sessions/s1.jsonl";
 * const writer = new SessionWriter({ write: (text) => appendFileSync(file, text), close: () => {} });
 * void writer.write('{"type":"message"}\n');
 * await writer.flush();
 * ```
 */
export class SessionWriter {
  readonly #sink: SessionSink;
  #queue: QueuedWrite[] = [];
  #scheduled = false;
  #inFlight = false;
  #failure: SessionError | undefined;
  #closeRequested = false;
  #closing: Promise<void> | undefined;
  #closed = false;
  readonly #closeWaiters: (() => void)[] = [];

  constructor(sink: SessionSink) {
    this.#sink = sink;
  }

  get status(): SessionWriterStatus {
    if (this.#closeRequested) return "closed";
    return this.#failure ? "failed" : "open";
  }

  /** The storage error that failed the writer, if any. */
  get error(): SessionError | undefined {
    return this.#failure;
  }

  /** Queues text; the promise settles with `value` once it is written. */
  write<TValue = void>(text: string | undefined, value?: TValue): Promise<TValue> {
    let settle!: (error?: SessionError) => void;
    const promise = new Promise<TValue>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve(value as TValue) : reject(error));
    });
    promise.catch(ignore);
    this.#enqueue({ text, settle });
    return promise;
  }

  /** Resolves when everything queued so far is written; rejects with the `storage` error if the writer failed. */
  flush(): Promise<void> {
    return this.write<void>(undefined);
  }

  /** Drains the queue, then closes the sink. Resolves even if the writer failed. */
  close(): Promise<void> {
    if (this.#closed) return resolved;
    const done = new Promise<void>((resolve) => this.#closeWaiters.push(resolve));
    this.#closeRequested = true;
    if (!this.#inFlight) this.#drain();
    return done;
  }

  #enqueue(write: QueuedWrite): void {
    if (this.#failure !== undefined) {
      write.settle(this.#failure);
      return;
    }
    if (this.#closeRequested) {
      // Text after close is refused; a flush marker reports that everything before it was written.
      if (write.text !== undefined)
        write.settle(new SessionError("storage", "The session is closed; open it again to append."));
      else if (this.#inFlight || this.#queue.length > 0) this.#queue.push(write);
      else write.settle();
      return;
    }
    this.#queue.push(write);
    if (this.#inFlight || this.#scheduled) return;
    this.#scheduled = true;
    // A plain promise job, not queueMicrotask (which wraps every callback in an async resource).
    resolved.then(() => {
      this.#scheduled = false;
      if (!this.#inFlight) this.#drain();
    });
  }

  /** Writes queued batches until the queue is empty or an asynchronous write is in flight. */
  #drain(): void {
    while (this.#queue.length > 0 && this.#failure === undefined) {
      const batch = this.#queue;
      this.#queue = [];
      let text = "";
      for (const write of batch) if (write.text !== undefined) text += write.text;
      let pending: void | Promise<void>;
      try {
        pending = text.length > 0 ? this.#sink.write(text) : undefined;
      } catch (error) {
        this.#fail(error, batch);
        break;
      }
      if (!pending) {
        for (const write of batch) write.settle();
        continue;
      }
      this.#inFlight = true;
      pending.then(
        () => {
          this.#inFlight = false;
          for (const write of batch) write.settle();
          this.#drain();
        },
        (error: unknown) => {
          this.#inFlight = false;
          this.#fail(error, batch);
          this.#drain();
        },
      );
      return;
    }
    if (this.#closeRequested && !this.#closing) this.#closeSink();
  }

  #fail(cause: unknown, batch: readonly QueuedWrite[]): void {
    this.#failure =
      cause instanceof SessionError && cause.code === "fenced"
        ? cause
        : new SessionError(
            "storage",
            `Writing the session failed (${errorText(cause)}); the session is read-only now — reopen it to continue.`,
            { cause },
          );
    for (const write of batch) write.settle(this.#failure);
    for (const write of this.#queue) write.settle(this.#failure);
    this.#queue = [];
  }

  #closeSink(): void {
    const finish = () => {
      this.#closed = true;
      for (const done of this.#closeWaiters.splice(0)) done();
    };
    let closing: void | Promise<void>;
    try {
      closing = this.#sink.close();
    } catch {
      closing = undefined; // the handle is gone either way
    }
    this.#closing = Promise.resolve(closing).then(finish, finish);
  }
}

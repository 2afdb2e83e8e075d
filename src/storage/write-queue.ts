import { type Actor, type AnyActorRef, createActor } from "xstate";
import type { PendingWrite, SessionSink } from "../actors/session-writer.js";
import { sessionWriterMachine } from "../machines/session.machine.js";
import type { SessionError } from "../types/session-error.js";

/** State of a session's writer. */
export type SessionWriterStatus = "open" | "failed" | "closed";

const ignore = () => {};
const resolved = Promise.resolve();

/** A write waiting for the writer, with the promise handed to the caller. */
class QueuedWrite<TValue> implements PendingWrite {
  readonly promise: Promise<TValue>;
  private resolve!: (value: TValue) => void;
  private reject!: (error: SessionError) => void;

  constructor(
    readonly text: string | undefined,
    private readonly value: TValue,
  ) {
    this.promise = new Promise<TValue>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  settle(error?: SessionError): void {
    if (error === undefined) {
      this.resolve(this.value);
    } else {
      // Handled before it rejects: a caller that did not await it does not crash the process.
      this.promise.catch(ignore);
      this.reject(error);
    }
  }
}

/**
 * Promise-based handle on a running {@link sessionWriterMachine}. Writes made in the same tick are
 * handed to the machine's writer as one batch (at the next microtask, or at once on `close()`); the
 * writer writes a batch at once when idle, and everything that queued up while an asynchronous write
 * was in flight as one sink write (group commit). Lifecycle changes (`close`, failures) go through the
 * machine; the batches go straight to its `writer` child, so a write costs no machine step.
 */
export class SessionWriteQueue {
  private readonly actor: Actor<typeof sessionWriterMachine>;
  private readonly writer: AnyActorRef;
  private buffered: PendingWrite[] = [];
  private readonly deliver = () => {
    if (this.buffered.length === 0) return;
    const writes = this.buffered;
    this.buffered = [];
    this.writer.send({ type: "write", writes });
  };

  constructor(sink: SessionSink) {
    this.actor = createActor(sessionWriterMachine, { input: { sink } });
    this.actor.start();
    const writer = this.actor.getSnapshot().children.writer;
    if (!writer) throw new Error("sessionWriterMachine did not start its writer");
    this.writer = writer;
  }

  /** "failed" after a write failed, "closed" once `close()` was called. */
  get status(): SessionWriterStatus {
    const state = this.actor.getSnapshot().value;
    if (state === "failed") return "failed";
    if (state === "closing" || state === "closed") return "closed";
    return "open";
  }

  /** The storage error that failed the writer, if any. */
  get error(): SessionError | undefined {
    return this.actor.getSnapshot().context.error;
  }

  /**
   * Queues text; the promise settles once it is written. A rejection is marked handled, so a caller
   * that does not await the promise does not crash the process; `flush()` still reports the failure.
   */
  write<TValue = void>(text: string | undefined, value?: TValue): Promise<TValue> {
    const write = new QueuedWrite(text, value as TValue);
    // A plain promise job, not queueMicrotask (which wraps every callback in an async resource).
    if (this.buffered.push(write) === 1) resolved.then(this.deliver);
    return write.promise;
  }

  /** Resolves when everything queued so far is written; rejects with the `storage` error if the writer failed. */
  flush(): Promise<void> {
    return this.write<void>(undefined);
  }

  /** Drains the queue, then closes the sink. Resolves even if the writer failed. */
  close(): Promise<void> {
    this.deliver();
    return new Promise<void>((resolve) => this.actor.send({ type: "close", done: resolve }));
  }
}

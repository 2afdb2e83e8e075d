import { type Actor, createActor } from "xstate";
import type { SessionSink } from "../actors/session-writer.js";
import { type PendingWrite, sessionWriterMachine } from "../machines/session.machine.js";
import type { SessionError } from "./session-error.js";

/** State of a session's writer. */
export type SessionWriterStatus = "open" | "failed" | "closed";

const ignore = () => {};

/**
 * Promise-based handle on a running {@link sessionWriterMachine}. Writes made in the same tick are
 * handed to the machine as one event (at the next microtask, or at once on `close()`), and the machine
 * writes everything that queued up while a batch was in flight as one sink write (group commit).
 */
export class SessionWriteQueue {
  private readonly actor: Actor<typeof sessionWriterMachine>;
  private buffered: PendingWrite[] = [];
  private readonly deliver = () => {
    if (this.buffered.length === 0) return;
    const writes = this.buffered;
    this.buffered = [];
    this.actor.send({ type: "write", writes });
  };

  constructor(sink: SessionSink) {
    this.actor = createActor(sessionWriterMachine, { input: { sink } });
    this.actor.start();
  }

  /** "failed" after a write failed, "closed" once `close()` was called. */
  get status(): SessionWriterStatus {
    const snapshot = this.actor.getSnapshot();
    if (snapshot.value === "failed") return "failed";
    if (snapshot.value === "closing" || snapshot.value === "closed") return "closed";
    return "open";
  }

  /** The storage error that failed the writer, if any. */
  get error(): SessionError | undefined {
    return this.actor.getSnapshot().context.error;
  }

  /**
   * Queues text; the promise settles once it is written. The promise is marked handled, so a caller
   * that does not await it does not crash the process; `flush()` still reports the failure.
   */
  write<TValue = void>(text: string | undefined, value?: TValue): Promise<TValue> {
    let settle!: PendingWrite["settle"];
    const done = new Promise<TValue>((resolve, reject) => {
      settle = (error) => (error ? reject(error) : resolve(value as TValue));
    });
    done.catch(ignore);
    if (this.buffered.push({ text, settle }) === 1) queueMicrotask(this.deliver);
    return done;
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

import { type Actor, createActor } from "xstate";
import type { SessionSink } from "../actors/session-writer.js";
import { type PendingWrite, sessionWriterMachine } from "../machines/session.machine.js";
import type { SessionError } from "./session-error.js";

/** State of a session's writer. */
export type SessionWriterStatus = "open" | "failed" | "closed";

const ignore = () => {};

/**
 * Promise-based handle on a running {@link sessionWriterMachine}: one machine event per write,
 * one sink write per batch.
 */
export class SessionWriteQueue {
  private readonly actor: Actor<typeof sessionWriterMachine>;

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
  write(text: string | undefined): Promise<void> {
    let settle!: PendingWrite["settle"];
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => (error ? reject(error) : resolve());
    });
    done.catch(ignore);
    this.actor.send({ type: "write", write: { text, settle } });
    return done;
  }

  /** Resolves when everything queued so far is written; rejects with the `storage` error if the writer failed. */
  flush(): Promise<void> {
    return this.write(undefined);
  }

  /** Drains the queue, then closes the sink. Resolves even if the writer failed. */
  close(): Promise<void> {
    return new Promise<void>((resolve) => this.actor.send({ type: "close", done: resolve }));
  }
}

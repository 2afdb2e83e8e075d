import { fromCallback } from "xstate";
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

/** One queued write; `text: undefined` is a flush marker that settles once everything before it is written. */
export interface PendingWrite {
  text: string | undefined;
  settle(error?: SessionError): void;
}

/** What the writer accepts: a batch of writes (in order), or the request to drain and close the sink. */
export type SessionWriterCommand = { type: "write"; writes: PendingWrite[] } | { type: "close" };

/**
 * What the writer reports to the session machine. A synchronous write reports nothing: it is done
 * before the command returns. `WRITING`/`WRITTEN` bracket asynchronous writes (e.g. `fdatasync`).
 */
export type SessionWriterReport =
  | { type: "WRITING" }
  | { type: "WRITTEN" }
  | { type: "FAILED"; error: SessionError }
  | { type: "CLOSED" };

function settleAll(batch: readonly PendingWrite[], error?: SessionError): void {
  for (const write of batch) write.settle(error);
}

function joinBatch(batch: readonly PendingWrite[]): string {
  let text = "";
  for (const write of batch) if (write.text !== undefined) text += write.text;
  return text;
}

/** A write refused because the writer lost its claim on the session (`fenced`) keeps its own code. */
function storageFailure(cause: unknown): SessionError {
  if (cause instanceof SessionError && cause.code === "fenced") return cause;
  const reason = errorText(cause);
  return new SessionError(
    "storage",
    `Writing the session failed (${reason}); the session is read-only now — reopen it to continue.`,
    { cause },
  );
}

function closedError(): SessionError {
  return new SessionError("storage", "The session is closed; open it again to append.");
}

/**
 * The session's single writer, alive for the whole session: owns the sink and the queue and writes
 * strictly in order. A batch that arrives while nothing is in flight is written at once (a synchronous
 * sink acknowledges it before the command returns); batches that arrive while an asynchronous write
 * is in flight queue up and are written together next (group commit). After a failure every queued
 * and later write is rejected with the same `SessionError("storage")`; after `close` new text is
 * refused and flush markers settle with the earlier failure, if any.
 */
export const sessionWriterActor = fromCallback<SessionWriterCommand, { sink: SessionSink }>(
  ({ input: { sink }, receive, sendBack }) => {
    const report = (event: SessionWriterReport) => sendBack(event);
    let queue: PendingWrite[] = [];
    let inFlight = false;
    let writingReported = false;
    let failure: SessionError | undefined;
    let closeRequested = false;
    let closed = false;

    const fail = (cause: unknown, batch: readonly PendingWrite[]) => {
      failure = storageFailure(cause);
      settleAll(batch, failure);
      settleAll(queue, failure);
      queue = [];
      report({ type: "FAILED", error: failure });
    };

    const closeSink = () => {
      closed = true;
      const reportClosed = () => report({ type: "CLOSED" });
      let closing: void | Promise<void>;
      try {
        closing = sink.close();
      } catch {
        closing = undefined; // the handle is gone either way
      }
      if (closing) closing.then(reportClosed, reportClosed);
      else reportClosed();
    };

    /** Writes queued batches until the queue is empty or an asynchronous write is in flight. */
    const drain = () => {
      while (queue.length > 0 && failure === undefined) {
        const batch = queue;
        queue = [];
        const text = joinBatch(batch);
        let pending: void | Promise<void>;
        try {
          pending = text.length > 0 ? sink.write(text) : undefined;
        } catch (error) {
          fail(error, batch);
          break;
        }
        if (!pending) {
          settleAll(batch);
          continue;
        }
        inFlight = true;
        if (!writingReported) {
          writingReported = true;
          report({ type: "WRITING" });
        }
        pending.then(
          () => {
            inFlight = false;
            settleAll(batch);
            drain();
          },
          (error: unknown) => {
            inFlight = false;
            fail(error, batch);
            drain();
          },
        );
        return;
      }
      if (writingReported) {
        writingReported = false;
        if (failure === undefined) report({ type: "WRITTEN" });
      }
      if (closeRequested && !closed) closeSink();
    };

    receive((command) => {
      if (command.type === "close") {
        closeRequested = true;
        if (!inFlight) drain();
        return;
      }
      if (failure !== undefined) return settleAll(command.writes, failure);
      if (closeRequested) {
        // Text after close is refused; a flush marker reports that everything before it was written.
        for (const write of command.writes) {
          if (write.text !== undefined) write.settle(closedError());
          else if (inFlight || queue.length > 0) queue.push(write);
          else write.settle();
        }
        return;
      }
      for (const write of command.writes) queue.push(write);
      if (!inFlight) drain();
    });
  },
);

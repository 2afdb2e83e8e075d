import { assign, setup } from "xstate";
import { closeSinkActor, type SessionSink, writeBatchActor } from "../actors/session-writer.js";
import { SessionError } from "../storage/session-error.js";

/** One queued write; `text: undefined` is a flush marker that settles once everything before it is written. */
export interface PendingWrite {
  text: string | undefined;
  settle(error?: SessionError): void;
}

export interface SessionWriterContext {
  sink: SessionSink;
  /** Writes waiting for the next group commit. Mutated in place: this machine is its only owner. */
  queue: PendingWrite[];
  /** Writes of the batch being written. */
  inFlight: PendingWrite[];
  error: SessionError | undefined;
  closeWaiters: (() => void)[];
}

/** `write` carries every write queued since the last event (in order), so a burst of appends costs one event. */
export type SessionWriterEvent =
  | { type: "write"; writes: PendingWrite[] }
  | { type: "close"; done: () => void };

function joinBatch(batch: readonly PendingWrite[]): string {
  let text = "";
  for (const write of batch) if (write.text !== undefined) text += write.text;
  return text;
}

function settleAll(batch: readonly PendingWrite[], error?: SessionError): void {
  for (const write of batch) write.settle(error);
}

function closedError(): SessionError {
  return new SessionError("storage", "The session is closed; open it again to append.");
}

/**
 * The session actor: owns one session's sink and applies writes strictly in order.
 *
 * `idle` → `writing` on the first write; while a batch is in flight, new writes queue up and are
 * written together as the next batch (group commit). A failed write moves to `failed`: the failing
 * and all queued writes are rejected with `SessionError("storage")`, and so is every later write.
 * `close` drains the queue, closes the sink and ends in `closed`.
 */
export const sessionWriterMachine = setup({
  types: {
    context: {} as SessionWriterContext,
    events: {} as SessionWriterEvent,
    input: {} as { sink: SessionSink },
  },
  actors: { writeBatch: writeBatchActor, closeSink: closeSinkActor },
  actions: {
    enqueue: ({ context, event }) => {
      if (event.type === "write") for (const write of event.writes) context.queue.push(write);
    },
    takeBatch: assign({
      inFlight: ({ context }) => context.queue,
      queue: () => [],
    }),
    settleInFlight: ({ context }) => settleAll(context.inFlight),
    fail: assign({
      error: ({ event }) => {
        const cause = (event as { error?: unknown }).error;
        const reason = cause instanceof Error ? cause.message : String(cause);
        return new SessionError(
          "storage",
          `Writing the session failed (${reason}); the session is read-only now — reopen it to continue.`,
          { cause },
        );
      },
    }),
    rejectPending: ({ context }) => {
      settleAll(context.inFlight, context.error);
      settleAll(context.queue, context.error);
      context.queue.length = 0;
    },
    rejectWrite: ({ context, event }) => {
      if (event.type === "write") settleAll(event.writes, context.error ?? closedError());
    },
    rejectClosed: ({ context, event }) => {
      if (event.type !== "write") return;
      // A flush after close reports only an earlier failure; a write after close is refused.
      for (const write of event.writes)
        write.settle(write.text === undefined ? context.error : closedError());
    },
    addCloseWaiter: ({ context, event }) => {
      if (event.type === "close") context.closeWaiters.push(event.done);
    },
    notifyClosed: ({ context }) => {
      for (const done of context.closeWaiters.splice(0)) done();
    },
  },
  guards: {
    hasQueued: ({ context }) => context.queue.length > 0,
    closeRequested: ({ context }) => context.closeWaiters.length > 0,
  },
}).createMachine({
  id: "sessionWriter",
  context: ({ input }) => ({ sink: input.sink, queue: [], inFlight: [], error: undefined, closeWaiters: [] }),
  initial: "idle",
  states: {
    idle: {
      on: {
        write: { target: "writing", actions: ["enqueue", "takeBatch"] },
        close: { target: "closing", actions: "addCloseWaiter" },
      },
    },
    writing: {
      invoke: {
        src: "writeBatch",
        input: ({ context }) => ({ sink: context.sink, text: joinBatch(context.inFlight) }),
        onDone: [
          { guard: "hasQueued", target: "writing", reenter: true, actions: ["settleInFlight", "takeBatch"] },
          { guard: "closeRequested", target: "closing", actions: "settleInFlight" },
          { target: "idle", actions: "settleInFlight" },
        ],
        onError: { target: "failed", actions: ["fail", "rejectPending"] },
      },
      on: {
        write: { actions: "enqueue" },
        close: { actions: "addCloseWaiter" },
      },
    },
    failed: {
      on: {
        write: { actions: "rejectWrite" },
        close: { target: "closing", actions: "addCloseWaiter" },
      },
    },
    closing: {
      invoke: {
        src: "closeSink",
        input: ({ context }) => ({ sink: context.sink }),
        onDone: { target: "closed", actions: "notifyClosed" },
        onError: { target: "closed", actions: "notifyClosed" },
      },
      on: {
        write: { actions: "rejectClosed" },
        close: { actions: "addCloseWaiter" },
      },
    },
    closed: {
      on: {
        write: { actions: "rejectClosed" },
        close: { actions: ({ event }) => event.done() },
      },
    },
  },
});

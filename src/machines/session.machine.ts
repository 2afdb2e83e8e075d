import { assign, sendTo, setup } from "xstate";
import {
  type PendingWrite,
  type SessionSink,
  type SessionWriterReport,
  sessionWriterActor,
} from "../actors/session-writer.js";
import type { SessionError } from "../types/session-error.js";

export type { PendingWrite } from "../actors/session-writer.js";

export interface SessionWriterContext {
  sink: SessionSink;
  error: SessionError | undefined;
  closeWaiters: (() => void)[];
}

/**
 * `write` carries every write queued since the last event (in order); it is handed to the `writer`
 * child. Promise-based handles may send `write` straight to that child (`snapshot.children.writer`):
 * the result is the same, without a machine step per write.
 */
export type SessionWriterEvent =
  | { type: "write"; writes: PendingWrite[] }
  | { type: "close"; done: () => void }
  | SessionWriterReport;

/**
 * The session actor: owns one session's lifecycle and its single writer (`writer`, a long-lived child
 * holding the sink and the queue, see {@link sessionWriterActor}).
 *
 * `idle` while nothing is in flight — a synchronous sink writes and acknowledges inside `idle`;
 * `writing` while an asynchronous group commit (e.g. `fdatasync`) is in flight; `failed` after a write
 * failed (the writer rejected the failing and all queued writes with `SessionError("storage")`, and
 * rejects every later one); `closing` while the writer drains its queue and closes the sink; `closed`.
 */
export const sessionWriterMachine = setup({
  types: {
    context: {} as SessionWriterContext,
    events: {} as SessionWriterEvent,
    input: {} as { sink: SessionSink },
  },
  actors: { writer: sessionWriterActor },
  actions: {
    forwardToWriter: sendTo("writer", ({ event }) => event as { type: "write"; writes: PendingWrite[] }),
    closeWriter: sendTo("writer", { type: "close" }),
    recordError: assign({
      error: ({ context, event }) => (event.type === "FAILED" ? event.error : context.error),
    }),
    addCloseWaiter: ({ context, event }) => {
      if (event.type === "close") context.closeWaiters.push(event.done);
    },
    notifyClosed: ({ context }) => {
      for (const done of context.closeWaiters.splice(0)) done();
    },
  },
}).createMachine({
  id: "sessionWriter",
  context: ({ input }) => ({ sink: input.sink, error: undefined, closeWaiters: [] }),
  invoke: { id: "writer", src: "writer", input: ({ context }) => ({ sink: context.sink }) },
  on: { write: { actions: "forwardToWriter" } },
  initial: "idle",
  states: {
    idle: {
      on: {
        WRITING: "writing",
        FAILED: { target: "failed", actions: "recordError" },
        close: { target: "closing", actions: "addCloseWaiter" },
      },
    },
    writing: {
      on: {
        WRITTEN: "idle",
        FAILED: { target: "failed", actions: "recordError" },
        close: { target: "closing", actions: "addCloseWaiter" },
      },
    },
    failed: {
      on: { close: { target: "closing", actions: "addCloseWaiter" } },
    },
    closing: {
      entry: "closeWriter",
      on: {
        FAILED: { actions: "recordError" },
        CLOSED: { target: "closed", actions: "notifyClosed" },
        close: { actions: "addCloseWaiter" },
      },
    },
    closed: {
      on: { close: { actions: ({ event }) => event.done() } },
    },
  },
});

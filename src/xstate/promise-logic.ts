import type { AnyActorRef, PromiseActorLogic, PromiseSnapshot } from "xstate";

// XState's own `fromPromise` gives every actor an AbortController, whose signal fires when the actor is
// stopped before its promise settled. Allocating one (and an abort listener on it) is a visible part of
// an agent turn, and the agent's step actors that need no signal of their own — the stream, which
// follows the run's signal — pay for it on every model call. This logic behaves as `fromPromise` does
// (the same snapshots, events and `onDone` / `onError` outputs) and calls `stopped` instead.

const RESOLVE = "xstate.promise.resolve";
const REJECT = "xstate.promise.reject";
const STOP = "xstate.stop";

/**
 * Actor logic like XState's `fromPromise(run)`, without an AbortController per actor: `stopped(self)`
 * is called when the actor is stopped while its promise is pending (where `fromPromise` aborts the
 * signal it gave `run`).
 *
 * Contract: synchronous; never throws itself. As with `fromPromise`, a rejection of `run`'s promise
 * is the actor's error (`onError`) and a synchronous throw of `run` fails the actor when it starts;
 * `stopped` must not throw.
 *
 * ```ts
 * const stream = fromPromiseUntilStopped<Reply, Request>(
 *   ({ input, self }) => streamOnce(input, runtimeOf(self).controller.signal),
 *   (self) => runtimeOf(self).controller.abort(),
 * );
 * ```
 */
export function fromPromiseUntilStopped<TOutput, TInput>(
  run: (args: { input: TInput; self: AnyActorRef }) => PromiseLike<TOutput>,
  stopped: (self: AnyActorRef) => void,
): PromiseActorLogic<TOutput, TInput> {
  const pending = new WeakSet<AnyActorRef>();
  const settle = (self: AnyActorRef, type: typeof RESOLVE | typeof REJECT, data: unknown) => {
    if (self.getSnapshot().status !== "active") return;
    pending.delete(self);
    self.send({ type, data });
  };
  return {
    config: run,
    transition: (state: PromiseSnapshot<TOutput, TInput>, event, scope) => {
      if (state.status !== "active") return state;
      switch (event.type) {
        case RESOLVE:
          return { ...state, status: "done", output: event.data as TOutput, input: undefined };
        case REJECT:
          return { ...state, status: "error", error: event.data, input: undefined };
        case STOP:
          if (pending.delete(scope.self)) stopped(scope.self);
          return { ...state, status: "stopped", input: undefined };
        default:
          return state;
      }
    },
    start: (state, { self }) => {
      if (state.status !== "active") return;
      pending.add(self);
      // A synchronous throw fails the actor at once, as with `fromPromise`.
      Promise.resolve(run({ input: state.input as TInput, self })).then(
        (output) => settle(self, RESOLVE, output),
        (error: unknown) => settle(self, REJECT, error),
      );
    },
    getInitialSnapshot: (_, input) => ({ status: "active", output: undefined, error: undefined, input }),
    getPersistedSnapshot: (snapshot) => snapshot,
    restoreSnapshot: (snapshot) => snapshot as PromiseSnapshot<TOutput, TInput>,
  };
}

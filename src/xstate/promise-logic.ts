import type { AnyActorRef, PromiseActorLogic, PromiseSnapshot } from "xstate";

// XState's own `fromPromise` gives every actor an AbortController, whose signal fires when the actor is
// stopped before its promise settled. In Node an AbortController with its signal costs several
// microseconds, a visible part of an agent turn: the stream never needs one of its own (it follows the
// run's signal), and most tools never look at theirs. This logic behaves as `fromPromise` does (the
// same snapshots, events and `onDone` / `onError` outputs) and makes the signal only when asked for.

const RESOLVE = "xstate.promise.resolve";
const REJECT = "xstate.promise.reject";
const STOP = "xstate.stop";

/** What the promise creator gets. */
export interface PromiseStart<TInput> {
  input: TInput;
  self: AnyActorRef;
  /**
   * The signal that fires when the actor is stopped while its promise is pending (`fromPromise`'s
   * `signal`), made at the first call: aborted already if the actor was stopped before that.
   */
  stopSignal: () => AbortSignal;
}

/** A pending actor's stop signal, once asked for, and whether it was stopped. */
interface Pending {
  controller: AbortController | undefined;
  stopped: boolean;
}

/**
 * Actor logic like XState's `fromPromise(run)`, whose stop signal is made only when `run` asks for it
 * (`stopSignal()`); `stopped(self)` is also called when the actor is stopped while its promise is
 * pending.
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
  run: (start: PromiseStart<TInput>) => PromiseLike<TOutput>,
  stopped?: (self: AnyActorRef) => void,
): PromiseActorLogic<TOutput, TInput> {
  const pending = new WeakMap<AnyActorRef, Pending>();
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
        case STOP: {
          const entry = pending.get(scope.self);
          if (entry) {
            pending.delete(scope.self);
            entry.stopped = true;
            entry.controller?.abort();
            stopped?.(scope.self);
          }
          return { ...state, status: "stopped", input: undefined };
        }
        default:
          return state;
      }
    },
    start: (state, { self }) => {
      if (state.status !== "active") return;
      const entry: Pending = { controller: undefined, stopped: false };
      pending.set(self, entry);
      const stopSignal = () => {
        if (!entry.controller) {
          entry.controller = new AbortController();
          if (entry.stopped) entry.controller.abort();
        }
        return entry.controller.signal;
      };
      // A synchronous throw fails the actor at once, as with `fromPromise`.
      Promise.resolve(run({ input: state.input as TInput, self, stopSignal })).then(
        (output) => settle(self, RESOLVE, output),
        (error: unknown) => settle(self, REJECT, error),
      );
    },
    getInitialSnapshot: (_, input) => ({ status: "active", output: undefined, error: undefined, input }),
    getPersistedSnapshot: (snapshot) => snapshot,
    restoreSnapshot: (snapshot) => snapshot as PromiseSnapshot<TOutput, TInput>,
  };
}

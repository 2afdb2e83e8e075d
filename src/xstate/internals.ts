import type { ActorRefLike, AnyActorRef } from "xstate";

// The only module that touches XState's private API (xstate is pinned exactly; see package.json).
// Two things have no public equivalent in XState 5.33:
// - an actor's parent (`_parent`): a child actor finds the runtime of the agent it belongs to by
//   walking up from itself, and the inspector names actors by their place in the tree;
// - an actor's emitter (`_actorScope.emit`, the function `emit` actions use): stream deltas and tool
//   progress reach `actor.on(...)` listeners without a macrostep per token;
// - an actor's deferral (`_actorScope.defer`, where `emit` actions put their delivery): a step's events
//   are delivered once its macrostep ends with one deferred function, not one `emit` action each.
// test/xstate/internals.test.ts fails loudly if an XState upgrade moves either of them.

interface WithParent {
  _parent?: AnyActorRef;
}

interface WithEmitter<TEmitted> {
  _actorScope?: { emit?: (event: TEmitted) => void; defer?: (effect: () => void) => void };
}

/**
 * The actor that spawned or invoked `ref`, or `undefined` for a root actor.
 *
 * Contract: never throws; synchronous.
 */
export function parentOf(ref: ActorRefLike): AnyActorRef | undefined {
  return (ref as unknown as WithParent)._parent;
}

/**
 * The function that delivers an emitted event to `actor.on(type, …)` listeners of `ref`, synchronously
 * and outside any transition (what an `emit` action does once its macrostep ends).
 *
 * Contract: throws `Error` when this XState build has no such emitter (an upgrade moved it).
 */
export function emitterOf<TEmitted>(ref: AnyActorRef): (event: TEmitted) => void {
  const scope = (ref as unknown as WithEmitter<TEmitted>)._actorScope;
  const emit = scope?.emit;
  if (typeof emit !== "function")
    throw new Error(
      "agentchart: this XState version has no actor emitter (_actorScope.emit); agentchart pins xstate 5.33.3",
    );
  return (event) => emit.call(scope, event);
}

/**
 * Delivers `events` to the `actor.on(type, …)` listeners of `ref` once the current macrostep ends, in
 * order and at the place an `emit` action for each of them would: to be called from a custom action
 * of `ref` (the events then follow the deliveries and sends that earlier actions deferred).
 *
 * Contract: throws `Error` when this XState build has no such emitter or deferral (an upgrade moved
 * them); synchronous (the delivery happens later, synchronously, after the snapshot is updated).
 *
 * ```ts
 * enqueue(({ self }) => emitAfterMacrostep(self, [{ type: "turn_start" }]));
 * ```
 */
export function emitAfterMacrostep<TEmitted>(ref: AnyActorRef, events: readonly TEmitted[]): void {
  const scope = (ref as unknown as WithEmitter<TEmitted>)._actorScope;
  const defer = scope?.defer;
  if (typeof defer !== "function" || typeof scope?.emit !== "function")
    throw new Error(
      "agentchart: this XState version has no actor deferral (_actorScope.defer); agentchart pins xstate 5.33.3",
    );
  defer.call(scope, () => {
    for (const event of events) scope.emit!.call(scope, event);
  });
}

import { type AnyStateMachine, StateMachine } from "xstate";

/** What `machine.provide(…)` takes (actions, actors, guards, delays by name). */
type Implementations = Partial<AnyStateMachine["implementations"]>;

/**
 * `machine.provide(implementations)` without building the machine's state nodes again: a machine
 * whose prototype is `machine` (the same `root`, `config`, `id`, methods, its bound methods bound to
 * it) and whose own `implementations` are `machine`'s with these over them. XState resolves every action, guard and
 * actor of a snapshot through the machine that made it (`snapshot.machine.implementations`), so the
 * result runs exactly as `.provide()`'s would; `.provide()` on it works as on any machine. XState's
 * own `.provide()` rebuilds every state node and transition, about half a millisecond for the agent
 * machine — as much as a whole agent turn — which an agent made per request cannot afford.
 *
 * Contract: synchronous; never throws; `machine` is not changed. Checked by
 * test/xstate/provide-implementations.test.ts (a snapshot's machine is the provided one).
 *
 * ```ts
 * const provided = provideImplementations(agentMachine, { actors: { streamReply } });
 * ```
 */
export function provideImplementations<TMachine extends AnyStateMachine>(
  machine: TMachine,
  implementations: Implementations,
): TMachine {
  const own = machine.implementations;
  const provided = Object.create(machine) as TMachine;
  // A machine binds some of its methods to itself (`transition`, `getInitialSnapshot`…, so that they
  // can be passed around): bind them to the provided machine, whose snapshots must name it.
  const methods = StateMachine.prototype as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(machine))
    if (typeof value === "function" && typeof methods[name] === "function")
      Object.defineProperty(provided, name, {
        value: (methods[name] as (...args: unknown[]) => unknown).bind(provided),
        writable: true,
        configurable: true,
      });
  Object.defineProperty(provided, "implementations", {
    value: {
      actions: { ...own.actions, ...implementations.actions },
      actors: { ...own.actors, ...implementations.actors },
      guards: { ...own.guards, ...implementations.guards },
      delays: { ...own.delays, ...implementations.delays },
    },
    enumerable: true,
  });
  return provided;
}

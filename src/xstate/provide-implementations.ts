import { type AnyStateMachine, StateMachine } from "xstate";

/** What `machine.provide(…)` takes (actions, actors, guards, delays by name). */
type Implementations = Partial<AnyStateMachine["implementations"]>;

/**
 * `machine.provide(implementations)` without building the machine's state nodes again: a machine
 * whose prototype is `machine` (the same `root`, `config`, `id`, methods, its bound methods bound to
 * it) and whose own `implementations` inherit `machine`'s, with these over them. XState resolves every action, guard and
 * actor of a snapshot through the machine that made it (`snapshot.machine.implementations`), so the
 * result runs exactly as `.provide()`'s would; `.provide()` on it works as on any machine. XState's
 * own `.provide()` rebuilds every state node and transition, about half a millisecond for the agent
 * machine — as much as a whole agent turn — which an agent made per request cannot afford.
 *
 * Contract: synchronous; never throws; `machine` is not changed. Checked by
 * test/xstate/provide-implementations.test.ts (a snapshot's machine is the provided one).
 *
 * ```ts
 * import { fromCallback } from "xstate";
 * import { agentMachine } from "agentchart/machines";
 * const silent = fromCallback(() => {}); // a model that never answers
 * const provided = provideImplementations(agentMachine, { actors: { streamReply: silent } });
 * ```
 */
export function provideImplementations<TMachine extends AnyStateMachine>(
  machine: TMachine,
  implementations: Implementations,
): TMachine {
  const own = plainImplementationsOf(machine);
  // Each kind inherits `machine`'s (no copy of them per provided machine); `.provide()` below keeps
  // the chain, where XState's own would copy only the own entries.
  const over = <T extends object>(base: T, given: object | undefined): T =>
    Object.assign(Object.create(base) as T, given);
  const descriptors: PropertyDescriptorMap = {
    implementations: {
      value: {
        actions: over(own.actions, implementations.actions),
        actors: over(own.actors, implementations.actors),
        guards: over(own.guards, implementations.guards),
        delays: over(own.delays, implementations.delays),
      },
      enumerable: true,
    },
    provide: {
      value: (more: Implementations) => provideImplementations(provided, more),
      writable: true,
      configurable: true,
    },
  };
  const provided: TMachine = Object.create(machine, descriptors);
  provideds.add(provided);
  // A machine binds some of its methods to itself (`transition`, `getInitialSnapshot`…, so that they
  // can be passed around): bind them to the provided machine, whose snapshots must name it.
  for (const name of boundMethodsOf(machine))
    Object.defineProperty(provided, name, {
      value: (METHODS[name] as (...args: unknown[]) => unknown).bind(provided),
      writable: true,
      configurable: true,
    });
  return provided;
}

// The machines made here: their implementations are chains already, never copied.
const provideds = new WeakSet<object>();

const METHODS = StateMachine.prototype as unknown as Record<string, unknown>;
const boundMethods = new WeakMap<object, string[]>();

/** The names of the methods `machine` holds as own properties (bound by its constructor). */
function boundMethodsOf(machine: AnyStateMachine): string[] {
  let names = boundMethods.get(machine);
  if (!names) {
    names = Object.entries(machine)
      .filter(([name, value]) => typeof value === "function" && typeof METHODS[name] === "function")
      .map(([name]) => name);
    boundMethods.set(machine, names);
  }
  return names;
}

const plainImplementations = new WeakMap<object, Implementations>();

/**
 * `machine`'s implementations as plain objects, copied once per machine (its `guards` may be a module
 * namespace, slow to read through), or the ones it has if it is a provided machine already.
 */
function plainImplementationsOf(machine: AnyStateMachine): Required<Implementations> {
  let plain = plainImplementations.get(machine);
  if (!plain) {
    if (provideds.has(machine)) return machine.implementations as Required<Implementations>;
    const { actions, actors, guards, delays } = machine.implementations;
    plain = { actions: { ...actions }, actors: { ...actors }, guards: { ...guards }, delays: { ...delays } };
    plainImplementations.set(machine, plain);
  }
  return plain as Required<Implementations>;
}

import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition, InspectionEvent } from "xstate";

/**
 * A readable, unique name for a transition of a machine definition:
 * `agent.running.streaming: ABORT → agent.idle`, with its guard's name in brackets.
 *
 * Contract: pure; never throws.
 *
 * @example
 * ```ts
 * import { agentMachine } from "agentchart/machines";
 * console.log(machineTransitions(agentMachine).map(transitionLabel).slice(0, 3));
 * ```
 */
export function transitionLabel(transition: AnyTransitionDefinition): string {
  const guard = transition.guard;
  const guardName = typeof guard === "string" ? guard : typeof guard === "object" && guard ? guard.type : "";
  const targets = transition.target?.map((node: AnyStateNode) => node.id).join(",") ?? "(stays)";
  const event = transition.eventType === "" ? "always" : transition.eventType;
  return `${transition.source.id}: ${event}${guardName ? ` [${guardName}]` : ""} → ${targets}`;
}

/**
 * Every transition of a machine: `on`, invoke `onDone`/`onError` and `always`, in every state node.
 *
 * Contract: pure; never throws.
 *
 * @example
 * ```ts
 * import { agentMachine } from "agentchart/machines";
 * console.log(machineTransitions(agentMachine).length);
 * ```
 */
export function machineTransitions(machine: AnyStateMachine): AnyTransitionDefinition[] {
  const found: AnyTransitionDefinition[] = [];
  for (const node of stateNodesOf(machine))
    found.push(...[...node.transitions.values()].flat(), ...(node.always ?? []));
  return found;
}

/** Every state node of a machine, the root included, in document order. */
function stateNodesOf(machine: AnyStateMachine): AnyStateNode[] {
  const nodes: AnyStateNode[] = [];
  const walk = (node: AnyStateNode) => {
    nodes.push(node);
    for (const child of Object.values(node.states)) walk(child as AnyStateNode);
  };
  walk(machine.root);
  return nodes;
}

/** Adds the ids of the state nodes a snapshot's `value` is in (`agent`, `agent.running`, …). */
function addStates(reached: Set<string>, id: string, value: unknown): void {
  reached.add(id);
  if (typeof value === "string") reached.add(`${id}.${value}`);
  else if (typeof value === "object" && value !== null)
    for (const [key, child] of Object.entries(value)) addStates(reached, `${id}.${key}`, child);
}

/** What a set of runs reached of one machine, by state node id and transition label. */
export interface MachineCoverage {
  states: { total: number; reached: string[]; missed: string[] };
  transitions: { total: number; taken: string[]; missed: string[] };
}

/** Records what real actors of some machines reached; `report(name)` splits it into reached and missed. */
export interface TransitionCoverage {
  /** An `inspect` observer: give it to `createActor(…, { inspect })` (or call it from yours). */
  record(event: InspectionEvent): void;
  /** Coverage of the machine registered under `name` (empty for an unknown name). */
  report(name: string): MachineCoverage;
}

/**
 * Records which states and transitions of the given machines real actors reached, from the
 * inspection events (`@xstate.snapshot`, `@xstate.microstep`): by state node id (from the snapshots'
 * values, for machines with default state ids) and transition label, so the machines
 * `createAgentMachine` provides (each with its own state nodes) count for the definitions given here.
 *
 * Contract: synchronous; `record` never throws and ignores actors of other machines.
 *
 * @example
 * ```ts
 * import { createActor } from "xstate";
 * import { agentMachine, createAgentMachine } from "agentchart/machines";
 * import { scriptedModel } from "agentchart/testing";
 * const coverage = createTransitionCoverage({ agent: agentMachine });
 * const machine = createAgentMachine({ streamFn: scriptedModel([{ text: "Hi" }]) });
 * const model = { id: "m", api: "scripted", provider: "scripted", contextWindow: 1000, maxTokens: 100 };
 * createActor(machine, { input: { model }, inspect: coverage.record }).start();
 * console.log(coverage.report("agent").transitions.missed.length);
 * ```
 */
export function createTransitionCoverage(machines: Record<string, AnyStateMachine>): TransitionCoverage {
  const taken = new Set<string>();
  const reached = new Set<string>();
  return {
    record(event) {
      if (event.type !== "@xstate.microstep" && event.type !== "@xstate.snapshot") return;
      const snapshot = event.snapshot as { machine?: { id?: string }; value?: unknown };
      if (typeof snapshot.machine?.id === "string") addStates(reached, snapshot.machine.id, snapshot.value);
      if (event.type === "@xstate.microstep")
        for (const transition of event._transitions) taken.add(transitionLabel(transition));
    },
    report(name) {
      const machine = machines[name];
      if (!machine)
        return {
          states: { total: 0, reached: [], missed: [] },
          transitions: { total: 0, taken: [], missed: [] },
        };
      const states = stateNodesOf(machine).map((node) => node.id);
      const labels = machineTransitions(machine).map(transitionLabel);
      const isReached = (id: string) => reached.has(id);
      return {
        states: {
          total: states.length,
          reached: states.filter(isReached),
          missed: states.filter((id) => !isReached(id)),
        },
        transitions: {
          total: labels.length,
          taken: labels.filter((label) => taken.has(label)),
          missed: labels.filter((label) => !taken.has(label)),
        },
      };
    },
  };
}

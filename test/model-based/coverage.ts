import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition, InspectionEvent } from "xstate";

/** A readable, unique name for a transition of a machine definition. */
export function transitionLabel(transition: AnyTransitionDefinition): string {
  const guard = transition.guard;
  const guardName = typeof guard === "string" ? guard : typeof guard === "object" && guard ? guard.type : "";
  const targets = transition.target?.map((node: AnyStateNode) => node.id).join(",") ?? "(stays)";
  const event = transition.eventType === "" ? "always" : transition.eventType;
  return `${transition.source.id}: ${event}${guardName ? ` [${guardName}]` : ""} → ${targets}`;
}

/** Every transition of a machine: `on`, invoke `onDone`/`onError` and `always`, in every state node. */
export function machineTransitions(machine: AnyStateMachine): AnyTransitionDefinition[] {
  const found: AnyTransitionDefinition[] = [];
  const walk = (node: AnyStateNode) => {
    found.push(...[...node.transitions.values()].flat(), ...(node.always ?? []));
    for (const child of Object.values(node.states)) walk(child as AnyStateNode);
  };
  walk(machine.root);
  return found;
}

/**
 * Records which transitions of the given machines the real actors took (from `@xstate.microstep`), by
 * label: the actors run the machines `createAgentMachine` provides, each with its own state nodes.
 */
export function createTransitionCoverage(machines: Record<string, AnyStateMachine>) {
  const all = new Map(Object.entries(machines).map(([name, machine]) => [name, machineTransitions(machine)]));
  const taken = new Set<string>();
  return {
    record(event: InspectionEvent): void {
      if (event.type === "@xstate.microstep")
        for (const transition of event._transitions) taken.add(transitionLabel(transition));
    },
    /** Labels of a machine's transitions, split into taken and not taken. */
    report(name: string) {
      const transitions = all.get(name) ?? [];
      return {
        total: transitions.length,
        taken: transitions.map(transitionLabel).filter((label) => taken.has(label)),
        missed: transitions.map(transitionLabel).filter((label) => !taken.has(label)),
      };
    },
  };
}

import type { AnyStateMachine, AnyStateNode } from "xstate";
import type { StateDefinitionRecord, TransitionDefinitionRecord } from "./inspection-record.js";

/**
 * Projects a machine's state tree to JSON: ids, keys, types, initial states, invoked actor ids and
 * every transition reduced to its event type, guard flag and target ids. Actions, guards and
 * context are not included. Never throws for a well-formed XState v5 machine.
 */
export function projectMachineDefinition(machine: AnyStateMachine): StateDefinitionRecord {
  return projectStateNode(machine.root);
}

function projectStateNode(node: AnyStateNode): StateDefinitionRecord {
  const record: StateDefinitionRecord = {
    id: node.id,
    key: node.key,
    type: node.type,
    states: Object.values(node.states as Record<string, AnyStateNode>).map(projectStateNode),
    transitions: projectTransitions(node),
    invokes: node.invoke.map((invoke) => invoke.id),
  };
  const initialKey = node.type === "compound" ? node.initial.target[0]?.key : undefined;
  if (initialKey !== undefined) record.initial = initialKey;
  return record;
}

interface TransitionLike {
  eventType: string;
  target?: ReadonlyArray<{ id: string }> | undefined;
  guard?: unknown;
}

function projectTransitions(node: AnyStateNode): TransitionDefinitionRecord[] {
  const transitions: TransitionDefinitionRecord[] = [];
  const add = (definition: TransitionLike, event: string) => {
    transitions.push({
      event,
      targets: (definition.target ?? []).map((target) => target.id),
      guarded: definition.guard !== undefined,
    });
  };
  for (const [eventType, definitions] of node.transitions as Map<string, TransitionLike[]>) {
    for (const definition of definitions) add(definition, eventType);
  }
  for (const definition of (node.always ?? []) as TransitionLike[]) add(definition, "");
  return transitions;
}

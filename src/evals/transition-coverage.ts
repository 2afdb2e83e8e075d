import type { AnyStateMachine } from "xstate";
import type { StateDefinitionRecord } from "../inspector/inspection-record.js";
import { projectMachineDefinition } from "../inspector/machine-definition.js";
import { agentMachine } from "../machines/agent/agent.machine.js";
import type { TransitionCoverage } from "./eval-result.js";
import { transitionKey } from "./state-path.js";

/**
 * The keys (see `transitionKey`) of every transition of a machine's definition, in definition order
 * (default: the agent machine).
 *
 * Contract: pure; never throws for a well-formed XState v5 machine.
 *
 * @example
 * ```ts
 * definedTransitions().length; // every transition the agent machine defines
 * ```
 */
export function definedTransitions(machine: AnyStateMachine = agentMachine): string[] {
  const keys: string[] = [];
  const visit = (state: StateDefinitionRecord) => {
    for (const transition of state.transitions)
      keys.push(transitionKey(state.id, transition.event, transition.targets));
    for (const child of state.states) visit(child);
  };
  visit(projectMachineDefinition(machine));
  return [...new Set(keys)];
}

/**
 * Which transitions of the agent machine the runs took, and which none did: the coverage report of a
 * dataset.
 *
 * Contract: pure; keys taken that the definition lacks (another machine's) are ignored.
 *
 * @example
 * ```ts
 * const { missed } = transitionCoverage(runs.flatMap((run) => run.transitions));
 * ```
 */
export function transitionCoverage(
  taken: Iterable<string>,
  machine: AnyStateMachine = agentMachine,
): TransitionCoverage {
  const defined = definedTransitions(machine);
  const seen = new Set(taken);
  const missed = defined.filter((key) => !seen.has(key));
  return { total: defined.length, exercised: defined.length - missed.length, missed };
}

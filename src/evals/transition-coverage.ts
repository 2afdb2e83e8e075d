import type { AnyStateMachine } from "xstate";
import { agentMachine } from "../machines/agent/agent.machine.js";
import { machineTransitions, transitionLabel } from "../testing/transition-coverage.js";
import type { DatasetCoverage } from "./eval-result.js";

/**
 * Which transitions of the agent machine the runs took, and which none did: the coverage report of a
 * dataset.
 *
 * Contract: pure; keys taken that the definition lacks (another machine's) are ignored.
 *
 * @example
 * ```ts
 * import { runEvalCase } from "agentchart/evals";
 * const runs = [await runEvalCase(() => ({ model, streamFn }), { id: "hi", input: "Say hi" })];
 * const { missed } = transitionCoverage(runs.flatMap((run) => run.transitions));
 * ```
 */
export function transitionCoverage(
  taken: Iterable<string>,
  machine: AnyStateMachine = agentMachine,
): DatasetCoverage {
  const defined = [...new Set(machineTransitions(machine).map(transitionLabel))];
  const seen = new Set(taken);
  const missed = defined.filter((key) => !seen.has(key));
  return { total: defined.length, exercised: defined.length - missed.length, missed };
}

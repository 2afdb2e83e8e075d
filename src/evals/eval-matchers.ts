import type { EvalCase, TrajectoryStep } from "./eval-case.js";
import type { EvalRun } from "./eval-run.js";
import { applyScorer, type Scorer } from "./scorer.js";
import { type TrajectoryMode, trajectoryProblem } from "./scorers/trajectory-match.js";

/** What a matcher returns to `expect` (vitest's and Jest's shape). */
export interface EvalMatcherResult {
  pass: boolean;
  message: () => string;
}

/** Options of `toMatchTrajectory`. */
export interface TrajectoryMatcherOptions {
  mode?: TrajectoryMode;
  arguments?: boolean;
}

/**
 * The matchers as vitest (or Jest) declares them, for a type augmentation:
 * `declare module "vitest" { interface Assertion<T> extends EvalAssertions<T> {} }`.
 */
export interface EvalAssertions<TResult = unknown> {
  toMatchTrajectory(expected: TrajectoryStep[], options?: TrajectoryMatcherOptions): TResult;
  toPassScorer(scorer: Scorer, evalCase?: EvalCase): Promise<TResult>;
}

function assertRun(received: unknown, matcher: string): EvalRun {
  const run = received as Partial<EvalRun> | null;
  if (
    typeof run !== "object" ||
    run === null ||
    !Array.isArray(run.toolCalls) ||
    typeof run.text !== "string"
  ) {
    throw new TypeError(`${matcher} expects an EvalRun (from runEvalCase), not ${typeof received}`);
  }
  return run as EvalRun;
}

/**
 * Matchers for `expect.extend(evalMatchers)` in vitest (or Jest): `expect(run).toMatchTrajectory(steps,
 * { mode })` and `await expect(run).toPassScorer(scorer, evalCase?)` (the case gives scorers their expectations), on an {@link EvalRun} from `runEvalCase`.
 * Plain functions: `agentchart/evals` does not import vitest.
 *
 * Contract: the matchers throw `TypeError` for anything but an EvalRun; `toPassScorer` resolves (a
 * scorer that throws fails the assertion with the error as its message); `.not` inverts both.
 *
 * @example
 * ```ts
 * import { expect } from "vitest";
 * import { runEvalCase } from "agentchart/evals";
 * expect.extend(evalMatchers);
 * const run = await runEvalCase(() => ({ model, streamFn, tools }), { id: "ls", input: "Read the README" });
 * expect(run).toMatchTrajectory([{ name: "read" }], { mode: "superset" });
 * ```
 */
export const evalMatchers = {
  toMatchTrajectory(
    received: unknown,
    expected: TrajectoryStep[],
    options: TrajectoryMatcherOptions = {},
  ): EvalMatcherResult {
    const run = assertRun(received, "toMatchTrajectory");
    const mode = options.mode ?? "strict";
    const problem = trajectoryProblem(run.toolCalls, expected, mode, options.arguments === true);
    const calls = run.toolCalls.map((call) => call.name).join(", ");
    return {
      pass: problem === undefined,
      message: () =>
        problem === undefined
          ? `expected the tool calls [${calls}] not to match the trajectory (${mode})`
          : `expected the tool calls to match the trajectory (${mode}): ${problem}`,
    };
  },
  async toPassScorer(received: unknown, scorer: Scorer, evalCase?: EvalCase): Promise<EvalMatcherResult> {
    const run = assertRun(received, "toPassScorer");
    const verdict = await applyScorer(scorer, run, evalCase ?? { id: run.caseId, input: "" });
    const passed = verdict?.passed === true;
    return {
      pass: passed,
      message: () =>
        verdict === null
          ? `the scorer ${scorer.name} does not apply to this run (its case has no expectation for it)`
          : passed
            ? `expected the run not to pass ${scorer.name} (score ${verdict.score}: ${verdict.reason})`
            : `expected the run to pass ${scorer.name}: score ${verdict.score}, ${verdict.reason}`,
    };
  },
};

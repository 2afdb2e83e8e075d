import { isDeepStrictEqual } from "node:util";
import type { TrajectoryStep } from "../eval-case.js";
import { EvalInputError } from "../eval-input-error.js";
import { createScorer, type Scorer } from "../scorer.js";

/**
 * How a run's tool calls must match the expected ones (agentevals' names and meanings):
 * - `strict`: the same calls in the same order;
 * - `unordered`: the same calls, in any order;
 * - `subset`: every call of the run is expected (the run may make fewer);
 * - `superset`: every expected call is made (the run may make more).
 */
export type TrajectoryMode = "strict" | "unordered" | "subset" | "superset";

/** Options of {@link trajectoryMatch}. */
export interface TrajectoryMatchOptions {
  mode?: TrajectoryMode;
  /** Compare arguments too (default false: tool names only). An expected step without `arguments` matches any. */
  arguments?: boolean;
  /** The expected calls (default: the case's `expectedTrajectory`; cases without one are not scored). */
  expected?: TrajectoryStep[];
}

const MODES: readonly TrajectoryMode[] = ["strict", "unordered", "subset", "superset"];

/**
 * Scores whether a run's tool calls match the expected trajectory: 1 when they do in the chosen mode
 * (default `strict`), else 0 with the first difference as the reason.
 *
 * Contract: returns a {@link Scorer} named `trajectory:<mode>`; throws {@link EvalInputError}
 * `invalid_option` for an unknown mode; the scorer does not apply (null) to a case without an expected
 * trajectory when `expected` is not given.
 *
 * @example
 * ```ts
 * const scorer = trajectoryMatch({ mode: "superset", expected: [{ name: "read" }] });
 * ```
 */
export function trajectoryMatch(options: TrajectoryMatchOptions = {}): Scorer {
  const mode = options.mode ?? "strict";
  if (!MODES.includes(mode)) {
    throw new EvalInputError(
      "invalid_option",
      `trajectoryMatch: mode must be one of ${MODES.join(", ")}, not "${mode}"`,
    );
  }
  const withArguments = options.arguments === true;
  return createScorer({
    name: `trajectory:${mode}`,
    score(run, evalCase) {
      const expected = options.expected ?? evalCase.expectedTrajectory;
      if (expected === undefined) return null;
      const problem = trajectoryProblem(run.toolCalls, expected, mode, withArguments);
      return problem === undefined
        ? { score: 1, reason: `the tool calls match (${mode})` }
        : { score: 0, reason: problem };
    },
  });
}

/**
 * Why `actual` does not match `expected` in `mode`, or undefined when it does.
 *
 * Contract: pure; never throws.
 *
 * @example
 * ```ts
 * trajectoryProblem([{ name: "ls" }], [{ name: "read" }], "strict", false); // "call 1 is ls, expected read"
 * ```
 */
export function trajectoryProblem(
  actual: readonly TrajectoryStep[],
  expected: readonly TrajectoryStep[],
  mode: TrajectoryMode,
  withArguments: boolean,
): string | undefined {
  const matches = (call: TrajectoryStep, want: TrajectoryStep) =>
    call.name === want.name &&
    (!withArguments ||
      want.arguments === undefined ||
      isDeepStrictEqual(call.arguments ?? {}, want.arguments));
  const names = (steps: readonly TrajectoryStep[]) => `[${steps.map(stepText(withArguments)).join(", ")}]`;
  if (mode === "strict") {
    for (let index = 0; index < Math.max(actual.length, expected.length); index++) {
      const call = actual[index];
      const want = expected[index];
      if (call === undefined)
        return `call ${index + 1} is missing: expected ${stepText(withArguments)(want!)}`;
      if (want === undefined) return `call ${index + 1}, ${stepText(withArguments)(call)}, was not expected`;
      if (!matches(call, want)) {
        return `call ${index + 1} is ${stepText(withArguments)(call)}, expected ${stepText(withArguments)(want)}`;
      }
    }
    return undefined;
  }
  // Pair each expected step with one unused call (greedy: expected steps without arguments match any).
  const unused = [...actual];
  const missing: TrajectoryStep[] = [];
  for (const want of expected) {
    const index = unused.findIndex((call) => matches(call, want));
    if (index === -1) missing.push(want);
    else unused.splice(index, 1);
  }
  const needsAll = mode === "unordered" || mode === "superset";
  const allowsNoExtra = mode === "unordered" || mode === "subset";
  if (needsAll && missing.length > 0) {
    return `expected calls not made: ${names(missing)} (the run called ${names(actual)})`;
  }
  if (allowsNoExtra && unused.length > 0) return `calls not expected: ${names(unused)}`;
  return undefined;
}

function stepText(withArguments: boolean) {
  return (step: TrajectoryStep) =>
    withArguments && step.arguments !== undefined
      ? `${step.name}(${JSON.stringify(step.arguments)})`
      : step.name;
}

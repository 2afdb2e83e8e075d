import { errorText } from "../types/error-text.js";
import type { EvalCase } from "./eval-case.js";
import type { EvalRun } from "./eval-run.js";

/** A scorer's verdict on one run: a score from 0 to 1 and why. */
export interface Score {
  score: number;
  reason: string;
}

/** A {@link Score} with the scorer's name and whether it reached the scorer's threshold. */
export interface ScorerVerdict extends Score {
  scorer: string;
  passed: boolean;
}

/**
 * Scores one run of a case. `score` returns `null` when the scorer does not apply to the case (e.g.
 * `trajectoryMatch` on a case without an expected trajectory): it is then left out of the case's score.
 * A run passes a scorer when its score is at least `threshold` (default 1).
 */
export interface Scorer {
  name: string;
  threshold?: number;
  score(run: EvalRun, evalCase: EvalCase): Score | null | Promise<Score | null>;
}

/**
 * Makes a custom scorer (the built-in ones are made the same way).
 *
 * Contract: returns the definition as a {@link Scorer}; throws `RangeError` for a threshold
 * outside 0–1. The score function may be async and may throw: the runner then scores 0 with the error
 * as the reason.
 *
 * @example
 * ```ts
 * const polite = createScorer({
 *   name: "polite",
 *   score: (run) => (/please|thank/i.test(run.text) ? { score: 1, reason: "polite" } : { score: 0, reason: "curt" }),
 * });
 * ```
 */
export function createScorer(definition: Scorer): Scorer {
  const { threshold } = definition;
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) {
    throw new RangeError(`Scorer "${definition.name}": threshold must be between 0 and 1, not ${threshold}`);
  }
  return definition;
}

/**
 * Applies a scorer to a run, never failing: a scorer that throws or returns a score outside 0–1 scores
 * 0 with the problem as its reason.
 *
 * Contract: async; never rejects; resolves `null` when the scorer does not apply.
 *
 * @example
 * ```ts
 * import { containsText, runEvalCase } from "agentchart/evals";
 * const evalCase = { id: "capital", input: "What is the capital of France?" };
 * const run = await runEvalCase(() => ({ model, streamFn }), evalCase);
 * const verdict = await applyScorer(containsText("Paris"), run, evalCase);
 * ```
 */
export async function applyScorer(
  scorer: Scorer,
  run: EvalRun,
  evalCase: EvalCase,
): Promise<ScorerVerdict | null> {
  let score: Score | null;
  try {
    score = await scorer.score(run, evalCase);
  } catch (error) {
    score = { score: 0, reason: `the scorer threw: ${errorText(error)}` };
  }
  if (score === null) return null;
  if (!(typeof score.score === "number" && score.score >= 0 && score.score <= 1)) {
    score = { score: 0, reason: `the scorer returned ${String(score.score)}, not a score between 0 and 1` };
  }
  return { scorer: scorer.name, ...score, passed: score.score >= (scorer.threshold ?? 1) };
}

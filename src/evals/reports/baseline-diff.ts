import { EvalInputError } from "../eval-input-error.js";
import type { EvalResult } from "../eval-result.js";

/** How one case changed against the baseline. */
export type CaseChange = "improved" | "regressed" | "unchanged" | "new" | "removed";

/** One case against the baseline: its score before and now, and each scorer's mean before and now. */
export interface CaseDiff {
  caseId: string;
  change: CaseChange;
  baseline?: number;
  current?: number;
  scorers: { scorer: string; baseline?: number; current?: number }[];
}

/** An eval result against a baseline result: the dataset score, the pass rate and every case. */
export interface EvalDiff {
  score: { baseline: number; current: number };
  passRate: { baseline: number; current: number };
  cases: CaseDiff[];
}

/**
 * Compares an eval result with a baseline result (an earlier run's JSON report): a case regressed when
 * its score dropped or it passed before and fails now, improved when the reverse.
 *
 * Contract: pure; cases in the current result's order, then the removed ones.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * const baseline = parseEvalResult(readFileSync("eval-baseline.json", "utf8"), "eval-baseline.json");
 * const regressions = diffEvalResults(result, baseline).cases.filter((entry) => entry.change === "regressed");
 * ```
 */
export function diffEvalResults(current: EvalResult, baseline: EvalResult): EvalDiff {
  const before = new Map(baseline.cases.map((entry) => [entry.caseId, entry]));
  const cases: CaseDiff[] = current.cases.map((now) => {
    const then = before.get(now.caseId);
    before.delete(now.caseId);
    const scorers = new Map<string, { scorer: string; baseline?: number; current?: number }>();
    for (const entry of then?.scores ?? [])
      scorers.set(entry.scorer, { scorer: entry.scorer, baseline: entry.mean });
    for (const entry of now.scores)
      scorers.set(entry.scorer, { ...scorers.get(entry.scorer), scorer: entry.scorer, current: entry.mean });
    if (then === undefined)
      return { caseId: now.caseId, change: "new", current: now.score, scorers: [...scorers.values()] };
    const change: CaseChange =
      now.score < then.score || (then.passed && !now.passed)
        ? "regressed"
        : now.score > then.score || (!then.passed && now.passed)
          ? "improved"
          : "unchanged";
    return {
      caseId: now.caseId,
      change,
      baseline: then.score,
      current: now.score,
      scorers: [...scorers.values()],
    };
  });
  for (const then of before.values()) {
    cases.push({
      caseId: then.caseId,
      change: "removed",
      baseline: then.score,
      scorers: then.scores.map((entry) => ({ scorer: entry.scorer, baseline: entry.mean })),
    });
  }
  return {
    score: { baseline: baseline.score, current: current.score },
    passRate: { baseline: baseline.passRate, current: current.passRate },
    cases,
  };
}

/**
 * Reads an eval result from its JSON report (a baseline file).
 *
 * Contract: pure; throws {@link EvalInputError} `invalid_baseline` (with `source`) for text that is not JSON
 * or not an eval result.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * const baseline = parseEvalResult(readFileSync("eval-baseline.json", "utf8"), "eval-baseline.json");
 * ```
 */
export function parseEvalResult(text: string, source = "baseline"): EvalResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EvalInputError(
      "invalid_baseline",
      `${source}: not JSON (${(error as Error).message})`,
      undefined,
      {
        cause: error,
      },
    );
  }
  const result = value as Partial<EvalResult> | null;
  const casesOk =
    Array.isArray(result?.cases) &&
    result.cases.every(
      (entry) =>
        typeof entry?.caseId === "string" && typeof entry.score === "number" && Array.isArray(entry.scores),
    );
  if (typeof result?.score !== "number" || typeof result.passRate !== "number" || !casesOk) {
    throw new EvalInputError(
      "invalid_baseline",
      `${source}: not an eval result (expected the JSON of \`agentchart eval --results\`: score, passRate, cases)`,
    );
  }
  return result as EvalResult;
}

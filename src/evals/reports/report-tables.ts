import type { EvalResult } from "../eval-result.js";
import type { EvalDiff } from "./baseline-diff.js";

/** A titled table of a human-readable report; Markdown and HTML render the same tables. */
export interface ReportTable {
  title: string;
  head: string[];
  rows: string[][];
}

/** The summary lines and tables of an eval report (with the baseline diff when there is one). */
export interface ReportContent {
  title: string;
  summary: string[];
  tables: ReportTable[];
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
const fixed = (value: number | undefined) => (value === undefined ? "–" : value.toFixed(3));

/**
 * What a human-readable report shows: the dataset score and pass rate, per scorer, per case (each
 * scorer's mean ± spread and pass^k), the failing reasons, the baseline diff and the transitions no
 * case exercised.
 *
 * Contract: pure.
 */
export function reportContent(result: EvalResult, diff?: EvalDiff): ReportContent {
  const scorerNames = result.scorers.map((entry) => entry.scorer);
  const summary = [
    `Score ${fixed(result.score)}, ${percent(result.passRate)} of ${result.cases.length} cases passed` +
      (result.repeats > 1 ? ` (pass^${result.repeats}: every one of ${result.repeats} samples)` : ""),
    `Agent machine coverage: ${result.coverage.exercised} of ${result.coverage.total} transitions`,
  ];
  if (diff) {
    const regressed = diff.cases.filter((entry) => entry.change === "regressed").length;
    const improved = diff.cases.filter((entry) => entry.change === "improved").length;
    summary.push(
      `Against the baseline: score ${fixed(diff.score.baseline)} → ${fixed(diff.score.current)}, ` +
        `${regressed} cases regressed, ${improved} improved`,
    );
  }
  const tables: ReportTable[] = [
    {
      title: "Scorers",
      head: ["scorer", "mean", "passed", "cases"],
      rows: result.scorers.map((entry) => [
        entry.scorer,
        fixed(entry.mean),
        percent(entry.passRate),
        String(entry.cases),
      ]),
    },
    {
      title: "Cases",
      head: ["case", "score", "passed", ...scorerNames],
      rows: result.cases.map((entry) => [
        entry.caseId,
        fixed(entry.score),
        entry.passed ? "yes" : "no",
        ...scorerNames.map((name) => {
          const score = entry.scores.find((candidate) => candidate.scorer === name);
          if (score === undefined) return "–";
          const spread = result.repeats > 1 ? ` ± ${fixed(score.spread)}` : "";
          return `${fixed(score.mean)}${spread}${score.passHatK ? "" : " ✗"}`;
        }),
      ]),
    },
  ];
  const failures = result.cases.flatMap((entry) => [
    ...(entry.error === undefined ? [] : [[entry.caseId, "(run)", entry.error]]),
    ...entry.scores.flatMap((score) =>
      score.samples
        .filter((sample) => !sample.passed)
        .map((sample) => [entry.caseId, score.scorer, sample.reason]),
    ),
  ]);
  if (failures.length > 0)
    tables.push({ title: "Failures", head: ["case", "scorer", "reason"], rows: failures });
  if (diff) {
    tables.push({
      title: "Against the baseline",
      head: ["case", "change", "baseline", "now"],
      rows: diff.cases
        .filter((entry) => entry.change !== "unchanged")
        .map((entry) => [entry.caseId, entry.change, fixed(entry.baseline), fixed(entry.current)]),
    });
  }
  if (result.coverage.missed.length > 0) {
    tables.push({
      title: "Transitions no case exercised",
      head: ["transition"],
      rows: result.coverage.missed.map((key) => [key]),
    });
  }
  return { title: `Eval: ${result.name}`, summary, tables };
}

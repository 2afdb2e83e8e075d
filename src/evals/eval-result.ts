import type { TrajectoryStep } from "./eval-case.js";
import type { EvalRun } from "./eval-run.js";
import type { ScorerVerdict } from "./scorer.js";

/** One scorer over the samples of one case: mean score, spread, pass^k and each sample's verdict. */
export interface CaseScore {
  scorer: string;
  mean: number;
  /** Population standard deviation of the samples' scores (0 for one sample). */
  spread: number;
  /** pass^k: whether every one of the k samples passed. */
  passHatK: boolean;
  samples: { score: number; reason: string; passed: boolean }[];
}

/** What a report shows of one run (a sample) of a case. */
export interface SampleSummary {
  text: string;
  toolCalls: TrajectoryStep[];
  stopReason: EvalRun["stopReason"];
  error?: string;
  latencyMs: number;
  tokens: number;
}

/** One case's result over its samples. */
export interface CaseResult {
  caseId: string;
  metadata?: Record<string, unknown>;
  /** Mean of its scorers' means (1 when no scorer applies and no run failed; 0 when a run failed). */
  score: number;
  /** Every sample ran without error and passed every scorer that applies (pass^k). */
  passed: boolean;
  /** The first run error among the samples (the agent failed or threw). */
  error?: string;
  scores: CaseScore[];
  samples: SampleSummary[];
}

/** One scorer over the dataset. */
export interface ScorerSummary {
  scorer: string;
  /** Mean of the case means, over the cases it applies to. */
  mean: number;
  /** Fraction of those cases that passed it on every sample. */
  passRate: number;
  cases: number;
}

/** The transitions of the agent machine the dataset exercised, and those no case did. */
export interface DatasetCoverage {
  total: number;
  exercised: number;
  /** The definition's transitions no run took (`transitionLabel`s), in definition order. */
  missed: string[];
}

/** The result of an eval run: written as JSON (`agentchart eval --results`), read back as a baseline. */
export interface EvalResult {
  name: string;
  /** ISO time the run started. */
  startedAt: string;
  durationMs: number;
  /** Samples per case. */
  repeats: number;
  /** Mean of the case scores: what `--min-score` gates. */
  score: number;
  /** Fraction of cases that passed (pass^k over the repeats). */
  passRate: number;
  scorers: ScorerSummary[];
  cases: CaseResult[];
  coverage: DatasetCoverage;
}

/**
 * Summarises the verdicts of one scorer over a case's samples.
 *
 * Contract: pure; `verdicts` is non-empty.
 *
 * @example
 * ```ts
 * caseScore("exactText", [
 *   { scorer: "exactText", score: 1, passed: true, reason: "same text" },
 *   { scorer: "exactText", score: 0, passed: false, reason: "other text" },
 * ]).passHatK; // false
 * ```
 */
export function caseScore(scorer: string, verdicts: readonly ScorerVerdict[]): CaseScore {
  const scores = verdicts.map((verdict) => verdict.score);
  const mean = meanOf(scores);
  return {
    scorer,
    mean,
    spread: Math.sqrt(meanOf(scores.map((score) => (score - mean) ** 2))),
    passHatK: passHatK(verdicts.map((verdict) => verdict.passed)),
    samples: verdicts.map(({ score, reason, passed }) => ({ score, reason, passed })),
  };
}

/**
 * pass^k: whether all k trials passed (the chance that an agent succeeds k times in a row, as
 * τ-bench defines it, estimated on one set of k samples).
 *
 * Contract: pure; false for no trials.
 *
 * @example
 * ```ts
 * passHatK([true, true, false]); // false
 * ```
 */
export function passHatK(passes: readonly boolean[]): boolean {
  return passes.length > 0 && passes.every(Boolean);
}

/** The arithmetic mean; 0 for no values. */
export function meanOf(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

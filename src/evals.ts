// `agentchart/evals`: datasets, scorers, a runner with reports and a CI gate, seam evals, transition
// coverage and vitest matchers for agents (see docs/evals.md). Node only (datasets are files).

export type { CaseTracing } from "./evals/case-tracing.js";
export type { EvalCase, TrajectoryStep } from "./evals/eval-case.js";
export { parseEvalDataset, readEvalDataset } from "./evals/eval-dataset.js";
export { EvalInputError, type EvalInputErrorCode } from "./evals/eval-input-error.js";
export {
  type EvalAssertions,
  type EvalMatcherResult,
  evalMatchers,
  type TrajectoryMatcherOptions,
} from "./evals/eval-matchers.js";
export {
  type CaseResult,
  type CaseScore,
  caseScore,
  type EvalResult,
  passHatK,
  type SampleSummary,
  type ScorerSummary,
  type TransitionCoverage,
} from "./evals/eval-result.js";
export {
  type EvalAgent,
  type EvalApproval,
  type EvalRun,
  type EvalUsage,
  evalRunOf,
  type RunEvalCaseOptions,
  runEvalCase,
} from "./evals/eval-run.js";
export type { EvalSuite } from "./evals/eval-suite.js";
export { type ProgressBar, type ProgressStream, progressBar } from "./evals/progress-bar.js";
export {
  type CaseChange,
  type CaseDiff,
  diffEvalResults,
  type EvalDiff,
  parseEvalResult,
} from "./evals/reports/baseline-diff.js";
export { toHtmlReport } from "./evals/reports/html-report.js";
export { toJunitXml } from "./evals/reports/junit-report.js";
export { toMarkdownReport } from "./evals/reports/markdown-report.js";
export { type RunEvalOptions, runEval } from "./evals/run-eval.js";
export { applyScorer, createScorer, type Score, type Scorer, type ScorerVerdict } from "./evals/scorer.js";
export { type LlmJudgeOptions, llmJudge } from "./evals/scorers/llm-judge.js";
export { matchesSchema } from "./evals/scorers/output-schema.js";
export {
  type ActorFilter,
  enters,
  entersBefore,
  neverEnters,
  type StatePathCheck,
  statePath,
} from "./evals/scorers/state-path-check.js";
export { containsText, exactText, matchesPattern } from "./evals/scorers/text-match.js";
export {
  type TrajectoryMatchOptions,
  type TrajectoryMode,
  trajectoryMatch,
  trajectoryProblem,
} from "./evals/scorers/trajectory-match.js";
export { type EvalBudget, withinBudget } from "./evals/scorers/within-budget.js";
export {
  type RecordedModelCall,
  replayExceptStep,
  type SeamCandidate,
  type SeamEvalOptions,
  type SeamEvalResult,
  type SeamRecording,
  seamEval,
} from "./evals/seam-eval.js";
export { evalCasesFromSession } from "./evals/session-cases.js";
export {
  AGENT_ACTOR,
  recordStatePath,
  type StatePathRecording,
  type StatePathStep,
  transitionKey,
} from "./evals/state-path.js";
export { definedTransitions, transitionCoverage } from "./evals/transition-coverage.js";

import type { Agent } from "../agent/agent.js";
import type { TraceOptions } from "../otel/run-tracer.js";
import { type CaseTracing, caseTracing } from "./case-tracing.js";
import type { EvalCase } from "./eval-case.js";
import { EvalInputError } from "./eval-input-error.js";
import {
  type CaseResult,
  type CaseScore,
  caseScore,
  type EvalResult,
  meanOf,
  type ScorerSummary,
} from "./eval-result.js";
import { type EvalAgent, type EvalApproval, type EvalRun, runEvalCase } from "./eval-run.js";
import { type ProgressStream, progressBar } from "./progress-bar.js";
import { applyScorer, type Scorer, type ScorerVerdict } from "./scorer.js";
import { transitionCoverage } from "./transition-coverage.js";

/** Options of {@link runEval}. */
export interface RunEvalOptions {
  /** The dataset's cases (see `readEvalDataset`, `evalCasesFromSession`). */
  cases: readonly EvalCase[];
  /** The agent under evaluation: fresh options for each run. */
  agent: EvalAgent;
  scorers: readonly Scorer[];
  /** The result's name in reports (default `"eval"`). */
  name?: string;
  /** Cases run at once (default 4). */
  concurrency?: number;
  /** Samples per case (default 1): each scorer reports their mean, spread and pass^k. */
  repeats?: number;
  /** Draws a progress bar here when it is a TTY (e.g. `process.stderr`). */
  progress?: ProgressStream;
  /** Decides the approvals runs wait for (default: approve every call). */
  approve?: EvalApproval;
  /** Traces each case with OpenTelemetry (needs `@opentelemetry/api`; see docs/observability.md). */
  trace?: TraceOptions;
}

/**
 * Runs every case of a dataset `repeats` times against fresh agents, at most `concurrency` cases at
 * once, scores each run with every scorer, and summarises per case, per scorer and over the dataset,
 * with the agent machine's transition coverage.
 *
 * Contract: async; a failing agent, a throwing scorer or a failing judge is reported in its case and
 * never stops the run. Rejects with {@link EvalInputError} `invalid_option` for a concurrency or repeats
 * below 1 or two scorers of one name, and with `MissingPeerDependencyError` when `trace` is set without `@opentelemetry/api`.
 * Cases keep the dataset's order in the result.
 *
 * @example
 * ```ts
 * import { exactText, readEvalDataset } from "agentchart/evals";
 * const cases = await readEvalDataset("evals/greetings.jsonl");
 * const result = await runEval({ cases, agent: () => ({ model, streamFn }), scorers: [exactText()] });
 * if (result.score < 0.9) process.exitCode = 1;
 * ```
 */
export async function runEval(options: RunEvalOptions): Promise<EvalResult> {
  const concurrency = options.concurrency ?? 4;
  const repeats = options.repeats ?? 1;
  for (const [name, value] of [
    ["concurrency", concurrency],
    ["repeats", repeats],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new EvalInputError("invalid_option", `runEval: ${name} must be a whole number ≥ 1, not ${value}`);
    }
  }
  const names = options.scorers.map((scorer) => scorer.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) {
    throw new EvalInputError(
      "invalid_option",
      `runEval: two scorers are named "${twice}"; give one another name`,
    );
  }
  const tracing = options.trace ? await caseTracing(options.trace) : undefined;
  const startedAt = new Date();
  const started = performance.now();
  const bar = progressBar(options.progress, options.cases.length);
  const results: CaseResult[] = new Array(options.cases.length);
  const transitions = new Set<string>();
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < options.cases.length; index = next++) {
      const evalCase = options.cases[index] as EvalCase;
      const result = await runCase(evalCase, options, repeats, transitions, tracing);
      results[index] = result;
      bar.tick(result.passed);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, options.cases.length) }, worker));
  bar.done();
  return {
    name: options.name ?? "eval",
    startedAt: startedAt.toISOString(),
    durationMs: performance.now() - started,
    repeats,
    score: meanOf(results.map((result) => result.score)),
    passRate: meanOf(results.map((result) => (result.passed ? 1 : 0))),
    scorers: scorerSummaries(options.scorers, results),
    cases: results,
    coverage: transitionCoverage(transitions),
  };
}

function runCase(
  evalCase: EvalCase,
  options: RunEvalOptions,
  repeats: number,
  transitions: Set<string>,
  tracing: CaseTracing | undefined,
): Promise<CaseResult> {
  const work = async (prepare?: (agent: Agent) => () => void): Promise<CaseResult> => {
    const runs: EvalRun[] = [];
    const verdicts = new Map<string, ScorerVerdict[]>();
    for (let sample = 0; sample < repeats; sample++) {
      const run = await runEvalCase(options.agent, evalCase, {
        ...(options.approve ? { approve: options.approve } : {}),
        ...(prepare ? { prepare } : {}),
      });
      runs.push(run);
      for (const key of run.transitions) transitions.add(key);
      for (const scorer of options.scorers) {
        const verdict = await applyScorer(scorer, run, evalCase);
        if (verdict !== null) verdicts.set(scorer.name, [...(verdicts.get(scorer.name) ?? []), verdict]);
      }
    }
    return caseResultOf(evalCase, runs, verdicts);
  };
  return tracing ? tracing.traceCase(evalCase.id, work) : work();
}

function caseResultOf(
  evalCase: EvalCase,
  runs: EvalRun[],
  verdicts: Map<string, ScorerVerdict[]>,
): CaseResult {
  const scores: CaseScore[] = [...verdicts].map(([scorer, list]) => caseScore(scorer, list));
  // A run that threw (the factory, the prompt) or ended in error fails its case whatever the scorers say.
  const error = runs.find((run) => run.error !== undefined && run.stopReason === "error")?.error;
  const score = error !== undefined ? 0 : scores.length === 0 ? 1 : meanOf(scores.map((entry) => entry.mean));
  return {
    caseId: evalCase.id,
    ...(evalCase.metadata ? { metadata: evalCase.metadata } : {}),
    score,
    passed: error === undefined && scores.every((entry) => entry.passHatK),
    ...(error !== undefined ? { error } : {}),
    scores,
    samples: runs.map((run) => ({
      text: run.text,
      toolCalls: run.toolCalls,
      stopReason: run.stopReason,
      ...(run.error !== undefined ? { error: run.error } : {}),
      latencyMs: run.latencyMs,
      tokens: run.usage.tokens,
    })),
  };
}

function scorerSummaries(scorers: readonly Scorer[], results: readonly CaseResult[]): ScorerSummary[] {
  return scorers.map((scorer) => {
    const entries = results.flatMap((result) =>
      result.scores.filter((entry) => entry.scorer === scorer.name),
    );
    return {
      scorer: scorer.name,
      mean: meanOf(entries.map((entry) => entry.mean)),
      passRate: meanOf(entries.map((entry) => (entry.passHatK ? 1 : 0))),
      cases: entries.length,
    };
  });
}

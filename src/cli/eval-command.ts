import { readFile, writeFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { EvalCase } from "../evals/eval-case.js";
import { readEvalDataset } from "../evals/eval-dataset.js";
import { EvalInputError } from "../evals/eval-input-error.js";
import type { EvalResult } from "../evals/eval-result.js";
import type { EvalSuite } from "../evals/eval-suite.js";
import { diffEvalResults, type EvalDiff, parseEvalResult } from "../evals/reports/baseline-diff.js";
import { toHtmlReport } from "../evals/reports/html-report.js";
import { toJunitXml } from "../evals/reports/junit-report.js";
import { toMarkdownReport } from "../evals/reports/markdown-report.js";
import { runEval } from "../evals/run-eval.js";
import { exactText } from "../evals/scorers/text-match.js";
import { trajectoryMatch } from "../evals/scorers/trajectory-match.js";
import { lsTool } from "../tools/builtin/ls.js";
import { readTool } from "../tools/builtin/read.js";
import { CliError } from "./cli-error.js";
import { chooseModel } from "./model-choice.js";
import { type CliTracing, startOtlpTracing, wantsOtel } from "./otel-export.js";
import type { RunIo } from "./run-command.js";

/** Options of `agentchart eval` (the model options are the program's: `--provider`, `--model`, `--base-url`). */
export interface EvalCommandOptions {
  agent?: string;
  baseline?: string;
  minScore: number;
  repeats: number;
  concurrency: number;
  results?: string;
  junit?: string;
  markdown?: string;
  html?: string;
  otel?: boolean;
  provider?: string;
  model?: string;
  baseUrl?: string;
}

/**
 * `agentchart eval DATASET`: runs the dataset's cases against the agent of `--agent FILE` (default:
 * the demo agent, `ls` and `read` in the current folder on the CLI's model, offline without a key),
 * prints each failing case and the summary, writes the reports asked for, and resolves 0 when the
 * dataset score reaches `--min-score`, else 1 (the CI gate). Bad input (dataset, agent module,
 * baseline) is a CliError with exit code 2.
 */
export async function runEvalCommand(
  dataset: string,
  options: EvalCommandOptions,
  io: RunIo,
): Promise<number> {
  const print = (line: string) => io.stdout.write(`${line}\n`);
  const cases = await inputOrUsageError(() => readEvalDataset(resolve(io.cwd, dataset)));
  const suite =
    options.agent === undefined
      ? await demoSuite(options, io)
      : await loadSuite(resolve(io.cwd, options.agent));
  const baseline =
    options.baseline === undefined
      ? undefined
      : await inputOrUsageError(async () =>
          parseEvalResult(
            await readFile(resolve(io.cwd, options.baseline as string), "utf8"),
            options.baseline,
          ),
        );
  const tracing: CliTracing | undefined = wantsOtel(options.otel, io.env)
    ? await startOtlpTracing(io.env, (message) => io.stderr.write(`agentchart: ${message}\n`))
    : undefined;
  let result: EvalResult;
  try {
    result = await inputOrUsageError(() =>
      runEval({
        cases,
        agent: suite.agent,
        ...(suite.approve ? { approve: suite.approve } : {}),
        scorers: suite.scorers ?? [trajectoryMatch(), exactText()],
        name: suite.name ?? basename(dataset),
        concurrency: options.concurrency,
        repeats: options.repeats,
        progress: io.stderr,
        ...(tracing ? { trace: { tracer: tracing.tracer } } : {}),
      }),
    );
  } finally {
    await tracing?.shutdown();
  }
  const diff = baseline === undefined ? undefined : diffEvalResults(result, baseline);
  printSummary(result, diff, cases, print);
  const reports: [string | undefined, () => string][] = [
    [options.results, () => `${JSON.stringify(result, null, 2)}\n`],
    [options.junit, () => toJunitXml(result)],
    [options.markdown, () => toMarkdownReport(result, diff)],
    [options.html, () => toHtmlReport(result, diff)],
  ];
  for (const [file, render] of reports) {
    if (file !== undefined) await writeFile(resolve(io.cwd, file), render());
  }
  const passed = result.score >= options.minScore;
  print(
    passed
      ? `gate passed: score ${result.score.toFixed(3)} ≥ ${options.minScore}`
      : `gate failed: score ${result.score.toFixed(3)} < ${options.minScore}`,
  );
  return passed ? 0 : 1;
}

function printSummary(
  result: EvalResult,
  diff: EvalDiff | undefined,
  cases: EvalCase[],
  print: (line: string) => void,
) {
  for (const entry of result.cases) {
    if (entry.passed) continue;
    const reasons = [
      ...(entry.error === undefined ? [] : [`run failed: ${entry.error}`]),
      ...entry.scores
        .filter((score) => !score.passHatK)
        .map((score) => `${score.scorer}: ${score.samples.find((sample) => !sample.passed)?.reason}`),
    ];
    print(`✗ ${entry.caseId} (score ${entry.score.toFixed(3)}): ${reasons.join("; ")}`);
  }
  const passedCount = result.cases.filter((entry) => entry.passed).length;
  print(`${passedCount}/${cases.length} cases passed, score ${result.score.toFixed(3)}`);
  for (const scorer of result.scorers) {
    print(`  ${scorer.scorer}: mean ${scorer.mean.toFixed(3)} over ${scorer.cases} cases`);
  }
  print(`agent machine transitions exercised: ${result.coverage.exercised} of ${result.coverage.total}`);
  if (diff) {
    const changed = diff.cases.filter((entry) => entry.change !== "unchanged");
    print(`against the baseline: score ${diff.score.baseline.toFixed(3)} → ${diff.score.current.toFixed(3)}`);
    for (const entry of changed) print(`  ${entry.change}: ${entry.caseId}`);
  }
}

/** The demo agent: `ls` and `read` in the current folder, on the model the CLI's options choose. */
async function demoSuite(options: EvalCommandOptions, io: RunIo): Promise<EvalSuite> {
  const choice = await chooseModel({
    env: io.env,
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.model === undefined ? {} : { modelId: options.model }),
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
  });
  return {
    agent: () => ({
      model: choice.model,
      streamFn: choice.streamFn,
      tools: [lsTool, readTool],
      toolContext: { cwd: io.cwd },
    }),
  };
}

/** The `EvalSuite` default export of `--agent FILE`. */
async function loadSuite(file: string): Promise<EvalSuite> {
  let module: { default?: Partial<EvalSuite> };
  try {
    module = (await import(pathToFileURL(file).href)) as typeof module;
  } catch (error) {
    throw new CliError(`--agent ${file}: cannot load it (${(error as Error).message})`, 2);
  }
  const suite = module.default;
  if (typeof suite?.agent !== "function") {
    throw new CliError(
      `--agent ${file}: its default export must be { agent: (evalCase) => AgentOptions, scorers?, approve?, name? } (see docs/evals.md)`,
      2,
    );
  }
  return suite as EvalSuite;
}

/** Runs `work`, turning eval input errors (dataset, baseline, options) into usage errors (exit 2). */
async function inputOrUsageError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EvalInputError) throw new CliError(error.message, 2);
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new CliError((error as Error).message, 2);
    throw error;
  }
}

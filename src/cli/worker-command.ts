import type { WorkerJobReport } from "../postgres/worker.js";
import { createBuiltinTools } from "../tools/builtin/index.js";
import { chooseModel } from "./model-choice.js";
import type { RunIo } from "./run-command.js";
import { systemPromptFor } from "./run-command.js";
import { redactDatabaseUrl } from "./sessions-database.js";

/** The flags of `agentchart worker`. */
export interface WorkerCommandOptions {
  databaseUrl: string;
  concurrency: number;
  model?: string;
  baseUrl?: string;
  /** `--provider`: see `ModelChoiceOptions.provider`. */
  provider?: string;
}

/**
 * `agentchart worker --database-url <url>`: serves the sessions of that database (the built-in
 * tools, in each session's folder) until SIGTERM or SIGINT, which drain it, printing one line per
 * job (see {@link describeWorkerJob}). Resolves with 0 once stopped. `agentchart/postgres` is loaded
 * only here.
 */
export async function runWorkerCommand(options: WorkerCommandOptions, io: RunIo): Promise<number> {
  const choice = await chooseModel({
    provider: options.provider,
    modelId: options.model,
    baseUrl: options.baseUrl,
    env: io.env,
  });
  const { createWorker } = await import("../postgres/worker.js");
  const worker = await createWorker({
    connectionString: options.databaseUrl,
    concurrency: options.concurrency,
    harness: (session) => ({
      model: choice.model,
      streamFn: choice.streamFn,
      systemPrompt: systemPromptFor(session.cwd),
      tools: createBuiltinTools(),
      toolContext: { cwd: session.cwd },
      ...(choice.compaction ? { compaction: choice.compaction } : {}),
    }),
    onError: (error) => io.stderr.write(`agentchart worker: ${String(error)}\n`),
    onJob: (report) => io.stdout.write(`${describeWorkerJob(report, new Date())}\n`),
  });
  io.stdout.write(
    `agentchart worker — ${choice.banner} · serving ${redactDatabaseUrl(options.databaseUrl)} (${options.concurrency} at a time)\n`,
  );
  await worker.stopped;
  io.stdout.write("agentchart worker stopped\n");
  return 0;
}

/**
 * The worker's line for a finished job: `2026-12-01 20:44:01  session 0b05ba77-…  idle  1.24 s`
 * (the session's state once released: `idle`, `awaiting_approval`, `awaiting_budget`, `queued`; or `lost`, `skipped`,
 * `failed`).
 *
 * Contract: pure, never throws.
 */
export function describeWorkerJob(report: WorkerJobReport, at: Date): string {
  const time = at.toISOString().replace("T", " ").slice(0, 19);
  return `${time}  session ${report.sessionId}  ${report.outcome}  ${(report.durationMs / 1000).toFixed(2)} s`;
}

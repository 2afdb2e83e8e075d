import type { AgentMessage } from "./messages.js";
import type { OutputRequest } from "./stream.js";

/** The name of the final-answer tool (and of the schema sent as `response_format`). */
export const FINAL_ANSWER_TOOL = "final_answer";

/** Repairs a run allows by default before it ends with an `OutputValidationError`. */
export const DEFAULT_MAX_OUTPUT_REPAIRS = 2;

/**
 * How a run ended: the last reply's stop reason (`stop`, `length`, `toolUse` when tools ended it or
 * `maxTurns` was reached, `error`, `aborted`), or `guardrail` when a guardrail tripped.
 */
export type RunStopReason = "stop" | "length" | "toolUse" | "error" | "aborted" | "guardrail" | "budget";

/** One problem zod found in an output value: where, and what. */
export interface OutputIssue {
  path: (string | number)[];
  message: string;
}

/** The typed output a run expects, as data (persisted with the run). */
export interface RunOutputState {
  request: OutputRequest;
  /** The schema is not an object: the final-answer tool takes it as its `value` argument. */
  wrapped: boolean;
  maxRepairs: number;
  /** Replies that failed validation so far. */
  repairs: number;
  /** The value passed validation (the run ends after this turn). */
  accepted: boolean;
  value?: unknown;
  /** Validation failed `maxRepairs + 1` times: the last issues and raw text. */
  failure?: { issues: OutputIssue[]; raw: string };
}

/** A guardrail that tripped, as data (in the run, on `guardrail_tripped` and in the run result). */
export interface GuardrailTrip {
  guardrail: string;
  kind: "input" | "output";
  reason: string;
  /** The guardrail threw: a trip with its error as the reason (fail closed). */
  threw?: boolean;
}

/**
 * The validation of a run's output failed more often than `maxOutputRepairs` allows. Carries zod's
 * issues of the last attempt and the raw text (or final-answer arguments as JSON) of that attempt.
 */
export class OutputValidationError extends Error {
  readonly code = "output_validation";
  readonly issues: OutputIssue[];
  readonly raw: string;
  constructor(issues: OutputIssue[], raw: string) {
    super(`The output did not match its schema: ${issuesLine(issues)}`);
    this.name = "OutputValidationError";
    this.issues = issues;
    this.raw = raw;
  }
}

/** `path: message; …` of the issues (at most 10). */
export function issuesLine(issues: readonly OutputIssue[]): string {
  return issues
    .slice(0, 10)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

/**
 * What `agent.prompt()` (and `continue()`, `resumeToolCalls()`) resolves to once the run ended.
 *
 * ```ts
 * import { z } from "zod";
 * const Invoice = z.object({ number: z.string(), total: z.number() });
 * const { output, stopReason } = await agent.prompt("Extract the invoice", { output: Invoice });
 * if (output !== undefined) console.log(output.total); // typed from the schema (set when stopReason is "stop")
 * else console.log(`no invoice: ${stopReason}`);
 * ```
 */
export interface RunResult<TOutput = unknown> {
  /** The validated output value (runs that expect typed output and ended with `stopReason: "stop"`). */
  output: TOutput | undefined;
  /** The messages this run added to the transcript. */
  messages: AgentMessage[];
  stopReason: RunStopReason;
  /** Why the run failed: the output never validated, or the error text of the last reply. */
  error?: OutputValidationError | Error;
  /** The guardrail that tripped (`stopReason: "guardrail"`). */
  guardrail?: GuardrailTrip;
}

import type { AgentEvent } from "../types/events.js";
import { OutputValidationError, type RunResult } from "../types/output.js";

/**
 * The result of a run from its `agent_end` event: output, messages, stop reason, the guardrail that
 * tripped, and the error — an `OutputValidationError` when the output never validated, else an Error
 * of `errorMessage` (the agent's last error text) when the run ended with `stopReason: "error"`.
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * agent.subscribe((event) => {
 *   if (event.type === "agent_end") console.log(runResultOf(event).stopReason);
 * });
 * ```
 */
export function runResultOf(
  end: Extract<AgentEvent, { type: "agent_end" }>,
  errorMessage?: string,
): RunResult {
  const result: RunResult = { output: end.output, messages: end.messages, stopReason: end.stopReason };
  if (end.outputFailure)
    result.error = new OutputValidationError(end.outputFailure.issues, end.outputFailure.raw);
  else if (end.stopReason === "error") result.error = new Error(errorMessage ?? "The run failed");
  if (end.guardrail) result.guardrail = end.guardrail;
  return result;
}

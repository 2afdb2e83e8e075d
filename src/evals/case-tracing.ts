import type { Agent } from "../agent/agent.js";
import type { TraceOptions } from "../otel/run-tracer.js";
import type { CaseResult } from "./eval-result.js";

/** Wraps each case of an eval run in an OpenTelemetry span, the agent's own spans below it. */
export interface CaseTracing {
  /**
   * Runs `work` inside the span `eval_case {id}`; `work` gets what to do with each agent it makes
   * (instrument it; the returned function stops that).
   */
  traceCase(
    caseId: string,
    work: (prepare: (agent: Agent) => () => void) => Promise<CaseResult>,
  ): Promise<CaseResult>;
}

/**
 * Loads `agentchart/otel` (which needs the optional peer `@opentelemetry/api`) and traces each case:
 * a span `eval_case {id}` (attributes `agentchart.eval.case_id`, `.score`, `.passed`; status ERROR
 * when the case failed), with the `invoke_agent`, `chat` and `execute_tool` spans of its runs inside.
 *
 * Contract: async; rejects with `MissingPeerDependencyError` when `@opentelemetry/api` is not installed.
 */
export async function caseTracing(options: TraceOptions): Promise<CaseTracing> {
  const [{ instrument, tracerOf }, { SpanStatusCode }] = await Promise.all([
    import("../otel/instrument.js"),
    import("../otel/otel-api.js"),
  ]);
  const tracer = tracerOf(options);
  return {
    traceCase: (caseId, work) =>
      tracer.startActiveSpan(`eval_case ${caseId}`, async (span) => {
        span.setAttribute("agentchart.eval.case_id", caseId);
        try {
          const result = await work((agent) => {
            const tracing = instrument(agent, options);
            return () => tracing.dispose();
          });
          span.setAttribute("agentchart.eval.score", result.score);
          span.setAttribute("agentchart.eval.passed", result.passed);
          if (!result.passed) {
            span.setStatus({
              code: SpanStatusCode.ERROR,
              message: result.error ?? "the case failed its scorers",
            });
          }
          return result;
        } finally {
          span.end();
        }
      }),
  };
}

import type { Attributes, Span, Tracer } from "@opentelemetry/api";
import type { HarnessEvent } from "../harness/hooks.js";
import type { HarnessPhase } from "../machines/harness/harness.machine.js";
import { AGENTCHART, ERROR_TYPE, ERROR_TYPE_VALUE } from "./gen-ai-attributes.js";
import { context, SpanStatusCode } from "./otel-api.js";
import type { RunTracer } from "./run-tracer.js";

/**
 * Spans of an AgentHarness's phases: a prompt operation (`idle` → `turn` … → `idle`) is one
 * `invoke_agent` span of the RunTracer; `compaction`, `branchSummary` and `retry` are spans named after
 * the phase, children of the operation's span when one is open (a manual `compact()` has none).
 */
export class HarnessPhaseSpans {
  readonly #tracer: Tracer;
  readonly #runTracer: RunTracer;
  #phaseSpan: Span | undefined;
  #pendingRetry: Attributes | undefined;

  constructor(tracer: Tracer, runTracer: RunTracer) {
    this.#tracer = tracer;
    this.#runTracer = runTracer;
  }

  /** Applies a phase change. */
  onPhase(phase: HarnessPhase): void {
    this.#endPhaseSpan();
    if (phase === "idle") {
      this.#runTracer.endOperation();
      return;
    }
    if (phase === "turn") {
      this.#runTracer.beginOperation();
      return;
    }
    const parent = this.#runTracer.runContext ?? context.active();
    const span = this.#tracer.startSpan(phase, { attributes: { [AGENTCHART.harnessPhase]: phase } }, parent);
    if (phase === "retry" && this.#pendingRetry) span.setAttributes(this.#pendingRetry);
    this.#pendingRetry = undefined;
    this.#phaseSpan = span;
  }

  /** Applies the harness's own events that describe a phase (retry attempt, compaction reason, failure). */
  onHarnessEvent(event: HarnessEvent): void {
    switch (event.type) {
      case "retry": {
        const attributes = {
          [AGENTCHART.retryAttempt]: event.attempt,
          [AGENTCHART.retryMaxRetries]: event.maxRetries,
          [AGENTCHART.retryDelayMs]: event.delayMs,
        };
        if (this.#phaseSpan) this.#phaseSpan.setAttributes(attributes);
        else this.#pendingRetry = attributes;
        return;
      }
      case "session_compact":
        this.#phaseSpan?.setAttribute(AGENTCHART.compactionReason, event.reason);
        return;
      case "compaction_failed":
        this.#phaseSpan?.setAttributes({
          [AGENTCHART.compactionReason]: event.reason,
          [ERROR_TYPE]: ERROR_TYPE_VALUE.compactionFailed,
        });
        this.#phaseSpan?.setStatus({ code: SpanStatusCode.ERROR, message: event.errorMessage });
        return;
      default:
        return;
    }
  }

  /** Ends the open phase span, if any. */
  endAll(): void {
    this.#endPhaseSpan();
  }

  #endPhaseSpan(): void {
    this.#phaseSpan?.end();
    this.#phaseSpan = undefined;
  }
}

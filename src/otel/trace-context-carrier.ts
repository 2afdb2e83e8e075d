import type { Context } from "@opentelemetry/api";
import { context, propagation } from "./otel-api.js";

/** W3C trace context as plain, JSON-serialisable data (`traceparent`, optionally `tracestate`). */
export type TraceContextCarrier = Record<string, string>;

/**
 * Writes the trace context of `from` (default: the active context) into a new plain object, with the
 * app's registered propagator (the W3C one of a registered SDK). Store it with a job so the worker that
 * runs the job continues the trace (see `extractTraceContext`). Empty when nothing is traced.
 *
 * ```ts
 * declare const queue: { submit(job: { prompt: string; traceContext: TraceContextCarrier }): Promise<void> };
 * await queue.submit({ prompt: "Summarise the report", traceContext: injectTraceContext() });
 * ```
 */
export function injectTraceContext(from: Context = context.active()): TraceContextCarrier {
  const carrier: TraceContextCarrier = {};
  propagation.inject(from, carrier);
  return carrier;
}

/**
 * The context described by a carrier from `injectTraceContext`, on top of the active one. Run the
 * worker's agent inside it and the run's `invoke_agent` span becomes a child of the submitting span.
 * A missing or malformed carrier gives the active context unchanged (the run starts a new trace).
 *
 * ```ts
 * import { context } from "@opentelemetry/api";
 * declare const job: { prompt: string; traceContext: TraceContextCarrier }; // as the queue delivers it
 * await context.with(extractTraceContext(job.traceContext), () => agent.prompt(job.prompt));
 * ```
 */
export function extractTraceContext(carrier: TraceContextCarrier | undefined): Context {
  const active = context.active();
  if (!carrier || typeof carrier !== "object") return active;
  return propagation.extract(active, carrier);
}

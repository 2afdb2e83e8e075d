// `agentchart/otel`: OpenTelemetry tracing of Agents, AgentHarnesses and the functional loop.
// `@opentelemetry/api` is an optional peer dependency: only this entry imports it.

export {
  AGENTCHART,
  ERROR_TYPE,
  ERROR_TYPE_VALUE,
  GEN_AI,
  GEN_AI_EVENT,
  GEN_AI_OPERATION,
} from "./otel/gen-ai-attributes.js";
export { type Instrumentation, instrument, TRACER_NAME } from "./otel/instrument.js";
export { InstrumentationError, type InstrumentationErrorCode } from "./otel/instrumentation-error.js";
export type { TraceOptions } from "./otel/run-tracer.js";
export {
  extractTraceContext,
  injectTraceContext,
  type TraceContextCarrier,
} from "./otel/trace-context-carrier.js";
export { tracedAgentLoop, tracedAgentLoopContinue } from "./otel/traced-agent-loop.js";

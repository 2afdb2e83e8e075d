// agentchart/ag-ui: an AG-UI 1.0 server over agents and harnesses (resumable SSE runs, commands).
export * from "./ag-ui/ag-ui-error.js";
export * from "./ag-ui/ag-ui-events.js";
export * from "./ag-ui/ag-ui-handler.js";
export { AgUiRun, type AgUiRunInput } from "./ag-ui/ag-ui-run.js";
export type { AuthorizationVerdict, Authorize } from "./ag-ui/authorization.js";
export type { ClientAnswer } from "./ag-ui/client-answers.js";
export { CLIENT_TOOL_CACHE_SIZE, clientToolsOf } from "./ag-ui/client-tools.js";
export { type AgentCommandRequest, parseCommandRequest } from "./ag-ui/command-request.js";
export { type AgUiErrorListener, logAgUiError } from "./ag-ui/error-response.js";
export * from "./ag-ui/node-listener.js";
export {
  BUDGET_INTERRUPT_ID,
  decideRunRequest,
  type RunDecision,
  type RunRequestView,
  resumeCommands,
  type ThreadView,
} from "./ag-ui/request-decision.js";
export { type AgUiLimits, DEFAULT_AG_UI_LIMITS, type ResolvedAgUiLimits } from "./ag-ui/request-limits.js";
export { RunLog, type RunLogReader } from "./ag-ui/run-log.js";
export {
  EVENTS_PER_POSITION,
  type IdentifiedEvent,
  SessionRunEvents,
} from "./ag-ui/session-run-events.js";
export type { SessionRunSource, StoredRun } from "./ag-ui/session-run-source.js";
export { type SessionRuns, sessionRuns } from "./ag-ui/session-runs.js";
export * from "./ag-ui/shared-state.js";
export { sseFrame } from "./ag-ui/sse-frame.js";
export {
  type AgentStreamTranslator,
  type OpenSubAgentEnd,
  subagentRunIdOf,
} from "./ag-ui/subagent-streams.js";
export { type AgUiTranslationOptions, AgUiTranslator, toAgUiEvents } from "./ag-ui/to-ag-ui-events.js";
export { toAgUiMessages } from "./ag-ui/to-ag-ui-messages.js";
export type { ReplyDelta } from "./storage/reply-delta.js";
export type { SessionRunState, SessionStreamUpdate } from "./storage/session-stream-update.js";

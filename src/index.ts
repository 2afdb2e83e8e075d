// `agentchart`: what an application uses — the agent and the harness, their options and results, the
// commands it sends them, sessions, tools, the messages, events and model types it reads or writes,
// the errors it catches, recordings. No `node:` import, so it bundles for browsers. The machines and
// their parts are in `agentchart/machines`, the session format and a repo's building blocks in
// `agentchart/sessions`, the compaction functions in `agentchart/compaction` (docs/concepts.md,
// "Entry points").

export {
  Agent,
  type AgentListener,
  type AgentOptions,
  type AgentPathOption,
  type AgentRestoreOptions,
  type PromptOptions,
} from "./agent/agent.js";
export { AgentRestoreError, type PersistedAgent } from "./agent/agent-snapshot.js";
export type { AgentState, WaitingToolCall } from "./agent/agent-state.js";
export {
  type AddressedCommand,
  type AgentAddress,
  type CallAddress,
  callKey,
} from "./commands/addressed-command.js";
export { CommandError, type CommandErrorCode, isCommandError } from "./commands/command-error.js";
export { type CommandFromOutside, parseAgentCommand } from "./commands/parse-command.js";
export { AgentHarness, type HarnessPromptOptions, type HarnessRunResult } from "./harness/agent-harness.js";
export type { AgentSurface } from "./harness/agent-surface.js";
export { AgentHarnessError, type AgentHarnessErrorCode, isAgentHarnessError } from "./harness/errors.js";
export type { AgentHarnessOptions } from "./harness/harness-options.js";
export type { HarnessEvent } from "./harness/hooks.js";
export {
  type ReplaySessionOptions,
  recordingOfSession,
  replaySession,
  type SessionReplay,
} from "./harness/replay-session.js";
export type { PromptTemplate } from "./harness/resources/prompt-templates.js";
export type { HarnessResources } from "./harness/resources/resource-set.js";
export type { Skill } from "./harness/resources/skill-types.js";
export type { SystemPromptOption } from "./harness/resources/system-prompt.js";
export type { ToolCallDecision } from "./harness/resume-run.js";
export type { RetryPolicy } from "./harness/retry-policy.js";
export type { PersistedHarness } from "./harness/snapshot.js";
export type { HarnessCompactResult, NavigateTreeResult } from "./harness/summaries.js";
export { activeHandoffOf } from "./loop/handoff-steps.js";
export { Recording } from "./replay/recording.js";
export { RecordingError } from "./replay/recording-format.js";
export type { SessionEntry } from "./storage/entries.js";
export { MemorySessionRepo } from "./storage/memory-session-repo.js";
export { Session } from "./storage/session.js";
export type {
  CreateSessionOptions,
  ForkSessionOptions,
  OpenSessionOptions,
  SessionInfo,
  SessionRepo,
  WriteFault,
} from "./storage/session-repo.js";
export { defineAgentTool } from "./tools/define-agent-tool.js";
export { type ClientToolDefinition, defineClientTool } from "./tools/define-client-tool.js";
export { defineHandoff, type HandoffOptions } from "./tools/define-handoff.js";
export {
  defineJsonSchemaTool,
  InvalidToolSchemaError,
  type JsonSchemaObject,
  type JsonSchemaToolDefinition,
} from "./tools/define-json-schema-tool.js";
export { defineTool, type ToolDefinition, UnsupportedToolSchemaError } from "./tools/define-tool.js";
export type { AgentBudget } from "./types/budget.js";
export { BudgetError, type BudgetErrorCode, type BudgetExceeded } from "./types/budget.js";
export type { AgentEvent } from "./types/events.js";
export type { Guardrail, GuardrailContext, Guardrails, GuardrailVerdict } from "./types/guardrail.js";
export type {
  AfterToolCallContext,
  AfterToolCallResult,
  BeforeToolCallContext,
  BeforeToolCallResult,
} from "./types/loop.js";
export {
  type AgentMessage,
  type AssistantMessage,
  type CustomAgentMessages,
  emptyUsage,
  type ImageContent,
  type Message,
  type StopReason,
  type TextContent,
  type ThinkingContent,
  type ToolCall,
  type ToolResultMessage,
  type Usage,
  type UserMessage,
} from "./types/messages.js";
export type { Model, ModelInput, ThinkingLevel } from "./types/model.js";
export { getModel, UnknownModelError } from "./types/model-catalogue.js";
export { OutputValidationError, type RunResult } from "./types/output.js";
export { resolveModel } from "./types/resolve-model.js";
export { isSessionError, SessionError, type SessionErrorCode } from "./types/session-error.js";
export type { AssistantMessageEvent, LlmContext, StreamFn, StreamOptions } from "./types/stream.js";
export type { AgentToolOptions } from "./types/sub-agent.js";
export type { AgentTool, ToolExecutionContext, ToolResult } from "./types/tool.js";
export type { ToolSource } from "./types/tool-source.js";

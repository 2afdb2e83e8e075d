export {
  Agent,
  type AgentListener,
  type AgentOptions,
  type AgentPathOption,
  type AgentRestoreOptions,
  type PromptOptions,
} from "./agent/agent.js";
export { agentLoop, agentLoopContinue, createAgentLoopActor } from "./agent/agent-loop.js";
export type { RecordOption } from "./agent/agent-recording.js";
export {
  AGENT_SNAPSHOT_FORMAT,
  AGENT_SNAPSHOT_VERSION,
  type AgentActor,
  AgentRestoreError,
  type PersistedAgent,
  type PersistedAgentMachine,
  type PersistedChild,
} from "./agent/agent-snapshot.js";
export type { AgentMachineState, AgentState, RunBudgetState, WaitingToolCall } from "./agent/agent-state.js";
export { agentEvents$, agentState$ } from "./agent/agent-streams.js";
export {
  type AddressedCommand,
  type AgentAddress,
  type CallAddress,
  callKey,
} from "./commands/addressed-command.js";
export { CommandError, type CommandErrorCode, isCommandError } from "./commands/command-error.js";
export { type CommandFromOutside, parseAgentCommand } from "./commands/parse-command.js";
export type { AgentSurface } from "./harness/agent-surface.js";
export * from "./harness/index.js";
export {
  type ReplaySessionOptions,
  recordingOfSession,
  replaySession,
  type SessionReplay,
} from "./harness/replay-session.js";
export { activeHandoffOf } from "./loop/handoff-steps.js";
export { defaultConvertToLlm } from "./loop/messages.js";
export type {
  AgentMachineContext,
  AgentParentEvent,
  AgentSettings,
  QueueMode,
  QueueName,
  ToolCallOutcome,
} from "./machines/agent/agent.context.js";
export type { AgentCommand, AgentMachineEvent, ResumedCallState } from "./machines/agent/agent.events.js";
export type { AgentMachineOptions, SubAgentPlace } from "./machines/agent/agent.implementations.js";
export { type AgentMachineInput, agentMachine } from "./machines/agent/agent.machine.js";
export { type AgentMachine, createAgentMachine } from "./machines/agent/agent.provided.js";
export type { ToolCallContext } from "./machines/tool-call/tool-call.context.js";
export { toolCallMachine } from "./machines/tool-call/tool-call.machine.js";
export { Recording } from "./replay/recording.js";
export {
  type CanonicalRequest,
  RECORDING_FORMAT,
  RECORDING_FORMAT_VERSION,
  type RecordedCommand,
  type RecordedModelCall,
  type RecordedReplyEvent,
  type RecordedStep,
  type RecordedStepKind,
  type RecordedToolCall,
  type RecordingEntry,
  RecordingError,
  type RecordingHeader,
} from "./replay/recording-format.js";
export * from "./storage/index.js";
export { defineAgentTool } from "./tools/define-agent-tool.js";
export { type ClientToolDefinition, defineClientTool } from "./tools/define-client-tool.js";
export { defineHandoff, type HandoffOptions } from "./tools/define-handoff.js";
export {
  defineJsonSchemaTool,
  InvalidToolSchemaError,
  type JsonSchemaObject,
  type JsonSchemaToolDefinition,
} from "./tools/define-json-schema-tool.js";
export {
  defineTool,
  type ToolDefinition,
  toToolSpec,
  UnsupportedToolSchemaError,
} from "./tools/define-tool.js";
export * from "./types/index.js";

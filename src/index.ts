export { type AgentRuntime, createAgentRuntime } from "./actors/agent-runtime.js";
export {
  Agent,
  type AgentListener,
  type AgentOptions,
  type AgentPathOption,
  type AgentRestoreOptions,
  type PromptOptions,
} from "./agent/agent.js";
export { agentLoop, agentLoopContinue, createAgentLoopActor } from "./agent/agent-loop.js";
export {
  AGENT_SNAPSHOT_FORMAT,
  AGENT_SNAPSHOT_VERSION,
  type AgentActor,
  AgentRestoreError,
  type PersistedAgent,
  type PersistedAgentMachine,
  type PersistedChild,
} from "./agent/agent-snapshot.js";
export type { AgentState, WaitingToolCall } from "./agent/agent-state.js";
export * from "./harness/index.js";
export type {
  AgentMachineContext,
  AgentSettings,
  PersistableStreamOptions,
  QueueMode,
  QueueName,
  ToolCallOutcome,
} from "./loop/agent-context.js";
export type { AgentCommand } from "./loop/agent-events.js";
export { defaultConvertToLlm } from "./loop/messages.js";
export type { ResumedCallState } from "./loop/run-steps.js";
export { type AgentMachineEvent, type AgentMachineInput, agentMachine } from "./machines/agent.machine.js";
export { type ToolCallContext, toolCallMachine } from "./machines/tool-call.machine.js";
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

export { type AgentRuntime, createAgentRuntime } from "./actors/agent-runtime.js";
export type { StreamReplyInput, StreamReplyOutput } from "./actors/stream-reply.actor.js";
export type { ToolStepInput } from "./actors/tool-step.actors.js";
export { Agent, type AgentListener, type AgentOptions, type AgentRestoreOptions } from "./agent/agent.js";
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
export type { AgentState } from "./agent/agent-state.js";
export * from "./harness/index.js";
export type {
  AgentMachineContext,
  AgentSettings,
  InboxMessage,
  PersistableStreamOptions,
  QueueMode,
  QueueName,
  RunState,
  ToolBatch,
  ToolCallOutcome,
  ToolCallPhase,
} from "./loop/agent-context.js";
export type { AgentCommand } from "./loop/agent-events.js";
export type { NextTurnPlan, TurnCallbacksAnswer, TurnCallbacksInput } from "./loop/between-turns.js";
export { defaultConvertToLlm } from "./loop/messages.js";
export {
  type AgentInternalEvent,
  type AgentMachineEvent,
  type AgentMachineInput,
  agentMachine,
} from "./machines/agent.machine.js";
export type { PendingWrite, SessionWriterContext } from "./machines/session.machine.js";
export {
  type ToolAwaitingEvent,
  type ToolCallContext,
  type ToolCallEvent,
  type ToolCallInput,
  type ToolPreparedEvent,
  toolCallMachine,
} from "./machines/tool-call.machine.js";
export * from "./storage/index.js";
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

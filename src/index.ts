export type { StreamReplyInput, StreamReplyOutput } from "./actors/stream-reply.actor.js";
export { Agent, type AgentListener, type AgentOptions } from "./agent/agent.js";
export type { AgentState } from "./agent/agent-state.js";
export type { QueueMode } from "./agent/message-queues.js";
export * from "./harness/index.js";
export {
  type AgentLoopActor,
  agentLoop,
  agentLoopContinue,
  createAgentLoopActor,
} from "./loop/agent-loop.js";
export type { BetweenTurnsDecision, BetweenTurnsInput } from "./loop/between-turns.js";
export type { AgentLoopContext, AgentLoopInput } from "./loop/loop-context.js";
export { defaultConvertToLlm } from "./loop/messages.js";
export type { ToolBatch, ToolCallPhase } from "./loop/tool-batch.js";
export type { PreflightOutput, ToolCallInput, ToolCallOutcome } from "./loop/tool-call-steps.js";
export { type AgentLoopEvent, agentLoopMachine } from "./machines/agent-loop.machine.js";
export type { PendingWrite, SessionWriterContext } from "./machines/session.machine.js";
export {
  type ToolAwaitingApprovalEvent,
  type ToolCallContext,
  type ToolCallEvent,
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
export { defineTool, type ToolDefinition, toToolSpec } from "./tools/define-tool.js";
export * from "./types/index.js";

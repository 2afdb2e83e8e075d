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
export type { AgentLoopInput } from "./loop/loop-context.js";
export { defaultConvertToLlm } from "./loop/messages.js";
export type { ToolCallOutcome } from "./loop/tool-call-steps.js";
export { type AgentLoopEvent, agentLoopMachine } from "./machines/agent-loop.machine.js";
export { type ToolCallEvent, toolCallMachine } from "./machines/tool-call.machine.js";
export * from "./storage/index.js";
export { defineTool, type ToolDefinition, toToolSpec } from "./tools/define-tool.js";
export * from "./types/index.js";

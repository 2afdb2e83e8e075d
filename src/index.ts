export type { ToolCallOutcome } from "./actors/tool-call.actors.js";
export {
  type AgentLoopActor,
  agentLoop,
  agentLoopContinue,
  createAgentLoopActor,
} from "./loop/agent-loop.js";
export type { AgentLoopInput } from "./loop/loop-context.js";
export { type AgentLoopEvent, agentLoopMachine } from "./machines/agent-loop.machine.js";
export { type ToolCallEvent, toolCallMachine } from "./machines/tool-call.machine.js";
export { defineTool, type ToolDefinition, toToolSpec } from "./tools/define-tool.js";
export * from "./types/index.js";

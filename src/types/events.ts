import type { AgentMessage, AssistantMessage, ToolResultMessage } from "./messages.js";
import type { AssistantMessageEvent } from "./stream.js";
import type { ToolResult } from "./tool.js";

/** Events of one agent run, in the order described in docs/concepts.md (pi-compatible). */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: AgentMessage[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; message: AssistantMessage; assistantMessageEvent: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: unknown }
  | {
      type: "tool_execution_update";
      toolCallId: string;
      toolName: string;
      args: unknown;
      partialResult: unknown;
    }
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: ToolResult; isError: boolean }
  | { type: "tool_approval_request"; toolCallId: string; toolName: string; args: unknown }
  /** A call of a client tool (no `execute`) waits for `agent.answerToolCall(toolCallId, result)`. */
  | { type: "tool_client_request"; toolCallId: string; toolName: string; args: unknown }
  /** A restored agent goes on with a run it was persisted in the middle of (agentchart). */
  | { type: "agent_resume"; from: "preparingTurn" | "streaming" | "executingTools" };

export type AgentEventType = AgentEvent["type"];

import type { AgentEvent } from "../types/events.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { AgentTool } from "../types/tool.js";

/** A read-only view of the Agent's state. */
export interface AgentState {
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
  tools: readonly AgentTool[];
  messages: readonly AgentMessage[];
  /** True from run start until `agent_end` and its async listeners have settled. */
  isStreaming: boolean;
  /** The assistant message being streamed, while it streams. */
  streamingMessage: AssistantMessage | undefined;
  /** Ids of tool calls that started and have not ended. */
  pendingToolCalls: ReadonlySet<string>;
  /** The error of the last failed turn of the current/last run. */
  errorMessage: string | undefined;
}

/** Applies an AgentEvent to the state in place; returns whether observers of `state$` should hear of it. */
export function reduceAgentState(
  state: AgentState & { messages: AgentMessage[] },
  event: AgentEvent,
): boolean {
  switch (event.type) {
    case "message_start":
      if ((event.message as AssistantMessage).role === "assistant") {
        state.streamingMessage = event.message as AssistantMessage;
      }
      return true;
    case "message_update":
      state.streamingMessage = event.message;
      return false;
    case "message_end":
      state.streamingMessage = undefined;
      // The loop appends to the Agent's own array (appendInPlace); only a run whose context was
      // replaced by prepareNextTurn leaves the Agent to append itself.
      if (state.messages.at(-1) !== event.message) state.messages.push(event.message);
      return true;
    case "tool_execution_start":
      state.pendingToolCalls = new Set(state.pendingToolCalls).add(event.toolCallId);
      return true;
    case "tool_execution_end": {
      const pending = new Set(state.pendingToolCalls);
      pending.delete(event.toolCallId);
      state.pendingToolCalls = pending;
      return true;
    }
    case "turn_end":
      if (event.message.errorMessage !== undefined) state.errorMessage = event.message.errorMessage;
      return true;
    case "agent_end":
      state.streamingMessage = undefined;
      return true;
    default:
      return false;
  }
}

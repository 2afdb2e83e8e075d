import type { BudgetExceeded, BudgetUsage } from "./budget.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "./messages.js";
import type { GuardrailTrip, OutputIssue, RunStopReason } from "./output.js";
import type { AssistantMessageEvent } from "./stream.js";
import type { ToolResult } from "./tool.js";

/**
 * Events of one agent run, in the order described in docs/concepts.md (pi-compatible). An event of a
 * sub-agent reaches its ancestors' listeners with `agentPath`: the tool call ids from the root down to
 * the agent that emitted it (see docs/subagents.md); an agent's own events have none.
 */
export type AgentEvent = OwnAgentEvent & { agentPath?: string[] };

/** An AgentEvent as the agent that emits it makes it (without `agentPath`). */
export type OwnAgentEvent =
  | { type: "agent_start" }
  | {
      type: "agent_end";
      messages: AgentMessage[];
      /** How the run ended (see `RunStopReason`). */
      stopReason: RunStopReason;
      /** The validated output of a run that expected typed output. */
      output?: unknown;
      /** The output never validated (`stopReason: "error"`): the last attempt's issues and raw text. */
      outputFailure?: { issues: OutputIssue[]; raw: string };
      /** The guardrail that tripped (`stopReason: "guardrail"`). */
      guardrail?: GuardrailTrip;
      /** What the run used against its budget (a run with a budget). */
      budgetUsage?: BudgetUsage;
    }
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
  /** The typed output parsed so far from the streaming reply (its JSON text, or the final-answer arguments). */
  | { type: "output_delta"; partial: unknown }
  /** A guardrail tripped: the run ends with `stopReason: "guardrail"` (nothing of a tripped reply is released). */
  | ({ type: "guardrail_tripped" } & GuardrailTrip)
  /**
   * A handoff tool's batch settled: from the next request on, the agent is `to` (its system prompt,
   * tools and model); `from` is the agent that handed off (`undefined`: the agent as it was built).
   */
  | { type: "handoff"; from: string | undefined; to: string }
  /**
   * A call would go past a limit of the run's budget (`action`: the run pauses, stops, or — `warn` —
   * goes on); see docs/budgets.md.
   */
  | ({ type: "budget_exceeded" } & BudgetExceeded)
  /**
   * A loop breaker (`maxIdenticalCalls`, `maxFailedRepeats`, `maxRepeatedReplies`) holds a call: the same
   * choice as `budget_exceeded`; when the run goes on, the model is told why (a user message).
   */
  | ({ type: "loop_detected" } & BudgetExceeded)
  /** A restored agent goes on with a run it was persisted in the middle of (agentchart). */
  | { type: "agent_resume"; from: "preparingTurn" | "streaming" | "validatingOutput" | "executingTools" };

export type AgentEventType = AgentEvent["type"];

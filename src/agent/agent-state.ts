import type { AgentBudget, BudgetExceeded, BudgetPause, BudgetUsage } from "../types/budget.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { AgentTool } from "../types/tool.js";

/** A read-only view of the Agent's state. */
export interface AgentState extends Omit<AgentMachineState, "toolNames"> {
  tools: readonly AgentTool[];
}

/** The state of any agent actor, as data (`agentState$`): what `AgentState` is, with tools by name. */
export interface AgentMachineState {
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
  /** The active tools, by name. */
  toolNames: readonly string[];
  messages: readonly AgentMessage[];
  /** True while a run is on (the machine's `busy` tag: from `agent_start` to `agent_end`). */
  isStreaming: boolean;
  /** The assistant message being streamed, while it streams. */
  streamingMessage: AssistantMessage | undefined;
  /** Ids of tool calls that started and have not ended. */
  pendingToolCalls: ReadonlySet<string>;
  /** The error of the last failed turn of the current/last run. */
  errorMessage: string | undefined;
  /**
   * Calls waiting for `approveToolCall` / `denyToolCall`, in source order (also right after a restore),
   * sub-agents' calls included (with their `agentPath`).
   */
  awaitingApproval: readonly WaitingToolCall[];
  /** Calls of client tools waiting for `answerToolCall`, in source order (also right after a restore). */
  awaitingClient: readonly WaitingToolCall[];
  /**
   * Runs waiting at a budget limit or a loop breaker — this agent's and its sub-agents' at every depth
   * (with their `agentPath`), each sub-agent's after its parent's — for `RAISE_BUDGET` / `CONTINUE_ONCE`.
   */
  awaitingBudget: readonly BudgetPause[];
  /** The agent a handoff made active (`defineHandoff`); `undefined`: the agent as it was built. */
  activeAgent: string | undefined;
  /**
   * The current run's budget: its limits (raised ones included), what it used, and the limit it waits
   * at (`paused`, `raiseBudget` or `continuePastBudget` go on); `undefined`: no run, or no budget.
   */
  budget: RunBudgetState | undefined;
}

/** A run's budget as `agent.state` shows it. */
export interface RunBudgetState {
  limits: AgentBudget;
  usage: BudgetUsage;
  paused: BudgetExceeded | undefined;
}

/** A tool call waiting for a person (approval) or a client (a client tool's result). */
export interface WaitingToolCall {
  toolCallId: string;
  toolName: string;
  /** The validated arguments. */
  args: unknown;
  /** The call belongs to a sub-agent: the tool call ids from this agent down to it. */
  agentPath?: string[];
}

/** What the Agent follows from the event stream rather than the machine: the live reply and open calls. */
export interface LiveProgress {
  streamingMessage: AssistantMessage | undefined;
  pendingToolCalls: ReadonlySet<string>;
}

/** Applies an AgentEvent to the live progress; returns whether observers of `state$` should hear of it. */
export function reduceLiveProgress(progress: LiveProgress, event: AgentEvent): boolean {
  switch (event.type) {
    case "message_start":
      if ((event.message as AssistantMessage).role === "assistant")
        progress.streamingMessage = event.message as AssistantMessage;
      return true;
    case "message_update":
      progress.streamingMessage = event.message;
      return false;
    case "message_end":
      progress.streamingMessage = undefined;
      return true;
    case "tool_execution_start":
      progress.pendingToolCalls = new Set(progress.pendingToolCalls).add(event.toolCallId);
      return true;
    case "tool_execution_end": {
      const pending = new Set(progress.pendingToolCalls);
      pending.delete(event.toolCallId);
      progress.pendingToolCalls = pending;
      return true;
    }
    case "agent_end":
      progress.streamingMessage = undefined;
      return true;
    default:
      return event.type === "turn_end" || event.type === "agent_start";
  }
}

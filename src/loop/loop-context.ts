import type { AgentContext, AgentEventSink, AgentLoopConfig } from "../types/loop.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { ToolBatch } from "./tool-batch.js";

/** Input of `agentLoopMachine`. */
export interface AgentLoopInput {
  /** New messages that start the run (empty for a continue-run). */
  prompts: AgentMessage[];
  context: AgentContext;
  config: AgentLoopConfig;
  /** Receives every AgentEvent synchronously, in order. */
  sink: AgentEventSink;
  /**
   * Append the run's messages to `context.messages` itself instead of to a copy, so a run costs the
   * same with 10 or 10,000 messages of history. The caller hands the array to the run until it ends.
   */
  appendInPlace?: boolean;
}

/**
 * The loop's context. `context.messages`, `newMessages` and `batch` belong to the run and are appended
 * to in place (a run never copies its history per turn, so a turn costs the same with 10 or 10,000
 * messages); everything else changes through transitions.
 */
export interface AgentLoopContext {
  config: AgentLoopConfig;
  sink: AgentEventSink;
  controller: AbortController;
  model: Model;
  thinkingLevel: ThinkingLevel;
  context: AgentContext;
  prompts: AgentMessage[];
  newMessages: AgentMessage[];
  /** Messages to inject at the start of the next turn. */
  pending: AgentMessage[];
  turns: number;
  /** `turn_start` was emitted and its `turn_end` not yet. */
  turnOpen: boolean;
  batch: ToolBatch | undefined;
  lastTurn: { message: AssistantMessage; toolResults: ToolResultMessage[] } | undefined;
  /** The last turn ran tools and their batch did not ask to terminate. */
  toolsWantReply: boolean;
}

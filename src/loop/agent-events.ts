import type { AgentMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { PersistableStreamOptions, QueueName } from "./agent-context.js";

/** The events `agentMachine` accepts from outside: everything the `Agent` class does is one of them. */
export type AgentCommand =
  /** Starts a run with new messages (idle only). */
  | { type: "PROMPT"; messages: AgentMessage[] }
  /**
   * Starts a run from the transcript (idle only): after a user or tool result message, asks the model
   * again; after an assistant message, runs the next queued steering (or else follow-up) message.
   */
  | { type: "CONTINUE" }
  | { type: "STEER"; message: AgentMessage }
  | { type: "FOLLOW_UP"; message: AgentMessage }
  | { type: "CLEAR_QUEUES"; queue?: QueueName }
  /** Ends the current run in any state (every tool call answered, `agent_end`); ignored when idle. */
  | { type: "ABORT" }
  | { type: "APPROVE_TOOL"; toolCallId: string }
  | { type: "DENY_TOOL"; toolCallId: string; reason?: string }
  /** Clears transcript, queues and error (idle only). */
  | { type: "RESET" }
  | { type: "SET_MODEL"; model: Model }
  | { type: "SET_THINKING_LEVEL"; thinkingLevel: ThinkingLevel }
  | { type: "SET_SYSTEM_PROMPT"; systemPrompt: string }
  /** Active tools by name; their implementations must be in the runtime. */
  | { type: "SET_TOOLS"; toolNames: string[] }
  /** Replaces the transcript (idle only). */
  | { type: "SET_MESSAGES"; messages: AgentMessage[] }
  | { type: "SET_STREAM_OPTIONS"; streamOptions: PersistableStreamOptions }
  /**
   * Sent by `Agent.restore` to a restored actor that was mid-run: re-decides, re-streams or resumes its
   * tool calls. `interrupted` calls (executing, tool `replay: "never"`) get an interruption result.
   */
  | { type: "RESUME"; interrupted: string[] };

import type { ToolResult } from "../../types/tool.js";
import type { ToolCallOutcome } from "../agent/agent.context.js";
import type { SubAgentEnd, SubAgentStart } from "./tool-call.context.js";

// The events of a tool call actor: what it accepts (`ToolCallEvent`) and what it tells its agent.

/** What the validation step found (sent to the call by its `validate` entry action). */
export interface ToolValidatedEvent {
  type: "VALIDATED";
  args: unknown;
  needsApproval: boolean;
  beforeHook: boolean;
  afterHook: boolean;
  client: boolean;
  agentTool: boolean;
}

/** What the `prepareSubAgent` actor sends back when the child may start. */
export interface SubAgentReadyEvent {
  type: "SUB_AGENT_READY";
  start: SubAgentStart;
}

/** Sent by a child agent (an agent tool's) to its call when its run ended. */
export interface SubAgentEndedEvent {
  type: "SUB_AGENT_ENDED";
  end: SubAgentEnd;
  errorMessage: string | undefined;
}

export type ToolCallEvent =
  | { type: "EXECUTE" }
  | { type: "APPROVE" }
  | { type: "DENY"; reason?: string }
  /** The client's answer to a call of a client tool. */
  | { type: "ANSWER"; result: ToolResult; isError?: boolean }
  /** After a restore: re-enters a state whose invoked actor was not persisted (preparing, executing, finalizing). */
  | { type: "RESUME" }
  /** After a restore: a call waiting for a decision or the client announces itself again. */
  | { type: "REANNOUNCE" }
  | ToolValidatedEvent
  | { type: "REJECTED"; outcome: ToolCallOutcome }
  | SubAgentReadyEvent
  | SubAgentEndedEvent
  /** The agent ends the batch (abort, failure): a call running a child agent aborts it first. */
  | { type: "ABORT" };

/** Sent to the parent agent when the preflight passed and the call waits for `EXECUTE`. */
export interface ToolPreparedEvent {
  type: "TOOL_PREPARED";
  toolCallId: string;
}

/** Sent to the parent agent once the call waits for a decision (`awaitingApproval`) or the client (`awaitingClient`). */
export interface ToolAwaitingEvent {
  type: "TOOL_AWAITING_APPROVAL" | "TOOL_AWAITING_CLIENT";
  toolCallId: string;
  toolName: string;
  args: unknown;
}

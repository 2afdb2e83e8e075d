import type { BudgetReservation, ReservationAnswer } from "../../types/budget.js";
import type { AgentEvent } from "../../types/events.js";
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
  | AgentEventsEvent
  | ReserveEvent
  | ReservationEvent
  | ExecutionEvent
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

/** Sent by a child agent to its call: events it emitted (its own and its descendants'), in order. */
export interface AgentEventsEvent {
  type: "AGENT_EVENTS";
  events: AgentEvent[];
}

/** Sent to the parent agent: progress of an executing tool (it emits `tool_execution_update`). */
export interface ToolUpdateEvent {
  type: "TOOL_UPDATE";
  toolCallId: string;
  toolName: string;
  args: unknown;
  partialResult: unknown;
}

/** Sent to the parent agent: the events of the child agent this call runs (`AGENT_EVENTS`), with the call. */
export interface SubAgentEventsEvent {
  type: "SUB_AGENT_EVENTS";
  toolCallId: string;
  toolName: string;
  args: unknown;
  events: AgentEvent[];
}

/** What the `executeTool` actor sends its call: progress of the tool, then its outcome. */
export type ExecutionEvent =
  | { type: "TOOL_PROGRESS"; partialResult: unknown }
  | { type: "TOOL_EXECUTED"; outcome: ToolCallOutcome };

/** Sent by a child agent to its call: a call of its (or of one below it) to reserve with the ancestors. */
export interface ReserveEvent {
  type: "RESERVE";
  reservation: BudgetReservation;
}

/**
 * An ancestor's answer to a reservation, on its way down: to the agent at the end of `path` (the tool
 * call ids from the receiving agent down; empty: the receiving agent's own).
 */
export interface ReservationEvent {
  type: "RESERVATION";
  path: string[];
  answer: ReservationAnswer;
}

/** Sent to the parent agent: a reservation of the child agent this call runs (`RESERVE`), with the call. */
export interface SubAgentReserveEvent {
  type: "SUB_AGENT_RESERVE";
  toolCallId: string;
  reservation: BudgetReservation;
}

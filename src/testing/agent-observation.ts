import type { SnapshotFrom } from "xstate";
import type { AgentMachine } from "../machines/agent/agent.provided.js";
import type { AgentEvent } from "../types/events.js";

/** A tool's `execute` the real agent started during a path, and whether the test had approved its call. */
export interface ToolExecutionRecord {
  toolCallId: string;
  toolName: string;
  /** The call needed approval (its tool requires it for these arguments). */
  needsApproval: boolean;
  /** The test had sent `APPROVE_TOOL` for the call when `execute` started. */
  approved: boolean;
  /** The test had sent `DENY_TOOL` for the call when `execute` started. */
  denied: boolean;
}

/** A text delta a subscriber of the agent received, with what had happened before it arrived. */
export interface TextDeltaRecord {
  /** Output guardrail verdicts `pass` the test had given when it arrived. */
  passesBefore: number;
  /** Assistant `message_start` events the subscriber had received when it arrived (this reply's included). */
  repliesBefore: number;
}

/**
 * What an invariant sees after each step of a path: the real agent's snapshot and everything the
 * kit recorded of the run so far.
 */
export interface AgentTestObservation {
  /** The agent actor's snapshot after the step settled. */
  snapshot: SnapshotFrom<AgentMachine>;
  /** Every event the agent's subscriber (`actor.on("*")`) received, in order. */
  events: readonly AgentEvent[];
  /** Every start of a tool's `execute`. */
  executions: readonly ToolExecutionRecord[];
  /** Every text delta the subscriber received. */
  textDeltas: readonly TextDeltaRecord[];
  /** The agent has output guardrails (text is held until they pass). */
  guardrails: boolean;
  /** The path's steps so far, by name (`PROMPT`, `approve call_1`, …). */
  steps: readonly string[];
  /** The path is over and the run ended (the last check of a path). */
  ended: boolean;
}

/**
 * A property every step of every path must keep. `check` returns why it broke (shown in the failing
 * test), or nothing when it holds.
 */
export interface AgentInvariant {
  name: string;
  check(observation: AgentTestObservation): string | undefined;
}

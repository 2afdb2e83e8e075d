import type { Observable } from "rxjs";
import type { AgentPathOption } from "../agent/agent.js";
import type { HarnessEvent } from "../harness/hooks.js";
import type { HarnessPhase } from "../machines/harness/harness.machine.js";
import type { Session } from "../storage/session.js";
import type { BudgetLimits } from "../types/budget.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";

/** What `/compact` got: a summary, or why nothing was compacted. */
export type CompactOutcome =
  | { compacted: true; summary: string; tokensBefore: number }
  | { compacted: false; reason: string };

/** What `/tree <entry>` did: where the session now is, and the text of a user message navigated into. */
export interface NavigateOutcome {
  leafId: string | null;
  editorText?: string;
}

/**
 * What the CLI needs from "an agent with a session": the REPL, the one-shot mode and `--json` only
 * talk to this interface. `createHarnessRunner` implements it with `AgentHarness`.
 */
export interface AgentRunner {
  /** Every AgentEvent of every run, plus the harness's own events (retries, compactions…). */
  readonly events$: Observable<HarnessEvent>;
  /** The harness phase (`idle | turn | compaction | branchSummary | retry`), now and on every change. */
  readonly phase$: Observable<HarnessPhase>;
  /** The session every message and setting change is persisted to; `undefined` with `--no-session`. */
  readonly session: Session | undefined;
  readonly model: Model;
  readonly thinkingLevel: ThinkingLevel;
  /** The transcript the next prompt continues. */
  readonly messages: readonly AgentMessage[];
  /** True unless idle: a turn, a retry wait, a compaction or a navigation is running. */
  readonly isRunning: boolean;
  /**
   * Runs one prompt to the end (tool calls, retries and compactions included) and resolves with the
   * last assistant message, once it is persisted. Provider and tool failures do not reject; they are
   * in the message. Rejects while busy, or when the session cannot be written.
   */
  prompt(text: string): Promise<AssistantMessage>;
  /** Runs a prompt made of a loaded skill (and `extra` after it). Rejects for an unknown skill. */
  skill(name: string, extra?: string): Promise<AssistantMessage>;
  /** Queues a message for the running turn (delivered after the current tool batch). */
  steer(text: string): void;
  /**
   * Lets a tool call that waits for approval (`tool_approval_request`) run; a sub-agent's call with
   * the request's `agentPath`.
   */
  approveToolCall(toolCallId: string, options?: AgentPathOption): void;
  /** Gives a tool call that waits for approval (a sub-agent's: with its `agentPath`) an error result with `reason`. */
  denyToolCall(toolCallId: string, reason?: string, options?: AgentPathOption): void;
  /** Raises limits of the run waiting at a budget limit (a sub-agent's: with its `agentPath`); see `Agent.raiseBudget`. */
  raiseBudget(limits: BudgetLimits, options?: AgentPathOption): void;
  /** Lets the call a budget limit holds go ahead once; see `Agent.continuePastBudget`. */
  continuePastBudget(options?: AgentPathOption): void;
  /** Aborts what runs (no-op when idle); `prompt` then resolves with an aborted message. */
  abort(): void;
  /** Summarises the older part of the branch into a compaction entry (`instructions`: extra focus). */
  compact(instructions?: string): Promise<CompactOutcome>;
  /** Moves the session to another entry of its tree (the next prompt continues from there). */
  navigate(entryId: string): Promise<NavigateOutcome>;
  /** Switches the model for the next request and records the change in the session. */
  setModel(model: Model): Promise<void>;
  /** Switches the thinking level and records the change in the session. */
  setThinkingLevel(level: ThinkingLevel): Promise<void>;
  /**
   * Forks the session at `entryId` (default: the current leaf) into a new session and continues in
   * it. Rejects without a session.
   */
  fork(entryId?: string): Promise<Session>;
  /** Aborts what runs, waits for the session writes, closes the session (releasing its lock). Idempotent. */
  close(): Promise<void>;
}

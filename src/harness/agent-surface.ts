import type { Observable } from "rxjs";
import type { PersistedAgent } from "../agent/agent-snapshot.js";
import type { AgentState } from "../agent/agent-state.js";
import type { AddressedCommand } from "../commands/addressed-command.js";
import type { AgentMessage, ImageContent } from "../types/messages.js";
import type { RunResult } from "../types/output.js";
import type { AgentTool } from "../types/tool.js";
import type { HarnessEvent } from "./hooks.js";
import type { PersistedHarness } from "./snapshot.js";

/**
 * What an `Agent` and an `AgentHarness` both are to a room that drives one — the AG-UI endpoint, the
 * CLI, OpenTelemetry tracing, a PostgreSQL worker: commands in, events and state out. A harness is "an
 * agent with a session and resources" (the harness declares it; an Agent matches it structurally, which
 * test/harness/agent-surface.test.ts checks); where they differ (the harness persists to its session, runs
 * hooks, retries and compacts) a room that needs it takes `AgentHarness` itself.
 *
 * ```ts
 * function approveAll(target: AgentSurface): void {
 *   for (const call of target.state.awaitingApproval)
 *     target.send({ type: "APPROVE_TOOL", toolCallId: call.toolCallId, ...(call.agentPath ? { agentPath: call.agentPath } : {}) });
 * }
 * ```
 */
export interface AgentSurface {
  /**
   * Sends a command to the agent or a sub-agent at any depth (`command.agentPath`); throws
   * `CommandError` when it cannot apply (see `Agent.send`).
   */
  send(command: AddressedCommand): void;
  /** Runs a prompt; resolves when the run ends (provider and tool failures are in the result). */
  prompt(text: string, options?: { images?: ImageContent[] }): Promise<RunResult>;
  /** Every event of every run, sub-agents' included (with their `agentPath`); a harness adds its own. */
  readonly events$: Observable<HarnessEvent>;
  /** The state now: transcript, active tools, calls waiting at every depth, budget, queues' effect. */
  readonly state: AgentState;
  /** The messages queued by `STEER` and `FOLLOW_UP`, not delivered yet (the same object until they change). */
  readonly queued: { steering: readonly AgentMessage[]; followUp: readonly AgentMessage[] };
  /** True while something runs (a run; for a harness also a retry wait, a compaction, a navigation). */
  readonly isRunning: boolean;
  /** Settles once nothing runs. */
  waitForIdle(): Promise<void>;
  /** The whole state as JSON-safe data, to restore in this or another process. */
  persist(): PersistedAgent | PersistedHarness;
  /** Every tool the agent has, active or not (`state.tools`: the active ones). */
  readonly tools: readonly AgentTool[];
  /** Replaces the tools; `activeToolNames` (default: all) are the ones the model sees. */
  setTools(tools: AgentTool[], activeToolNames?: string[]): void;
  /** Aborts what runs; does nothing when idle. */
  abort(): void;
}

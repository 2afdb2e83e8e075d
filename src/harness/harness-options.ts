import type { InspectionEvent, Observer } from "xstate";
import type { RecordOption } from "../agent/agent-recording.js";
import type { QueueMode } from "../machines/agent/agent.context.js";
import type { Session } from "../storage/session.js";
import type { SessionRepo } from "../storage/session-repo.js";
import type { AgentBudget } from "../types/budget.js";
import type { Guardrails } from "../types/guardrail.js";
import type { ModelInput, ThinkingLevel } from "../types/model.js";
import type { StreamFn } from "../types/stream.js";
import type { AgentTool } from "../types/tool.js";
import type { ToolSource } from "../types/tool-source.js";
import type { CompactionPort, CompactionSettings } from "./compaction/port.js";
import type { HarnessStreamOptions } from "./hooks.js";
import type { HarnessResources } from "./resources/resource-set.js";
import type { SystemPromptOption } from "./resources/system-prompt.js";
import type { RetryPolicy } from "./retry-policy.js";

/** Options of `new AgentHarness(...)`. */
export interface AgentHarnessOptions {
  /** The open session: the transcript comes from `session.buildContext()`; everything is appended to it. */
  session: Session;
  /**
   * The repo `session` is stored in: each sub-agent's transcript (the child agent of an agent tool call)
   * is then recorded as its own session there, linked to its parent (see docs/harness.md, "Sub-agents in
   * a harness"). Without it sub-agents run as usual, unrecorded.
   */
  sessionRepo?: SessionRepo;
  /** A Model, a record with at least `id`, or a catalogue id such as "gpt-4.1-mini" (see `resolveModel`). */
  model: ModelInput;
  streamFn: StreamFn;
  /** Default: the session's last thinking level. */
  thinkingLevel?: ThinkingLevel;
  /** Names must be unique. */
  tools?: AgentTool[];
  /**
   * Tools that come and go, listed after `tools` — e.g. `await connectMcpServers(config)` from
   * `agentchart/mcp`. Their changes are applied when the harness is idle, never during a run.
   */
  toolSources?: ToolSource[];
  /** Default: the session's last active tools that still exist, else all tools. Unique, known names. */
  activeToolNames?: string[];
  resources?: Partial<HarnessResources>;
  /** Default "You are a helpful assistant." (+ the visible skills); see `resolveSystemPrompt`. */
  systemPrompt?: SystemPromptOption;
  /** Passed to every tool's `execute` as `context`; a function is called at the start of every run. */
  toolContext?: unknown;
  /** Timeout, retries, headers, metadata…; patched per request by `before_provider_request`. */
  streamOptions?: HarnessStreamOptions;
  /** Turn-level retry of transient provider errors (default 3 retries, 2 s doubling, 30 s cap). */
  retry?: Partial<RetryPolicy>;
  compaction?: Partial<CompactionSettings>;
  /** The compaction/branch-summary implementation (default: `defaultCompactionPort`). */
  compactionPort?: CompactionPort;
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  toolExecution?: "parallel" | "sequential";
  /** Receives errors thrown by observed-event handlers and listeners (default `console.error`). */
  onHandlerError?: (error: unknown, eventType: string) => void;
  /** XState inspection observer of the harness's actor system: the harness machine, its agent (and the agent's tool calls and sub-agents), its session actor. */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** Input and output guardrails of every run (see docs/output-and-guardrails.md). */
  guardrails?: Guardrails;
  /** The budget of every turn's run: limits and what happens at each (see docs/budgets.md). */
  budget?: AgentBudget;
  /**
   * Records the agent's runs (`harness.recording`, see docs/replay.md): `true` for a new recording, or a
   * `Recording` to fill — with `createHarnessMachine`, give a `Recording` here and `recording.inspect`
   * to `createActor` (the harness does both itself).
   */
  record?: RecordOption;
}

import type { z } from "zod";
import type { AgentBudget } from "./budget.js";
import type { Guardrails } from "./guardrail.js";
import type { AgentCallbacks } from "./loop.js";
import type { AgentMessage } from "./messages.js";
import type { Model, ThinkingLevel } from "./model.js";
import type { RunResult } from "./output.js";
import type { StreamFn } from "./stream.js";
import type { AgentTool, ToolResult } from "./tool.js";

/**
 * The agent a sub-agent call runs: what `new Agent(...)` would take, minus the transcript. Left out,
 * `model` and `streamFn` are the calling agent's; `maxTurns` defaults to `DEFAULT_SUB_AGENT_MAX_TURNS`.
 */
export interface SubAgentSpec extends Partial<AgentCallbacks> {
  /** The child's model (default: the calling agent's current model). */
  model?: Model;
  /** The child's StreamFn (default: the calling agent's). */
  streamFn?: StreamFn;
  systemPrompt?: string;
  thinkingLevel?: ThinkingLevel;
  /** The child's tools; agent tools among them make grandchildren. */
  tools?: AgentTool[];
  toolExecution?: "parallel" | "sequential";
  /** Turns the child may take (default `DEFAULT_SUB_AGENT_MAX_TURNS`: a child never loops forever). */
  maxTurns?: number;
  /** A zod schema: the child's run expects typed output, and the tool result is its JSON. */
  output?: z.ZodType;
  guardrails?: Guardrails;
  /** The budget of the child's run (see docs/budgets.md); its usage also counts in the parent's totals. */
  budget?: AgentBudget;
}

/** Turns a sub-agent takes at most unless its spec says otherwise. */
export const DEFAULT_SUB_AGENT_MAX_TURNS = 10;
/** How deep agent tools may nest by default: the root is depth 0, its children depth 1. */
export const DEFAULT_SUB_AGENT_MAX_DEPTH = 3;
/** How many sub-agents may run at once in one agent tree by default. */
export const DEFAULT_SUB_AGENT_MAX_CONCURRENT = 8;

/** Options of `defineAgentTool`. */
export interface AgentToolOptions<TParams extends z.ZodType = z.ZodType> {
  name: string;
  label?: string;
  description: string;
  /** The arguments' zod schema (default: `{ task: string }`). */
  parameters?: TParams;
  /**
   * The child agent: a spec, or a function of the call's validated arguments returning one.
   *
   * Contract: synchronous; called when the call starts and again when a persisted agent is restored
   * (so it must give the same tools for the same arguments). A throw is the call's error result.
   */
  agent: SubAgentSpec | ((args: z.output<TParams>) => SubAgentSpec);
  /**
   * The child's prompt from the arguments (default: the `task` or `prompt` string argument, else the
   * arguments as JSON). Contract: synchronous; a throw is the call's error result.
   */
  input?: (args: z.output<TParams>) => string | AgentMessage[];
  /**
   * The tool result from the child's run (default: its typed output as JSON, else its last assistant
   * text; a run that failed or was aborted is an error result). May be async; a throw is an error result.
   */
  output?: (result: RunResult) => ToolResult | string | Promise<ToolResult | string>;
  /** As `AgentTool.requiresApproval`: the call waits for approval before the child starts. */
  requiresApproval?: AgentTool["requiresApproval"];
  /** As `AgentTool.executionMode`. */
  executionMode?: AgentTool["executionMode"];
  /**
   * What a restore does with a call of this tool that was not yet delegating (its child never
   * started): a started child is persisted with the parent and always goes on where it was.
   */
  replay?: AgentTool["replay"];
  /** Deepest level this tool may start a child at (default `DEFAULT_SUB_AGENT_MAX_DEPTH`). */
  maxDepth?: number;
  /** Sub-agents running at once in the whole tree, beyond which this tool refuses (default 8). */
  maxConcurrent?: number;
}

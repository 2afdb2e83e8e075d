import type { z } from "zod";
import type { AgentMessage, ImageContent, TextContent, Usage } from "./messages.js";
import type { Model } from "./model.js";
import type { RunResult } from "./output.js";

/** What a tool returns; `terminate: true` on every result of a batch stops the loop after it. */
export interface ToolResult<TDetails = unknown> {
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  terminate?: boolean;
  /** Model usage spent producing this result (an agent tool: its child's whole run, descendants included). */
  usage?: Usage;
}

/** The second argument of a tool's `execute`. */
export interface ToolExecutionContext<TContext = unknown> {
  toolCallId: string;
  /** Aborted when the run is aborted; tools must stop promptly. */
  signal: AbortSignal;
  /** Reports progress (`tool_execution_update`); ignored once the tool has settled. */
  update: (partialResult: unknown) => void;
  /** The tool context supplied by the Agent/harness (e.g. `{cwd}`); `undefined` when none. */
  context: TContext;
  /**
   * The same for every execution of this tool call, across persist/restore: a tool with
   * `replay: "safe"` that is run again after a restore can use it to apply its effect once.
   */
  idempotencyKey: string;
}

/**
 * A tool the model can call, made with `defineTool`. `TArgs` is the validated argument type
 * (the output of `parameters`).
 */
// biome-ignore lint/suspicious/noExplicitAny: tools of different argument types share one array
export interface AgentTool<TArgs = any, TDetails = unknown, TContext = any> {
  name: string;
  label?: string;
  description: string;
  /** zod object schema of the arguments. */
  parameters: z.ZodType;
  /** JSON Schema sent to the model, computed once with `z.toJSONSchema`. */
  jsonSchema: Record<string, unknown>;
  /** "sequential" forces the whole batch this tool is in to run one call at a time. */
  executionMode?: "parallel" | "sequential";
  /** When true (or the function returns true for these args) the call waits for approval. */
  requiresApproval?: boolean | ((args: TArgs) => boolean);
  /** Reshapes raw (e.g. legacy) arguments before validation. */
  prepareArguments?: (rawArgs: unknown) => unknown;
  /**
   * What a restored agent does with a call of this tool that was executing when the agent was
   * persisted: `"safe"` (idempotent tools) runs it again with the same `idempotencyKey`; `"never"`
   * (the default) answers it with an error result saying it was interrupted and not re-run.
   */
  replay?: "never" | "safe";
  /**
   * A **client tool** (e.g. declared by a web page, made with `defineClientTool`): the agent never runs
   * it; its calls wait in `awaitingClient`, the agent emits `tool_client_request`, and
   * `agent.answerToolCall(id, result)` gives the result.
   */
  client?: boolean;
  /** An **agent tool** (made with `defineAgentTool`): the call runs a child agent, not `execute`. */
  subAgent?: SubAgentDefinition;
  /** A **handoff** (made with `defineHandoff`): after its batch, the run goes on as this agent. */
  handoff?: HandoffDefinition;
  execute: (args: TArgs, ctx: ToolExecutionContext<TContext>) => Promise<ToolResult<TDetails>>;
}

/**
 * What an agent tool carries besides the `AgentTool` fields (made by `defineAgentTool`, read by the
 * tool call machine). `agent` returns a `SubAgentSpec` (types/sub-agent.ts; typed loosely here so that
 * the tool types do not depend on the loop's).
 */
export interface SubAgentDefinition {
  agent: (args: unknown) => object;
  input: (args: unknown) => string | AgentMessage[];
  output: ((result: RunResult) => ToolResult | string | Promise<ToolResult | string>) | undefined;
  maxDepth: number;
  maxConcurrent: number;
}

/**
 * The agent a handoff transfers the run to (made by `defineHandoff`): after the batch of its call,
 * its system prompt, tools and model become the agent's (as data in the context).
 */
export interface HandoffDefinition {
  /** The target agent's name (the context's `activeAgent` once it took over). */
  agent: string;
  systemPrompt: string;
  tools: AgentTool[];
  /** The target's model (default: keep the current one). */
  model?: Model;
  /**
   * What the target's model sees of the transcript, at each of its requests (the transcript itself
   * keeps everything). Contract: may be async; a throw fails the model call like `transformContext`.
   */
  inputFilter?: (messages: AgentMessage[]) => AgentMessage[] | Promise<AgentMessage[]>;
}

/** The handoff a handoff tool's result records, as data (`details.handoff`): who took over, with what. */
export interface HandoffRecord {
  agent: string;
  systemPrompt: string;
  toolNames: string[];
  model?: Model;
}

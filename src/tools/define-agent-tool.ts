import { z } from "zod";
import type { AgentMessage } from "../types/messages.js";
import {
  type AgentToolOptions,
  DEFAULT_SUB_AGENT_MAX_CONCURRENT,
  DEFAULT_SUB_AGENT_MAX_DEPTH,
  type SubAgentSpec,
} from "../types/sub-agent.js";
import type { AgentTool } from "../types/tool.js";
import { defineTool } from "./define-tool.js";

const TASK = z.object({ task: z.string().describe("What the sub-agent should do, in full") });

/**
 * Defines an **agent tool**: calling it runs a child agent (an `agentMachine` actor invoked by the
 * call's actor) whose result becomes the tool result. The child's events reach the root's listeners
 * with `agentPath`; approvals, steering, abort and `persist()` reach it at any depth (docs/subagents.md).
 *
 * Contract: synchronous; throws as `defineTool` does (tool name, zod 4 schema) and a RangeError for a
 * `maxDepth` or `maxConcurrent` below 1. The tool's `execute` is never called by an agent; called
 * directly it rejects.
 *
 * ```ts
 * import { Agent } from "agentchart";
 * const researcher = defineAgentTool({
 *   name: "research", description: "Researches a question and answers it",
 *   agent: { systemPrompt: "You research.", tools },
 * });
 * const agent = new Agent({ model, streamFn, tools: [researcher] });
 * ```
 */
export function defineAgentTool<TParams extends z.ZodType = typeof TASK>(
  options: AgentToolOptions<TParams>,
): AgentTool<z.output<TParams>> {
  const maxDepth = options.maxDepth ?? DEFAULT_SUB_AGENT_MAX_DEPTH;
  const maxConcurrent = options.maxConcurrent ?? DEFAULT_SUB_AGENT_MAX_CONCURRENT;
  for (const [name, value] of [
    ["maxDepth", maxDepth],
    ["maxConcurrent", maxConcurrent],
  ] as const)
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`Agent tool "${options.name}": ${name} must be a whole number ≥ 1, got ${value}`);
  const spec = options.agent;
  const tool = defineTool({
    name: options.name,
    ...(options.label ? { label: options.label } : {}),
    description: options.description,
    parameters: (options.parameters ?? TASK) as z.ZodType,
    ...(options.executionMode ? { executionMode: options.executionMode } : {}),
    ...(options.requiresApproval !== undefined ? { requiresApproval: options.requiresApproval } : {}),
    ...(options.replay ? { replay: options.replay } : {}),
    execute: () =>
      Promise.reject(
        new Error(
          `"${options.name}" is an agent tool: it runs as a child agent of an Agent, not by execute()`,
        ),
      ),
  });
  return {
    ...tool,
    subAgent: {
      agent: typeof spec === "function" ? (spec as (args: unknown) => SubAgentSpec) : () => spec,
      input: (options.input as ((args: unknown) => string | AgentMessage[]) | undefined) ?? defaultInput,
      output: options.output,
      maxDepth,
      maxConcurrent,
    },
  };
}

/** The `task` or `prompt` string argument, else the arguments as JSON. */
function defaultInput(args: unknown): string {
  const record = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  for (const key of ["task", "prompt"]) if (typeof record[key] === "string") return record[key];
  return JSON.stringify(args);
}

import { z } from "zod";
import type { ToolSpec } from "../types/stream.js";
import type { AgentTool, ToolExecutionContext, ToolResult } from "../types/tool.js";

/** What `defineTool` takes; `parameters` is a zod object schema. */
export interface ToolDefinition<TSchema extends z.ZodType, TDetails, TContext> {
  name: string;
  label?: string;
  description: string;
  parameters: TSchema;
  executionMode?: "parallel" | "sequential";
  requiresApproval?: boolean | ((args: z.output<TSchema>) => boolean);
  prepareArguments?: (rawArgs: unknown) => unknown;
  /** What a restored agent does with a call of this tool that was executing when it was persisted. */
  replay?: "never" | "safe";
  execute: (args: z.output<TSchema>, ctx: ToolExecutionContext<TContext>) => Promise<ToolResult<TDetails>>;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Throws a TypeError for a tool name the OpenAI API would reject (1-64 letters, digits, "_" or "-"). */
export function assertToolName(name: string): void {
  if (!TOOL_NAME.test(name)) {
    throw new TypeError(`Invalid tool name "${name}": use 1-64 letters, digits, "_" or "-"`);
  }
}

/**
 * Defines a tool with zod-validated arguments. The JSON Schema sent to the model is computed once
 * with `z.toJSONSchema`. Throws a TypeError for a name the OpenAI API would reject.
 *
 * ```ts
 * const add = defineTool({
 *   name: "add", description: "Adds two numbers",
 *   parameters: z.object({ a: z.number(), b: z.number() }),
 *   execute: async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
 * });
 * ```
 */
export function defineTool<TSchema extends z.ZodType, TDetails = unknown, TContext = unknown>(
  definition: ToolDefinition<TSchema, TDetails, TContext>,
): AgentTool<z.output<TSchema>, TDetails, TContext> {
  assertToolName(definition.name);
  const jsonSchema = z.toJSONSchema(definition.parameters, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  delete jsonSchema.$schema;
  return { ...definition, jsonSchema };
}

/** The model-facing description of a tool. */
export function toToolSpec(tool: AgentTool): ToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.jsonSchema };
}

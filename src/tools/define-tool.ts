import { z } from "zod";
import type { ToolSpec } from "../types/stream.js";
import type { AgentTool, ToolExecutionContext, ToolResult } from "../types/tool.js";

/** What `defineTool` takes; `parameters` is a zod 4 object schema. */
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
 * Thrown by `defineTool` when `parameters` is not a zod 4 schema (a zod 3 schema, another
 * validator's schema, a plain JSON Schema); the message says what to use instead.
 */
export class UnsupportedToolSchemaError extends TypeError {
  readonly code = "unsupported_schema";
  constructor(
    readonly toolName: string,
    reason: string,
  ) {
    super(`Tool "${toolName}": ${reason}`);
    this.name = "UnsupportedToolSchemaError";
  }
}

const ZOD_4_FIX = 'agentchart needs zod 4: run `npm install zod@^4` and `import { z } from "zod"`';

/**
 * Throws {@link UnsupportedToolSchemaError} unless `schema` is a zod 4 schema. zod 4 schemas carry
 * `_zod` (with `version.major`); zod 3 schemas carry only `_def`, on which `z.toJSONSchema` fails
 * with an unhelpful "Cannot read properties of undefined (reading 'def')".
 */
function assertZod4Schema(toolName: string, schema: unknown): void {
  const internals =
    typeof schema === "object" && schema !== null ? (schema as { _zod?: unknown })._zod : undefined;
  const major = (internals as { version?: { major?: unknown } } | undefined)?.version?.major;
  if (major === 4) return;
  if (typeof major === "number") {
    throw new UnsupportedToolSchemaError(toolName, `\`parameters\` is a zod ${major} schema; ${ZOD_4_FIX}.`);
  }
  if (typeof schema === "object" && schema !== null && "_def" in schema) {
    throw new UnsupportedToolSchemaError(toolName, `\`parameters\` is a zod 3 schema; ${ZOD_4_FIX}.`);
  }
  throw new UnsupportedToolSchemaError(
    toolName,
    "`parameters` is not a zod 4 schema; pass z.object({ … }) from zod 4, or use defineJsonSchemaTool for a plain JSON Schema.",
  );
}

/**
 * Defines a tool with zod-validated arguments. The JSON Schema sent to the model is computed once
 * with `z.toJSONSchema`.
 *
 * Contract: synchronous; throws a TypeError for a name the OpenAI API would reject and an
 * {@link UnsupportedToolSchemaError} (`code: "unsupported_schema"`) when `parameters` is not a zod 4
 * schema — zod 3 included. Other validators: give their JSON Schema to `defineJsonSchemaTool`.
 *
 * ```ts
 * import { z } from "zod";
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
  assertZod4Schema(definition.name, definition.parameters);
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

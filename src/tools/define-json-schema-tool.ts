import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { z } from "zod";
import type { AgentTool, ToolExecutionContext, ToolResult } from "../types/tool.js";
import { assertToolName } from "./define-tool.js";

/** A JSON Schema as a plain object (the shape MCP servers and other tool sources send). */
export type JsonSchemaObject = Record<string, unknown>;

/** What `defineJsonSchemaTool` takes: `defineTool`'s fields with a plain JSON Schema as `parameters`. */
export interface JsonSchemaToolDefinition<TArgs, TDetails, TContext> {
  name: string;
  label?: string;
  description: string;
  /** The arguments' JSON Schema (draft 2020-12 by default; draft-07 when its `$schema` says so). */
  parameters: JsonSchemaObject;
  executionMode?: "parallel" | "sequential";
  requiresApproval?: boolean | ((args: TArgs) => boolean);
  prepareArguments?: (rawArgs: unknown) => unknown;
  execute: (args: TArgs, ctx: ToolExecutionContext<TContext>) => Promise<ToolResult<TDetails>>;
}

/** Thrown by `defineJsonSchemaTool` for a schema the validator cannot compile. */
export class InvalidToolSchemaError extends TypeError {
  readonly code = "invalid_schema";
  constructor(
    readonly toolName: string,
    reason: string,
  ) {
    super(`Invalid JSON Schema for tool "${toolName}": ${reason}`);
    this.name = "InvalidToolSchemaError";
  }
}

// `format` is an annotation (as JSON Schema 2020-12 says by default); unknown keywords are tolerated
// because tool sources add their own (`title`, vendor extensions).
const AJV_OPTIONS = { strict: false, allErrors: true, validateFormats: false, logger: false } as const;

/** The validators of one kind (draft 2020-12 and draft-07), made on first use. */
export type ValidatorFor = (schema: JsonSchemaObject) => Ajv;

/**
 * A {@link ValidatorFor} over validators made with `options` added to agentchart's (e.g. another
 * regular-expression engine for `pattern`): draft-07 when the schema's `$schema` says so, else 2020-12.
 * A validator keeps the patterns of every schema it compiled; with `renewAfter`, new validators are
 * made after that many compilations, so that schemas from untrusted requests cannot grow memory
 * without bound (a compiled schema keeps its own validator alive as long as it is used).
 */
export function validatorsWith(
  options: Partial<ConstructorParameters<typeof Ajv>[0]> = {},
  renewAfter = Number.POSITIVE_INFINITY,
): ValidatorFor {
  let draft2020: Ajv2020 | undefined;
  let draft07: Ajv | undefined;
  let compiled = 0;
  return (schema) => {
    if (++compiled > renewAfter) {
      compiled = 1;
      draft2020 = undefined;
      draft07 = undefined;
    }
    const declared = typeof schema.$schema === "string" ? schema.$schema : "";
    if (/draft-0[4-7]/.test(declared)) {
      draft07 ??= new Ajv({ ...AJV_OPTIONS, ...options });
      return draft07;
    }
    draft2020 ??= new Ajv2020({ ...AJV_OPTIONS, ...options });
    return draft2020;
  };
}

const serverValidators = validatorsWith();

/**
 * Compiles `schema` once with `validatorFor`'s validator, which keeps nothing of it (a long-lived
 * process compiling schemas of many requests does not grow). Throws {@link InvalidToolSchemaError}
 * when it is not a usable JSON Schema for tool arguments (not an object schema, or rejected by the
 * validator).
 */
export function compileArgumentsSchema(
  toolName: string,
  schema: JsonSchemaObject,
  validatorFor: ValidatorFor = serverValidators,
): ValidateFunction {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new InvalidToolSchemaError(toolName, "the schema must be an object");
  }
  if (schema.type !== "object") {
    throw new InvalidToolSchemaError(toolName, `the arguments must be an object schema ("type": "object")`);
  }
  try {
    const { $schema: _declared, $id: _id, ...body } = schema;
    const validator = validatorFor(schema);
    const validate = validator.compile(body);
    validator.removeSchema(body);
    return validate;
  } catch (error) {
    // ajv throws Errors; tools/ depends on types/ only, so no `errorText` here.
    throw new InvalidToolSchemaError(toolName, String((error as { message?: unknown }).message ?? error));
  }
}

/** One ajv error as the path segments and message the loop's validation text lists. */
function toIssue(error: ErrorObject): { path: string[]; message: string } {
  const path = error.instancePath.split("/").slice(1);
  const missing = error.keyword === "required" ? (error.params as { missingProperty?: string }) : undefined;
  if (missing?.missingProperty !== undefined) path.push(missing.missingProperty);
  const extra =
    error.keyword === "additionalProperties" ? (error.params as { additionalProperty?: string }) : {};
  const detail = extra.additionalProperty === undefined ? "" : `: "${extra.additionalProperty}"`;
  return {
    path: path.map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~")),
    message: `${error.message ?? "is invalid"}${detail}`,
  };
}

/**
 * Defines a tool whose arguments are described by a plain JSON Schema instead of a zod schema (for
 * schemas that come from elsewhere: MCP servers, OpenAPI, config files). The schema is sent to the
 * model as is and compiled once with ajv; arguments that do not match get the same kind of error
 * result as a zod tool's (each issue with its path, then the received arguments), before `execute`
 * runs. Throws {@link InvalidToolSchemaError} for a schema ajv rejects, and a TypeError for a name the
 * OpenAI API would reject.
 *
 * ```ts
 * const add = defineJsonSchemaTool<{ a: number; b: number }>({
 *   name: "add", description: "Adds two numbers",
 *   parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
 *   execute: async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
 * });
 * ```
 */
export function defineJsonSchemaTool<TArgs = Record<string, unknown>, TDetails = unknown, TContext = unknown>(
  definition: JsonSchemaToolDefinition<TArgs, TDetails, TContext>,
): AgentTool<TArgs, TDetails, TContext> {
  assertToolName(definition.name);
  return jsonSchemaToolWith(definition, compileArgumentsSchema(definition.name, definition.parameters));
}

/**
 * The tool of `definition` whose arguments `validate` checks (compiled from `definition.parameters`
 * by {@link compileArgumentsSchema}); `defineJsonSchemaTool` with the validation compiled elsewhere.
 *
 * Contract: synchronous, pure; throws nothing (the name and schema were checked when compiling).
 */
export function jsonSchemaToolWith<TArgs, TDetails, TContext>(
  definition: JsonSchemaToolDefinition<TArgs, TDetails, TContext>,
  validate: ValidateFunction,
): AgentTool<TArgs, TDetails, TContext> {
  const parameters = z.unknown().check((ctx) => {
    if (validate(ctx.value)) return;
    for (const issue of (validate.errors ?? []).map(toIssue)) {
      ctx.issues.push({ code: "custom", input: ctx.value, path: issue.path, message: issue.message });
    }
  });
  return { ...definition, parameters, jsonSchema: definition.parameters };
}

import {
  compileArgumentsSchema,
  InvalidToolSchemaError,
  jsonSchemaToolWith,
  validatorsWith,
} from "../tools/define-json-schema-tool.js";
import { assertToolName } from "../tools/define-tool.js";
import type { AgentTool, ToolResult } from "../types/tool.js";
import { AgUiError } from "./ag-ui-error.js";
import { safeRegExp } from "./safe-regexp.js";

/** The declaration of each client tool this module made, by tool (to compare what a client declares again). */
const declarations = new WeakMap<AgentTool, string>();

/** How many distinct client tools are kept compiled (the least recently declared go first). */
export const CLIENT_TOOL_CACHE_SIZE = 256;

/** The client tools made, by declaration (JSON text): a page declares the same tools on every run. */
const made = new Map<string, AgentTool>();

/** Validators for schemas a client sends: `pattern` runs on RE2 (see {@link safeRegExp}). */
const clientValidators = validatorsWith({ code: { regExp: safeRegExp } }, CLIENT_TOOL_CACHE_SIZE);

/** Arguments schema of a declared tool without `parameters`: an object with any properties. */
const NO_PARAMETERS = { type: "object", properties: {} } as const;

/**
 * Makes the **client tools** of a run from `RunAgentInput.tools`: each declared tool (name,
 * description, JSON-Schema `parameters`) becomes a tool without `execute` on the server, whose
 * arguments are validated against its schema like a `defineJsonSchemaTool` tool's; its calls wait
 * for the client's answer (`awaitingClient`). An absent list is no tools.
 *
 * A declaration is compiled once: the same declaration (name, description and schema) gives the same
 * tool while it is among the last {@link CLIENT_TOOL_CACHE_SIZE} distinct ones declared. The schema's
 * `pattern`s run on a linear-time engine (no backreferences or lookaround: refused); `format` is an
 * annotation and is not checked.
 *
 * Contract: synchronous, pure; throws `AgUiError` `invalid_request` naming the first bad declaration
 * (not an array, no name or description, an invalid name, a duplicate, a schema that is not a JSON
 * object schema).
 *
 * ```ts
 * const tools = clientToolsOf([{ name: "pick_colour", description: "Asks the user", parameters: { type: "object" } }]);
 * agent.setTools([...agent.state.tools, ...tools]);
 * ```
 */
export function clientToolsOf(declared: unknown): AgentTool[] {
  if (declared === undefined) return [];
  if (!Array.isArray(declared))
    throw new AgUiError("invalid_request", "RunAgentInput.tools must be an array");
  const names = new Set<string>();
  return declared.map((declaration: unknown, index) => {
    const where = `RunAgentInput.tools[${index}]`;
    const { name, description, parameters } = (declaration ?? {}) as Record<string, unknown>;
    if (typeof name !== "string" || typeof description !== "string")
      throw new AgUiError("invalid_request", `${where} needs a name and a description (strings)`);
    if (names.has(name)) throw new AgUiError("invalid_request", `${where}: tool "${name}" is declared twice`);
    names.add(name);
    const schema = argumentsSchema(parameters);
    const key = JSON.stringify([name, description, schema]);
    try {
      return cachedClientTool(key, () => clientTool(name, description, schema as Record<string, unknown>));
    } catch (error) {
      if (!(error instanceof InvalidToolSchemaError || error instanceof TypeError)) throw error;
      throw new AgUiError("invalid_request", `${where}: ${error.message}`, { cause: error });
    }
  });
}

/** Whether `tool` is a client tool made by {@link clientToolsOf} (and not one of the server's). */
export function isDeclaredClientTool(tool: AgentTool): boolean {
  return declarations.has(tool);
}

/** Whether two lists of client tools declare the same tools, in the same order. */
export function sameClientTools(a: readonly AgentTool[], b: readonly AgentTool[]): boolean {
  return (
    a.length === b.length && a.every((tool, index) => declarations.get(tool) === declarations.get(b[index]!))
  );
}

/**
 * The arguments' schema of a declaration: none or an empty one is an object with any properties (AG-UI:
 * "an absent schema and an empty one mean the same thing"); an object schema may leave out its type.
 */
function argumentsSchema(parameters: unknown): unknown {
  if (parameters === undefined || parameters === null) return NO_PARAMETERS;
  if (typeof parameters !== "object" || Array.isArray(parameters)) return parameters;
  return "type" in parameters ? parameters : { ...NO_PARAMETERS, ...parameters };
}

/** The tool made for `declaration`, made by `make` when it is not among the cached ones. */
function cachedClientTool(declaration: string, make: () => AgentTool): AgentTool {
  const cached = made.get(declaration);
  made.delete(declaration);
  const tool = cached ?? make();
  made.set(declaration, tool);
  declarations.set(tool, declaration);
  if (made.size > CLIENT_TOOL_CACHE_SIZE) made.delete(made.keys().next().value!);
  return tool;
}

function clientTool(name: string, description: string, parameters: Record<string, unknown>): AgentTool {
  assertToolName(name);
  const definition = {
    name,
    description,
    parameters,
    execute: (): Promise<ToolResult> =>
      Promise.reject(new Error(`Tool ${name} was declared by the client: the client answers its calls`)),
  };
  const tool = jsonSchemaToolWith(definition, compileArgumentsSchema(name, parameters, clientValidators));
  return { ...tool, client: true } as AgentTool;
}

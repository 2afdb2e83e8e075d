import { z } from "zod";
import { DEFAULT_MAX_OUTPUT_REPAIRS, FINAL_ANSWER_TOOL, type RunOutputState } from "../types/output.js";

/**
 * The data a run keeps about its typed output, from the zod schema: the JSON Schema
 * (`z.toJSONSchema`, output side), whether it is an object (else the final-answer tool wraps it as
 * `value`), and whether it satisfies OpenAI's strict mode.
 *
 * Contract: throws zod's error for a schema `z.toJSONSchema` cannot represent (e.g. a transform
 * without an output type); `maxRepairs` must be a whole number ≥ 0 (else a RangeError).
 *
 * ```ts
 * import { z } from "zod";
 * const state = outputStateOf(z.object({ city: z.string() }));
 * state.request.strict; // true
 * ```
 */
export function outputStateOf(schema: z.ZodType, maxRepairs = DEFAULT_MAX_OUTPUT_REPAIRS): RunOutputState {
  if (!Number.isInteger(maxRepairs) || maxRepairs < 0)
    throw new RangeError(`maxOutputRepairs must be a whole number ≥ 0, got ${maxRepairs}`);
  const json = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return {
    request: { name: FINAL_ANSWER_TOOL, schema: json, strict: json.type === "object" && isStrict(json) },
    wrapped: json.type !== "object",
    maxRepairs,
    repairs: 0,
    accepted: false,
  };
}

/** Keywords OpenAI's strict mode rejects (the `openai` SDK's own schema check lists them). */
const NOT_STRICT = ["allOf", "not", "if", "patternProperties", "propertyNames", "prefixItems", "uniqueItems"];

/** Keywords whose value names schemas: the names are the user's (a property may be called `not`). */
const SCHEMA_MAPS = ["properties", "$defs"];

/** Keywords whose value is a schema or a list of schemas (others, like `enum` or `default`, hold data). */
const SCHEMA_LISTS = ["items", "anyOf", "oneOf"];

/**
 * OpenAI's strict mode: an object root; every object lists all its properties as required and allows
 * no others; none of the keywords it rejects. Only schemas are walked, never names or data.
 */
function isStrict(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return true; // a boolean schema (`items: true`)
  const node = schema as Record<string, unknown>;
  if (NOT_STRICT.some((keyword) => keyword in node)) return false;
  if (node.type === "object") {
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    const required = new Set((node.required as string[] | undefined) ?? []);
    if (node.additionalProperties !== false) return false;
    if (Object.keys(properties).some((key) => !required.has(key))) return false;
  }
  return subschemasOf(node).every(isStrict);
}

/** The schemas directly inside a schema node, by the keywords zod's JSON Schema puts them under. */
function subschemasOf(node: Record<string, unknown>): unknown[] {
  const named = SCHEMA_MAPS.flatMap((keyword) => Object.values((node[keyword] ?? {}) as object));
  const listed = SCHEMA_LISTS.flatMap((keyword) => node[keyword] ?? []);
  return [...named, ...listed];
}

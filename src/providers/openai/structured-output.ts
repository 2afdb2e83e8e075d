import { APIError } from "openai";
import type { Model } from "../../types/model.js";
import type { LlmContext, OutputRequest } from "../../types/stream.js";

/**
 * How a request asks for typed output (`LlmContext.output`):
 *
 * - `"json_schema"`: the server is given the schema (Chat `response_format: {type: "json_schema"}`,
 *   Responses `text.format`) and constrains the reply to it;
 * - `"json_object"`: the server is asked for some JSON object (`{type: "json_object"}`), and the
 *   schema is described in the instructions;
 * - `"instructions"`: nothing but the instructions describe the schema (any server).
 */
export type StructuredOutputMode = "json_schema" | "json_object" | "instructions";

/**
 * `output.schema` as sent to a server: without the root `$schema` key, which `z.toJSONSchema` adds
 * (the 2020-12 URI) and no server needs; everything else is sent as it is. Contract: pure, never
 * throws; returns a new top-level object only when there was a `$schema` to drop.
 *
 * ```ts
 * schemaForServer({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" }); // { type: "object" }
 * ```
 */
export function schemaForServer(schema: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(schema, "$schema")) return schema;
  const { $schema: _dropped, ...rest } = schema;
  return rest;
}

/**
 * The mode a request for `output` is actually built in: `mode`, except that `"json_object"` becomes
 * `"instructions"` for a schema whose root is not an object (`type: "object"`), since JSON mode would
 * force an object the value cannot be. Contract: pure, never throws.
 *
 * ```ts
 * effectiveOutputMode({ name: "tags", schema: { type: "array" }, strict: false }, "json_object"); // "instructions"
 * ```
 */
export function effectiveOutputMode(output: OutputRequest, mode: StructuredOutputMode): StructuredOutputMode {
  return mode === "json_object" && output.schema.type !== "object" ? "instructions" : mode;
}

/**
 * The instruction appended to the system prompt when the schema is not (only) enforced by the
 * server: what to answer, that nothing else may surround it, and the schema as compact JSON.
 * Contract: pure, never throws.
 *
 * ```ts
 * outputInstructions({ name: "weather", schema: { type: "object" }, strict: true });
 * // 'Answer with a single JSON value that matches the JSON Schema "weather" below — …'
 * ```
 */
export function outputInstructions(output: OutputRequest): string {
  return (
    `Answer with a single JSON value that matches the JSON Schema "${output.name}" below — ` +
    "only the JSON text: no other words, no Markdown code fence.\n" +
    JSON.stringify(schemaForServer(output.schema))
  );
}

/**
 * The system prompt of a request in `mode`: the context's own, plus `outputInstructions` (after a
 * blank line) when the context asks for output and `mode` is not `"json_schema"`. Contract: pure,
 * never throws.
 *
 * ```ts
 * systemPromptWithOutput({ systemPrompt: "Be brief.", messages: [], tools: [] }, "instructions"); // "Be brief."
 * ```
 */
export function systemPromptWithOutput(context: LlmContext, mode: StructuredOutputMode): string {
  if (context.output === undefined || mode === "json_schema") return context.systemPrompt;
  const instructions = outputInstructions(context.output);
  return context.systemPrompt === "" ? instructions : `${context.systemPrompt}\n\n${instructions}`;
}

/** HTTP statuses a server answers an unsupported format with (500: llama.cpp builds before September 2024). */
const REJECTION_STATUSES = new Set([400, 500]);
/** The request fields a format rejection names. */
const FORMAT_FIELD = /response_format|text\.format|json_schema|json_object/i;
/** Wordings of "this format is not accepted here", as OpenAI, LM Studio and llama.cpp put it. */
const REJECTION = /not supported|unsupported|must be|supported values|invalid parameter|invalid value/i;
/** A schema the server understood the format of but could not use: the schema must change, not the mode. */
const SCHEMA_PROBLEM = /invalid schema|schema conversion/i;

/**
 * True when `error` is the server refusing the requested output format itself (not the schema):
 * an HTTP 400 or 500 whose message names `response_format`, `text.format`, `json_schema` or
 * `json_object` and says it is unsupported, e.g. OpenAI's "Invalid parameter: 'response_format' of
 * type 'json_schema' is not supported with this model." or LM Studio's "'response_format.type' must be
 * 'json_schema' or 'text'". A schema the server cannot use ("Invalid schema for response_format …",
 * llama.cpp's "JSON schema conversion failed") is not a rejection of the format. Contract: pure, never throws.
 *
 * ```ts
 * declare function send(mode: StructuredOutputMode): Promise<Response>; // one request to the server
 * const response = await send("json_schema").catch((error: unknown) => {
 *   if (isOutputFormatRejection(error)) return send("instructions");
 *   throw error;
 * });
 * ```
 */
export function isOutputFormatRejection(error: unknown): boolean {
  if (!(error instanceof APIError) || error.status === undefined || !REJECTION_STATUSES.has(error.status)) {
    return false;
  }
  const message = error.message;
  return FORMAT_FIELD.test(message) && REJECTION.test(message) && !SCHEMA_PROBLEM.test(message);
}

/**
 * The output mode of each server and model a StreamFn talks to: the configured one, until a server
 * rejects it for a model (`fallBack`); from then on that server and model get `"instructions"` for
 * the StreamFn's life.
 */
export class StructuredOutputModes {
  private readonly fellBack = new Set<string>();

  constructor(readonly configured: StructuredOutputMode) {}

  /** The mode to request `model` from the server at `baseURL` with. */
  modeFor(baseURL: string, model: Model): StructuredOutputMode {
    return this.fellBack.has(key(baseURL, model)) ? "instructions" : this.configured;
  }

  /** Remembers that the server at `baseURL` rejected the format for `model`. */
  fallBack(baseURL: string, model: Model): void {
    this.fellBack.add(key(baseURL, model));
  }
}

function key(baseURL: string, model: Model): string {
  return `${baseURL}\n${model.id}`;
}

import { canonicalJson } from "./canonical-request.js";
import type { CanonicalRequest } from "./recording-format.js";

/** At most this many differences are named per request (the first ones, in reading order). */
const MAX_DIFFERENCES = 8;

/**
 * What differs between a recorded request and a new one, one readable line each: the model, the system
 * prompt, the number of messages and each differing message's first differing field (a tool call's
 * argument included), tools added or removed and each tool spec's description or parameters, the
 * output request, the reply options.
 *
 * Contract: pure; `[]` for equal requests; at most `MAX_DIFFERENCES` lines.
 *
 * ```ts
 * const recorded = recording.modelCalls[0]!.request;
 * requestDifferences(recorded, { ...recorded, systemPrompt: "Be brief." }); // ['system prompt: "…" → "Be brief."']
 * ```
 */
export function requestDifferences(expected: CanonicalRequest, actual: CanonicalRequest): string[] {
  const out: string[] = [];
  const model = (request: CanonicalRequest) =>
    `${request.model.provider}/${request.model.id} (${request.model.api})`;
  if (model(expected) !== model(actual)) out.push(`model: ${model(expected)} → ${model(actual)}`);
  if (expected.systemPrompt !== actual.systemPrompt)
    out.push(`system prompt: ${short(expected.systemPrompt)} → ${short(actual.systemPrompt)}`);
  if (expected.messages.length !== actual.messages.length)
    out.push(`messages: ${expected.messages.length} recorded, ${actual.messages.length} now`);
  const shared = Math.min(expected.messages.length, actual.messages.length);
  for (let index = 0; index < shared; index++) {
    const first = firstDifference(expected.messages[index], actual.messages[index], "");
    if (first) out.push(`message ${index} (${expected.messages[index]!.role})${first}`);
  }
  toolDifferences(expected, actual, out);
  if (canonicalJson(expected.output) !== canonicalJson(actual.output))
    out.push(`output request: ${short(expected.output)} → ${short(actual.output)}`);
  for (const key of new Set([...Object.keys(expected.options), ...Object.keys(actual.options)]))
    if (canonicalJson(expected.options[key]) !== canonicalJson(actual.options[key]))
      out.push(`option ${key}: ${short(expected.options[key])} → ${short(actual.options[key])}`);
  return out.length > MAX_DIFFERENCES
    ? [...out.slice(0, MAX_DIFFERENCES), `… ${out.length - MAX_DIFFERENCES} more`]
    : out;
}

function toolDifferences(expected: CanonicalRequest, actual: CanonicalRequest, out: string[]): void {
  const now = new Map(actual.tools.map((tool) => [tool.name, tool]));
  const recorded = new Set(expected.tools.map((tool) => tool.name));
  for (const tool of expected.tools) {
    const current = now.get(tool.name);
    if (!current) {
      out.push(`tool spec "${tool.name}": removed`);
      continue;
    }
    if (tool.description !== current.description)
      out.push(
        `tool spec "${tool.name}" description: ${short(tool.description)} → ${short(current.description)}`,
      );
    const parameters = firstDifference(tool.parameters, current.parameters, "");
    if (parameters) out.push(`tool spec "${tool.name}" parameters${parameters}`);
  }
  for (const tool of actual.tools) if (!recorded.has(tool.name)) out.push(`tool spec "${tool.name}": added`);
  const order = (tools: CanonicalRequest["tools"]) => tools.map((tool) => tool.name).join(",");
  if (out.length === 0 && order(expected.tools) !== order(actual.tools))
    out.push(`tool order: ${order(expected.tools)} → ${order(actual.tools)}`);
}

/**
 * The path and values of the first place where two JSON values differ (`.content[0].arguments.city:
 * "Paris" → "Lyon"`), or `undefined` when they are equal.
 */
function firstDifference(expected: unknown, actual: unknown, path: string): string | undefined {
  if (canonicalJson(expected) === canonicalJson(actual)) return undefined;
  const bothArrays = Array.isArray(expected) && Array.isArray(actual);
  const bothObjects =
    !bothArrays &&
    isObject(expected) &&
    isObject(actual) &&
    !Array.isArray(expected) &&
    !Array.isArray(actual);
  if (bothArrays) {
    if (expected.length !== actual.length)
      return `${path}: ${expected.length} items → ${actual.length} items`;
    for (let index = 0; index < expected.length; index++) {
      const found = firstDifference(expected[index], actual[index], `${path}[${index}]`);
      if (found) return found;
    }
  }
  if (bothObjects) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const found = firstDifference(expected[key], actual[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  return `${path}: ${short(expected)} → ${short(actual)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** JSON text of `value`, cut to 80 characters. */
function short(value: unknown): string {
  const text = value === undefined ? "(none)" : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

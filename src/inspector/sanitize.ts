import { errorText } from "../types/error-text.js";
import type { JsonValue } from "./inspection-record.js";

/** Limits applied by {@link sanitizeForInspection}. */
export interface SanitizeLimits {
  /** Objects and arrays deeper than this become `"[Object]"` / `"[Array(n)]"`. Default 8. */
  maxDepth: number;
  /** Longer strings are cut and marked with the number of dropped characters. Default 2,000. */
  maxStringLength: number;
  /** Arrays keep their first `maxArrayItems` items plus a marker. Default 100. */
  maxArrayItems: number;
  /** Objects keep their first `maxObjectKeys` keys plus a marker key `"…"`. Default 100. */
  maxObjectKeys: number;
  /**
   * Rough size budget of the whole result, in characters. Once spent, remaining values become
   * `"[truncated]"`. Default 64,000.
   */
  maxTotalSize: number;
}

/** The default limits: enough for an agent context, small enough to send per event. */
export const defaultSanitizeLimits: SanitizeLimits = {
  maxDepth: 8,
  maxStringLength: 2_000,
  maxArrayItems: 100,
  maxObjectKeys: 100,
  maxTotalSize: 64_000,
};

const DROP = Symbol("drop");
type Sanitized = JsonValue | typeof DROP;

/**
 * Projects any value to plain JSON for the inspector. It never throws and never returns something
 * `JSON.stringify` would choke on:
 * - functions, symbols, `undefined` and AbortSignals are dropped (object keys omitted; in arrays
 *   they become `null`);
 * - cycles become `"[Circular]"`; actor refs become `{ "@actor": id }`;
 * - `Date` → ISO string, `bigint` → string, `Error` → `{ name, message }`, `Map` → object,
 *   `Set` → array, typed arrays and buffers → `"[Uint8Array 12 bytes]"`, non-finite numbers → string;
 * - depth, string length, array and object sizes and the total size are limited (see
 *   {@link SanitizeLimits}).
 */
export function sanitizeForInspection(value: unknown, limits: Partial<SanitizeLimits> = {}): JsonValue {
  const settings = { ...defaultSanitizeLimits, ...limits };
  const state = { budget: settings.maxTotalSize, ancestors: new Set<object>() };
  const result = sanitizeValue(value, 0, settings, state);
  return result === DROP ? null : result;
}

interface WalkState {
  budget: number;
  ancestors: Set<object>;
}

function sanitizeValue(value: unknown, depth: number, limits: SanitizeLimits, state: WalkState): Sanitized {
  if (state.budget <= 0) return "[truncated]";
  switch (typeof value) {
    case "string":
      return sanitizeString(value, limits, state);
    case "number":
      state.budget -= 8;
      return Number.isFinite(value) ? value : String(value);
    case "boolean":
      state.budget -= 5;
      return value;
    case "bigint":
      state.budget -= 8;
      return `${value}n`;
    case "undefined":
    case "function":
    case "symbol":
      return DROP;
  }
  if (value === null) {
    state.budget -= 4;
    return null;
  }
  return sanitizeObject(value as object, depth, limits, state);
}

function sanitizeString(value: string, limits: SanitizeLimits, state: WalkState): string {
  const limit = Math.max(0, Math.min(limits.maxStringLength, state.budget));
  state.budget -= Math.min(value.length, limit) + 2;
  if (value.length <= limit) return value;
  return `${value.slice(0, limit)}…(+${value.length - limit} chars)`;
}

function sanitizeObject(value: object, depth: number, limits: SanitizeLimits, state: WalkState): Sanitized {
  const special = describeSpecialObject(value);
  if (special !== undefined) {
    if (special !== DROP) state.budget -= JSON.stringify(special).length;
    return special;
  }
  if (state.ancestors.has(value)) return "[Circular]";
  if (depth >= limits.maxDepth) {
    return Array.isArray(value) ? `[Array(${value.length})]` : "[Object]";
  }
  state.ancestors.add(value);
  try {
    if (Array.isArray(value) || value instanceof Set) {
      return sanitizeArray(Array.from(value as Iterable<unknown>), depth, limits, state);
    }
    const entries: Array<[string, unknown]> =
      value instanceof Map ? Array.from(value, ([k, v]) => [String(k), v]) : ownEntries(value);
    return sanitizeEntries(entries, depth, limits, state);
  } finally {
    state.ancestors.delete(value);
  }
}

function sanitizeArray(
  items: unknown[],
  depth: number,
  limits: SanitizeLimits,
  state: WalkState,
): JsonValue[] {
  const result: JsonValue[] = [];
  state.budget -= 2;
  for (const item of items.slice(0, limits.maxArrayItems)) {
    if (state.budget <= 0) {
      result.push("[truncated]");
      break;
    }
    const sanitized = sanitizeValue(item, depth + 1, limits, state);
    result.push(sanitized === DROP ? null : sanitized);
    state.budget -= 1;
  }
  if (items.length > limits.maxArrayItems) result.push(`…(+${items.length - limits.maxArrayItems} items)`);
  return result;
}

function sanitizeEntries(
  entries: Array<[string, unknown]>,
  depth: number,
  limits: SanitizeLimits,
  state: WalkState,
): { [key: string]: JsonValue } {
  const result: { [key: string]: JsonValue } = {};
  state.budget -= 2;
  let kept = 0;
  for (const [key, item] of entries) {
    if (kept >= limits.maxObjectKeys) {
      result["…"] = `+${entries.length - kept} keys`;
      break;
    }
    if (state.budget <= 0) {
      result["…"] = "[truncated]";
      break;
    }
    const sanitized = sanitizeValue(item, depth + 1, limits, state);
    if (sanitized === DROP) continue;
    result[key] = sanitized;
    state.budget -= key.length + 4;
    kept += 1;
  }
  return result;
}

/** Own enumerable string keys; getters that throw are reported instead of propagating. */
function ownEntries(value: object): Array<[string, unknown]> {
  return Object.keys(value).map((key) => {
    try {
      return [key, (value as Record<string, unknown>)[key]];
    } catch (error) {
      return [key, `[Thrown: ${errorText(error)}]`];
    }
  });
}

/** Objects with a fixed projection; `undefined` means "walk it as a plain object". */
function describeSpecialObject(value: object): Sanitized | undefined {
  if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) return DROP;
  if (value instanceof Promise || value instanceof WeakMap || value instanceof WeakSet) return DROP;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (value instanceof RegExp) return String(value);
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (ArrayBuffer.isView(value)) return `[${value.constructor.name} ${value.byteLength} bytes]`;
  if (value instanceof ArrayBuffer) return `[ArrayBuffer ${value.byteLength} bytes]`;
  if (isActorRef(value)) return { "@actor": value.id };
  return undefined;
}

function isActorRef(value: object): value is { id: string } {
  const candidate = value as { id?: unknown; sessionId?: unknown; send?: unknown; getSnapshot?: unknown };
  return (
    typeof candidate.sessionId === "string" &&
    typeof candidate.id === "string" &&
    typeof candidate.send === "function" &&
    typeof candidate.getSnapshot === "function"
  );
}

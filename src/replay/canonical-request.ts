import type { Message } from "../types/messages.js";
import type { Model } from "../types/model.js";
import type { LlmContext, StreamOptions } from "../types/stream.js";
import type { CanonicalRequest } from "./recording-format.js";

/** The stream options that change what the model answers; the rest is transport (and may be secret). */
const REPLY_OPTIONS = ["reasoning", "maxTokens", "temperature", "cacheRetention"] as const;

/**
 * The canonical form of one model request: model, system prompt, messages without their timestamps,
 * tool specs, output request and the options of `REPLY_OPTIONS` — never `apiKey`, `headers`, hooks or
 * the signal. The messages are the request's own (the agent never mutates a message it sent).
 *
 * Contract: pure; never throws for JSON-safe messages.
 *
 * ```ts
 * const request = canonicalRequestOf(model, { systemPrompt: "", messages: [], tools: [] }, {});
 * ```
 */
export function canonicalRequestOf(
  model: Model,
  context: LlmContext,
  options: StreamOptions,
): CanonicalRequest {
  const picked: Record<string, unknown> = {};
  for (const key of REPLY_OPTIONS) if (options[key] !== undefined) picked[key] = options[key];
  return {
    model: { provider: model.provider, api: model.api, id: model.id },
    systemPrompt: context.systemPrompt,
    messages: context.messages.map(withoutTimestamp),
    tools: context.tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
    ...(context.output ? { output: context.output } : {}),
    options: picked,
  };
}

/** `message` without its `timestamp` (what varies between two runs of the same code). */
export function withoutTimestamp(message: Message): Message {
  const { timestamp: _timestamp, ...rest } = message as Message & { timestamp?: number };
  return rest as Message;
}

/**
 * The key replay matches requests by: 16 hex digits hashing the request's canonical JSON (object keys
 * sorted, so the key does not depend on the order fields were set in). Two 32-bit FNV-1a lanes of
 * different offsets, in plain JavaScript: the core entry runs in browsers (no `node:crypto`); the key
 * indexes, equality of the canonical JSON decides.
 *
 * Contract: pure; equal requests give equal keys.
 */
export function requestKeyOf(request: CanonicalRequest): string {
  const text = canonicalJson(request);
  let low = 0x811c9dc5;
  let high = 0x01000193 ^ text.length;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    low = Math.imul(low ^ code, 0x01000193);
    high = Math.imul(high ^ code, 0x01000193) ^ (low >>> 15);
  }
  return (high >>> 0).toString(16).padStart(8, "0") + (low >>> 0).toString(16).padStart(8, "0");
}

/** JSON text of `value` with every object's keys sorted. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

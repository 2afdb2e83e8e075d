import type { StreamOptions } from "./stream.js";

/**
 * The stream options that are plain data: kept in an agent's context, persisted, changeable between
 * prompts, and safe to write down (never a key, a header or a callback).
 */
export const PERSISTABLE_STREAM_OPTION_KEYS = [
  "sessionId",
  "metadata",
  "maxTokens",
  "temperature",
  "timeoutMs",
  "maxRetries",
] as const satisfies readonly (keyof StreamOptions)[];

/** Every option a StreamFn may receive from an agent's options or context (the signal and reasoning level aside). */
export const STREAM_OPTION_KEYS = [
  ...PERSISTABLE_STREAM_OPTION_KEYS,
  "apiKey",
  "headers",
  "onPayload",
  "onResponse",
] as const satisfies readonly Exclude<keyof StreamOptions, "signal" | "reasoning">[];

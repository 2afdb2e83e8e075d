import { AgUiError } from "./ag-ui-error.js";

/**
 * What one request to the AG-UI endpoint may carry and how many threads it keeps in memory. Each
 * refusal names the limit it passed (`limit_exceeded`, `body_too_large`: 413; `too_many_threads`: 503).
 */
export interface AgUiLimits {
  /** Largest request body in bytes (default 1,000,000). The client sends the whole conversation each run. */
  maxBodyBytes?: number;
  /** Most messages in one `RunAgentInput` (default 1,000). */
  maxMessages?: number;
  /** Longest text of one message, or of a steer / follow-up command, in characters (default 200,000). */
  maxTextLength?: number;
  /** Most threads served from memory at once (default 1,000; the longest idle are evicted first). */
  maxThreads?: number;
  /** A thread with no run going on and no request for this long is evicted (default 30 minutes). */
  threadIdleMs?: number;
}

/** {@link AgUiLimits} with every default filled in. */
export type ResolvedAgUiLimits = Required<AgUiLimits>;

/** The defaults of {@link AgUiLimits}. */
export const DEFAULT_AG_UI_LIMITS: ResolvedAgUiLimits = {
  maxBodyBytes: 1_000_000,
  maxMessages: 1_000,
  maxTextLength: 200_000,
  maxThreads: 1_000,
  threadIdleMs: 30 * 60_000,
};

/** Longest `threadId` or `runId` in characters. */
const MAX_ID_LENGTH = 256;

/** The limits with the defaults for those not given; throws a TypeError for a limit that is not a positive number. */
export function resolveLimits(limits: AgUiLimits | undefined): ResolvedAgUiLimits {
  const resolved = { ...DEFAULT_AG_UI_LIMITS };
  for (const [name, value] of Object.entries(limits ?? {}) as [keyof AgUiLimits, unknown][]) {
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value > 0))
      throw new TypeError(`createAgUiHandler: limits.${name} must be a positive number`);
    resolved[name] = value;
  }
  return resolved;
}

/**
 * Throws `AgUiError` `limit_exceeded` when a text is longer than `maxTextLength`, naming what and the limit.
 *
 * Contract: synchronous, pure; throws only `AgUiError`.
 */
export function checkTextLength(text: unknown, what: string, limits: ResolvedAgUiLimits): void {
  const length =
    typeof text === "string" ? text.length : text === undefined ? 0 : JSON.stringify(text).length;
  if (length > limits.maxTextLength)
    throw new AgUiError(
      "limit_exceeded",
      `${what} has ${length} characters, more than maxTextLength (${limits.maxTextLength})`,
    );
}

/** Throws `invalid_request` unless `value` is an id: a non-empty string of at most 256 characters. */
export function checkId(value: unknown, what: string): asserts value is string {
  if (typeof value !== "string" || value === "" || value.length > MAX_ID_LENGTH)
    throw new AgUiError(
      "invalid_request",
      `${what} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`,
    );
}

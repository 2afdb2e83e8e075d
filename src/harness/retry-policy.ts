import type { AssistantMessage } from "../types/messages.js";

/**
 * Turn-level retry of transient provider failures. `maxRetries` counts retries after the first
 * attempt (0 = never retry). Before retry k (1-based) the harness waits
 * `min(baseDelayMs * 2^(k-1), maxDelayMs)`; the wait is abortable.
 */
export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * How to wait (default: a timer cut short by the signal); must reject promptly when the signal aborts.
   * For tests and custom schedulers.
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** 3 retries after 2 s, 4 s, 8 s (at most 30 s each). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 2_000, maxDelayMs: 30_000 };

// Transient failures: rate limits, overload, 5xx, and network trouble. Quota and billing limits are
// not transient and are excluded below even when they mention 429.
const TRANSIENT =
  /\b(429|500|502|503|504|524)\b|overloaded|rate.?limit|too many requests|service unavailable|server error|internal error|network|connection (error|lost|reset)|ECONNRESET|ETIMEDOUT|socket hang up|fetch failed|other side closed|timed? ?out|timeout|terminated|stream ended/i;
const NOT_TRANSIENT = /insufficient.?quota|quota exceeded|billing|out of budget/i;
// A server that cannot be reached at all (refused, unknown host) is not coming back within seconds;
// providers already retried it once. Retrying it for 2 + 4 + 8 s only hides the hint to start it.
const UNREACHABLE =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|connection refused|is the server running\?|could not connect to/i;
// Throttling (DashScope's `Throttling.*` codes, providers' "(throttled: …)") clears on its own, even
// when the server's wording mentions a quota.
const THROTTLED = /\bthrottl(ed|ing)\b/i;
// Gemini: "The input token count (1100000) exceeds the maximum number of tokens allowed (1048576)."
const CONTEXT_OVERFLOW =
  /context.{0,20}(length|window|overflow)|too many tokens|maximum context|prompt is too long|input token count.{0,40}exceeds the maximum/i;

/** True when an assistant error message says the request did not fit the model's context window. */
export function isContextOverflow(message: AssistantMessage): boolean {
  return message.stopReason === "error" && CONTEXT_OVERFLOW.test(message.errorMessage ?? "");
}

/**
 * True for a failed reply worth retrying: `stopReason: "error"` with a transient error text (429,
 * 5xx, overloaded, rate limit, throttling, network, ECONNRESET, timeout…). Never for aborts, context
 * overflows (compaction handles those), quota/billing errors that are not throttling, a server that
 * cannot be reached at all (connection refused, unknown host: the provider's hint says to start it),
 * or other 4xx errors.
 */
export function isRetryableError(message: AssistantMessage): boolean {
  if (message.stopReason !== "error") return false;
  const text = message.errorMessage ?? "";
  if (isContextOverflow(message) || UNREACHABLE.test(text)) return false;
  if (THROTTLED.test(text)) return true;
  if (NOT_TRANSIENT.test(text)) return false;
  return TRANSIENT.test(text);
}

/** The wait before retry `attempt` (1-based). */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  const delay = policy.baseDelayMs * 2 ** Math.max(0, attempt - 1);
  return Math.max(0, Math.min(delay, policy.maxDelayMs));
}

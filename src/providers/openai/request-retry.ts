import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { abortableDelay } from "../abortable-delay.js";
import { hasUnreachableCause, ServerUnreachableError } from "../provider-errors.js";
import { retryDelayMs } from "../retry-delay.js";

/** Wait before the single retry of a server that could not be reached at all. */
export const UNREACHABLE_RETRY_MS = 250;

/**
 * Sends a request (`send` makes one attempt) and retries transient failures the way the openai SDK
 * does — 408/409/429/5xx unless the server says `x-should-retry: false`, connection errors and
 * timeouts; waiting `retry-after-ms` / `retry-after`, else 0.5 s · 2ⁿ (at most 8 s, minus up to 25 %
 * jitter) — up to `maxRetries` times. A server that cannot be reached at all (connection refused,
 * unknown host) is retried at most once, after 250 ms, and then reported as a
 * `ServerUnreachableError` naming `url`. Every wait ends as soon as `signal` aborts.
 *
 * Contract: async; rejects with the last attempt's error (or `ServerUnreachableError`); after an abort
 * it rejects with whatever the aborted attempt threw, or `APIUserAbortError`.
 *
 * ```ts
 * import OpenAI from "openai";
 * const client = new OpenAI({ apiKey: "sk-…" });
 * const body = { model: "gpt-4.1-mini", messages: [{ role: "user" as const, content: "Hi" }], stream: true as const };
 * const send = () => client.chat.completions.create(body, { maxRetries: 0, signal }).asResponse();
 * const response = await sendWithRetries(send, 2, client.baseURL, signal);
 * ```
 */
export async function sendWithRetries<TResult>(
  send: () => Promise<TResult>,
  maxRetries: number,
  url: string,
  signal: AbortSignal,
): Promise<TResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (signal.aborted) throw error;
      const unreachable = isUnreachable(error);
      if (unreachable && attempt >= Math.min(maxRetries, 1)) {
        throw new ServerUnreachableError(url, error as Error);
      }
      if (!unreachable && (attempt >= maxRetries || !isRetryable(error))) throw error;
      const headers = error instanceof APIError ? error.headers : undefined;
      const delay = unreachable ? UNREACHABLE_RETRY_MS : retryDelayMs((name) => headers?.get(name), attempt);
      await abortableDelay(delay, signal);
      if (signal.aborted) throw new APIUserAbortError();
    }
  }
}

/** True for a connection that failed because nothing listens at the address or the host is unknown. */
function isUnreachable(error: unknown): boolean {
  if (!(error instanceof APIConnectionError) || error instanceof APIConnectionTimeoutError) return false;
  return hasUnreachableCause(error);
}

function isRetryable(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof APIConnectionError) return true;
  if (!(error instanceof APIError) || error.status === undefined) return false;
  const verdict = error.headers?.get("x-should-retry");
  if (verdict === "true") return true;
  if (verdict === "false") return false;
  return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
}

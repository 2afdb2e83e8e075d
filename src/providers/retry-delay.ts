/**
 * The wait before retry `attempt` (0-based) of a request the server refused for now: what the
 * server asked for (`retry-after-ms`, else `retry-after` in seconds or as an HTTP date), else the
 * openai SDK's schedule, 0.5 s · 2ⁿ (at most 8 s) minus up to 25 % jitter. `header` reads a response
 * header of the failed attempt by its lower-case name.
 *
 * Contract: pure but for `Math.random` and `Date.now`; never throws; never negative.
 *
 * ```ts
 * import { setTimeout } from "node:timers/promises";
 * const response = await fetch("https://api.openai.com/v1/models");
 * const attempt = 0; // the retry's number, from 0
 * if (response.status === 429) {
 *   await setTimeout(retryDelayMs((name) => response.headers.get(name) ?? undefined, attempt), undefined, { signal });
 * }
 * ```
 */
export function retryDelayMs(header: (name: string) => string | null | undefined, attempt: number): number {
  const retryAfterMs = Number.parseFloat(header("retry-after-ms") ?? "");
  if (Number.isFinite(retryAfterMs)) return Math.max(0, retryAfterMs);
  const retryAfter = header("retry-after");
  if (retryAfter) {
    const seconds = Number.parseFloat(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
    if (Number.isFinite(ms)) return Math.max(0, ms);
  }
  const backoffSeconds = Math.min(0.5 * 2 ** attempt, 8);
  return backoffSeconds * (1 - Math.random() * 0.25) * 1000;
}

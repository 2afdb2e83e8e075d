/**
 * Resolves after `ms` (never when infinite), or as soon as `signal` aborts; it never rejects, so the
 * caller checks `signal.aborted` afterwards.
 *
 * Contract: async, never throws; the timer is cleared on abort.
 *
 * ```ts
 * await abortableDelay(500, signal);
 * if (!signal.aborted) console.log("waited 500 ms");
 * ```
 */
export function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}

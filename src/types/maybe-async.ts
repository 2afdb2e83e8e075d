/** A step function written as a generator: `const x = yield maybePromise;` awaits only real promises. */
export type MaybeAsyncSteps<TResult> = Generator<unknown, TResult, unknown>;

/** Whether `value` is a promise or another thenable. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

/**
 * Runs generator steps synchronously for as long as every yielded value is a plain value, and switches
 * to promises at the first thenable. So callbacks that answer synchronously (the common case) cost no
 * microtask and no actor, while async callbacks work unchanged. Throws (sync) or rejects (async) with
 * the first error a step throws.
 */
export function runMaybeAsync<TResult>(steps: MaybeAsyncSteps<TResult>): TResult | Promise<TResult> {
  let next = steps.next();
  while (!next.done) {
    if (isPromiseLike(next.value)) return continueAsync(steps, next.value);
    next = steps.next(next.value);
  }
  return next.value;
}

async function continueAsync<TResult>(
  steps: MaybeAsyncSteps<TResult>,
  pending: PromiseLike<unknown>,
): Promise<TResult> {
  let next: IteratorResult<unknown, TResult>;
  try {
    next = steps.next(await pending);
  } catch (error) {
    next = steps.throw(error);
  }
  while (!next.done) {
    try {
      next = steps.next(isPromiseLike(next.value) ? await next.value : next.value);
    } catch (error) {
      next = steps.throw(error);
    }
  }
  return next.value;
}

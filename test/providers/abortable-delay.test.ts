import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { abortableDelay } from "../../src/providers/abortable-delay.js";

/** Whether `promise` has settled once the pending promise jobs ran. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await Promise.resolve();
  await Promise.resolve();
  return settled;
}

describe("abortableDelay", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("resolves once the time has passed, without a signal", async () => {
    const delay = abortableDelay(500, undefined);
    vi.advanceTimersByTime(499);
    expect(await isSettled(delay)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await isSettled(delay)).toBe(true);
  });

  it("resolves at once, starting no timer, when the signal has already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const delay = abortableDelay(500, controller.signal);
    expect(vi.getTimerCount()).toBe(0);
    expect(await isSettled(delay)).toBe(true);
  });

  it("resolves on abort and clears its timer", async () => {
    const controller = new AbortController();
    const delay = abortableDelay(500, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    expect(await isSettled(delay)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("waits for the abort alone when the time is infinite", async () => {
    const controller = new AbortController();
    const delay = abortableDelay(Number.POSITIVE_INFINITY, controller.signal);
    expect(vi.getTimerCount()).toBe(0);
    expect(await isSettled(delay)).toBe(false);
    controller.abort();
    expect(await isSettled(delay)).toBe(true);
  });

  it("removes its abort listener when the time has passed", async () => {
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, "removeEventListener");
    const delay = abortableDelay(10, controller.signal);
    vi.advanceTimersByTime(10);
    expect(await isSettled(delay)).toBe(true);
    expect(removed).toHaveBeenCalledWith("abort", expect.any(Function));
  });
});

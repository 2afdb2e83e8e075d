import { afterEach, describe, expect, it, vi } from "vitest";
import { retryDelayMs } from "../../src/providers/retry-delay.js";

/** A header reader over a plain record, as the providers pass one. */
const headers =
  (values: Record<string, string>) =>
  (name: string): string | undefined =>
    values[name];

afterEach(() => {
  vi.restoreAllMocks();
});

describe("retryDelayMs", () => {
  it("waits what retry-after-ms asks, never less than 0, before any other header", () => {
    expect(retryDelayMs(headers({ "retry-after-ms": "1500", "retry-after": "9" }), 0)).toBe(1500);
    expect(retryDelayMs(headers({ "retry-after-ms": "2.5" }), 3)).toBe(2.5);
    expect(retryDelayMs(headers({ "retry-after-ms": "-40" }), 0)).toBe(0);
  });

  it("reads retry-after as seconds, or as an HTTP date measured from now", () => {
    expect(retryDelayMs(headers({ "retry-after": "2" }), 0)).toBe(2000);
    expect(retryDelayMs(headers({ "retry-after": "0.25" }), 5)).toBe(250);
    expect(retryDelayMs(headers({ "retry-after": "-3" }), 0)).toBe(0);
    const now = Date.parse("Sat, 05 Dec 2026 11:00:00 GMT");
    vi.spyOn(Date, "now").mockReturnValue(now);
    expect(retryDelayMs(headers({ "retry-after": "Sat, 05 Dec 2026 11:00:30 GMT" }), 0)).toBe(30_000);
    expect(retryDelayMs(headers({ "retry-after": "Sat, 05 Dec 2026 10:59:00 GMT" }), 0)).toBe(0);
  });

  it("falls back to 0.5 s · 2ⁿ, at most 8 s, minus up to 25 % jitter, for absent or unreadable headers", () => {
    const random = vi.spyOn(Math, "random").mockReturnValue(0);
    const none = headers({});
    expect([0, 1, 2, 3, 4, 5, 10].map((attempt) => retryDelayMs(none, attempt))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect(retryDelayMs(headers({ "retry-after-ms": "soon", "retry-after": "whenever" }), 1)).toBe(1000);
    expect(retryDelayMs(headers({ "retry-after": "" }), 2)).toBe(2000);
    random.mockReturnValue(0.5);
    expect(retryDelayMs(none, 0)).toBe(437.5);
    random.mockReturnValue(0.999_999);
    expect(retryDelayMs(none, 3)).toBeCloseTo(3000, 2);
  });
});

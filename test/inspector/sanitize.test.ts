import { describe, expect, it } from "vitest";
import { createActor, createMachine } from "xstate";
import { sanitizeForInspection } from "../../src/inspector/sanitize.js";

const roundTrips = (value: unknown) => {
  const sanitized = sanitizeForInspection(value);
  expect(JSON.parse(JSON.stringify(sanitized))).toEqual(sanitized);
  return sanitized;
};

describe("sanitizeForInspection", () => {
  it("keeps plain JSON unchanged", () => {
    const value = { a: 1, b: "two", c: [true, null, { d: 4.5 }], e: {} };
    expect(roundTrips(value)).toEqual(value);
  });

  it("drops functions, symbols, undefined and AbortSignals from objects and nulls them in arrays", () => {
    const controller = new AbortController();
    const value = {
      keep: 1,
      fn: () => 1,
      sym: Symbol("s"),
      missing: undefined,
      signal: controller.signal,
      list: [() => 2, controller.signal, 3],
    };
    expect(roundTrips(value)).toEqual({ keep: 1, list: [null, null, 3] });
  });

  it("replaces cycles with a marker but keeps shared non-cyclic references", () => {
    const shared = { name: "shared" };
    const node: Record<string, unknown> = { shared, again: shared };
    node.self = node;
    expect(roundTrips(node)).toEqual({
      shared: { name: "shared" },
      again: { name: "shared" },
      self: "[Circular]",
    });
  });

  it("projects non-JSON built-ins to readable JSON", () => {
    const value = {
      date: new Date("2026-01-02T03:04:05.000Z"),
      big: 12n,
      nan: Number.NaN,
      infinity: Number.POSITIVE_INFINITY,
      error: new TypeError("bad"),
      map: new Map<unknown, unknown>([
        ["k", 1],
        [2, "v"],
      ]),
      set: new Set([1, 2]),
      bytes: new Uint8Array(12),
      regexp: /a+/g,
      promise: Promise.resolve(1),
    };
    expect(roundTrips(value)).toEqual({
      date: "2026-01-02T03:04:05.000Z",
      big: "12n",
      nan: "NaN",
      infinity: "Infinity",
      error: { name: "TypeError", message: "bad" },
      map: { k: 1, "2": "v" },
      set: [1, 2],
      bytes: "[Uint8Array 12 bytes]",
      regexp: "/a+/g",
    });
  });

  it("shows actor refs as their id instead of walking the actor", () => {
    const actor = createActor(createMachine({ id: "m" }), { id: "call_1" });
    expect(roundTrips({ ref: actor })).toEqual({ ref: { "@actor": "call_1" } });
  });

  it("reports getters that throw instead of throwing", () => {
    const value = {
      get broken(): never {
        throw new Error("nope");
      },
    };
    expect(roundTrips(value)).toEqual({ broken: "[Thrown: nope]" });
  });

  it("limits depth, string length, array and object sizes", () => {
    const deep = { a: { b: { c: { d: [1] } } } };
    expect(sanitizeForInspection(deep, { maxDepth: 2 })).toEqual({ a: { b: "[Object]" } });
    expect(sanitizeForInspection({ d: { e: [1, 2] } }, { maxDepth: 1 })).toEqual({ d: "[Object]" });
    expect(sanitizeForInspection(["x".repeat(30)], { maxStringLength: 10 })).toEqual([
      `${"x".repeat(10)}…(+20 chars)`,
    ]);
    expect(sanitizeForInspection([1, 2, 3, 4, 5], { maxArrayItems: 2 })).toEqual([1, 2, "…(+3 items)"]);
    expect(sanitizeForInspection({ a: 1, b: 2, c: 3 }, { maxObjectKeys: 2 })).toEqual({
      a: 1,
      b: 2,
      "…": "+1 keys",
    });
  });

  it("keeps a big payload under the total size budget", () => {
    const messages = Array.from({ length: 5_000 }, (_, i) => ({
      role: "assistant",
      text: `${i} ${"y".repeat(500)}`,
    }));
    const sanitized = sanitizeForInspection({ messages }, { maxArrayItems: 10_000, maxTotalSize: 20_000 });
    const size = JSON.stringify(sanitized).length;
    expect(size).toBeLessThan(25_000);
    expect(JSON.stringify(sanitized)).toContain("[truncated]");
  });

  it("never throws at the top level, whatever it is given", () => {
    expect(sanitizeForInspection(undefined)).toBeNull();
    expect(sanitizeForInspection(() => 1)).toBeNull();
    expect(sanitizeForInspection(new AbortController().signal)).toBeNull();
    expect(sanitizeForInspection("plain")).toBe("plain");
  });
});

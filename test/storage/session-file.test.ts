import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../../src/index.js";
import { serializeLine } from "../../src/sessions.js";

const entry = (extra: Record<string, unknown>, message: Record<string, unknown> = {}) =>
  ({
    type: "message",
    id: "a1b2c3d4",
    parentId: null,
    timestamp: "2025-01-01T00:00:00.000Z",
    message: { role: "user", content: "hi", timestamp: 1, ...message },
    ...extra,
  }) as unknown as SessionEntry;

describe("serializeLine", () => {
  it("writes a plain entry as one JSON line", () => {
    const value = entry({});
    expect(serializeLine(value)).toBe(`${JSON.stringify(value)}\n`);
  });

  it("strips apiKey at any depth and headers on the entry or its message, nowhere else", () => {
    const value = entry(
      { headers: { authorization: "Bearer x" }, options: { nested: { apiKey: "sk-deep" } } },
      { apiKey: "sk-msg", headers: { cookie: "c" }, details: { headers: ["kept"], monkey: "kept" } },
    );
    const line = serializeLine(value);
    expect(line.endsWith("\n")).toBe(true);
    const parsed = JSON.parse(line);
    expect(line).not.toContain("sk-");
    expect(parsed.headers).toBeUndefined();
    expect(parsed.message.headers).toBeUndefined();
    expect(parsed.options).toEqual({ nested: {} });
    expect(parsed.message.details).toEqual({ headers: ["kept"], monkey: "kept" });
    expect((value as unknown as { headers: unknown }).headers).toBeDefined(); // the entry itself is untouched
  });

  it("keeps text that merely mentions the key names", () => {
    const value = entry({}, { content: 'set "apiKey" and headers; my Key" here' });
    expect(serializeLine(value)).toBe(`${JSON.stringify(value)}\n`);
  });
});

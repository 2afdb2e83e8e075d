import { describe, expect, it } from "vitest";
import {
  headerVersion,
  migrateHeader,
  migrateV1Entries,
  migrateV2Entries,
  type RawLine,
} from "../../src/storage/migrate.js";

const lines = (...values: Record<string, unknown>[]): RawLine[] =>
  values.map((value, index) => ({ line: index + 2, value }));

describe("headerVersion", () => {
  it("reads a numeric version and takes a header without one for version 1", () => {
    expect(headerVersion({ version: 2 })).toBe(2);
    expect(headerVersion({ version: 3 })).toBe(3);
    expect(headerVersion({})).toBe(1);
    expect(headerVersion({ version: "3" })).toBe(1);
  });
});

describe("migrateHeader", () => {
  it("makes a version-3 session header keeping unknown fields", () => {
    expect(migrateHeader({ type: "session", id: "s", cwd: "/p", extra: 1 })).toEqual({
      type: "session",
      version: 3,
      id: "s",
      cwd: "/p",
      extra: 1,
    });
  });

  it("takes pi's branchedFrom as parentSession unless one is set", () => {
    expect(migrateHeader({ id: "s", branchedFrom: "/a.jsonl" }).parentSession).toBe("/a.jsonl");
    expect(
      migrateHeader({ id: "s", branchedFrom: "/a.jsonl", parentSession: "/b.jsonl" }).parentSession,
    ).toBe("/b.jsonl");
    expect(migrateHeader({ id: "s", branchedFrom: 3 }).parentSession).toBeUndefined();
  });

  it("does not modify the header it reads", () => {
    const header = { id: "s", version: 1 };
    migrateHeader(header);
    expect(header).toEqual({ id: "s", version: 1 });
  });
});

describe("migrateV1Entries", () => {
  it("chains the entries in file order, keeping usable ids and drawing 8-hex ids for the others", () => {
    const raw = lines(
      { type: "message", id: "keep1" },
      { type: "message" },
      { type: "message", id: "" },
      { type: "message", id: 7 },
    );
    migrateV1Entries(raw);
    const [a, b, c, d] = raw.map((line) => line.value);
    expect(a).toMatchObject({ id: "keep1", parentId: null });
    expect(b!.id).toMatch(/^[0-9a-f]{8}$/);
    expect(b!.parentId).toBe("keep1");
    expect(c!.id).toMatch(/^[0-9a-f]{8}$/);
    expect(c!.parentId).toBe(b!.id);
    expect(d!.id).toMatch(/^[0-9a-f]{8}$/);
    expect(d!.parentId).toBe(c!.id);
    expect(new Set([a!.id, b!.id, c!.id, d!.id]).size).toBe(4);
  });

  it("gives a repeated id a fresh one", () => {
    const raw = lines({ type: "message", id: "same" }, { type: "message", id: "same" });
    migrateV1Entries(raw);
    expect(raw[0]!.value.id).toBe("same");
    expect(raw[1]!.value.id).not.toBe("same");
    expect(raw[1]!.value.parentId).toBe("same");
  });

  it("turns a compaction's line index (header = 0) into the id of that line's entry", () => {
    const raw = lines(
      { type: "message", id: "m1" },
      { type: "message", id: "m2" },
      { type: "compaction", summary: "s", firstKeptEntryIndex: 2 },
    );
    migrateV1Entries(raw);
    expect(raw[2]!.value).toMatchObject({ firstKeptEntryId: "m2" });
    expect(raw[2]!.value).not.toHaveProperty("firstKeptEntryIndex");
  });

  it("keeps a compaction's own firstKeptEntryId, and drops an index that points at no entry", () => {
    const raw = lines(
      { type: "message", id: "m1" },
      { type: "compaction", firstKeptEntryIndex: 1, firstKeptEntryId: "given" },
      { type: "compaction", firstKeptEntryIndex: 40 },
    );
    migrateV1Entries(raw);
    expect(raw[1]!.value).toEqual({
      type: "compaction",
      id: raw[1]!.value.id,
      parentId: "m1",
      firstKeptEntryId: "given",
    });
    expect(raw[2]!.value).not.toHaveProperty("firstKeptEntryIndex");
    expect(raw[2]!.value).not.toHaveProperty("firstKeptEntryId");
  });

  it("leaves the index of an entry that is no compaction, and a compaction's index that is no number", () => {
    const raw = lines(
      { type: "message", id: "m1", firstKeptEntryIndex: 1 },
      { type: "compaction", firstKeptEntryIndex: "1" },
    );
    migrateV1Entries(raw);
    expect(raw[0]!.value.firstKeptEntryIndex).toBe(1);
    expect(raw[0]!.value).not.toHaveProperty("firstKeptEntryId");
    expect(raw[1]!.value.firstKeptEntryIndex).toBe("1");
    expect(raw[1]!.value).not.toHaveProperty("firstKeptEntryId");
  });
});

describe("migrateV2Entries", () => {
  it("renames the hookMessage role to custom in message entries only", () => {
    const raw = lines(
      { type: "message", message: { role: "hookMessage", content: "x" } },
      { type: "message", message: { role: "user", content: "x" } },
      { type: "custom", message: { role: "hookMessage" } },
      { type: "message" },
    );
    migrateV2Entries(raw);
    expect(raw.map((line) => (line.value.message as { role?: string } | undefined)?.role)).toEqual([
      "custom",
      "user",
      "hookMessage",
      undefined,
    ]);
  });
});

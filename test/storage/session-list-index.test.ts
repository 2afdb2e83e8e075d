import { createHash } from "node:crypto";
import { closeSync, existsSync, fstatSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  LIST_INDEX_MIN_BYTES,
  listIndexPathOf,
  readLatestName,
} from "../../src/storage/session-list-index.js";
import { tempRoot } from "../support/session-files.js";

let root: string;
let remove: () => void;
let path: string;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-list-index-"));
  path = join(root, "2026_s1.jsonl");
});
afterEach(() => remove());

const info = (name: string) => `${JSON.stringify({ type: "session_info", id: "i", parentId: null, name })}\n`;
const filler = (bytes: number) =>
  `${JSON.stringify({ type: "custom", id: "f", parentId: null, pad: "p".repeat(bytes) })}\n`;

/** The latest name as `list()` reads it, with the file's real size and inode. */
function latestName(): string | undefined {
  const fd = openSync(path, "r");
  try {
    const stat = fstatSync(fd);
    return readLatestName(path, fd, stat.size, stat.ino);
  } finally {
    closeSync(fd);
  }
}

/** A list index of the whole file as it is now, claiming `name`, with `patch` applied. */
function writeIndex(name: string, patch: Record<string, unknown> = {}): void {
  const bytes = readFileSync(path);
  const tail = createHash("sha1")
    .update(bytes.subarray(Math.max(0, bytes.length - 4096)))
    .digest("hex");
  const index = { version: 1, size: bytes.length, ino: fstatSyncOf(path), tail, name, ...patch };
  writeFileSync(listIndexPathOf(path), JSON.stringify(index));
}
function fstatSyncOf(file: string): number {
  const fd = openSync(file, "r");
  try {
    return fstatSync(fd).ino;
  } finally {
    closeSync(fd);
  }
}

describe("readLatestName", () => {
  it("trusts a valid index: its name stands when no session_info follows it", () => {
    writeFileSync(path, `${info("real")}${filler(LIST_INDEX_MIN_BYTES)}`);
    writeIndex("from the index");
    expect(latestName()).toBe("from the index");
  });

  it.each<[string, Record<string, unknown>]>([
    ["of another version", { version: 2 }],
    ["of another inode", { ino: 1 }],
    ["without a numeric size", { size: "1" }],
    ["past the file's end", { size: 10 * LIST_INDEX_MIN_BYTES }],
    ["whose name is no string", { name: 3 }],
    ["whose fingerprint differs", { tail: "0".repeat(40) }],
  ])("scans the file instead of an index %s", (_, patch) => {
    writeFileSync(path, `${info("real")}${filler(LIST_INDEX_MIN_BYTES)}`);
    writeIndex("from the index", patch);
    expect(latestName()).toBe("real");
  });

  it("scans an index that is no JSON object, and one that is null", () => {
    writeFileSync(path, `${info("real")}${filler(LIST_INDEX_MIN_BYTES)}`);
    writeFileSync(listIndexPathOf(path), "null");
    expect(latestName()).toBe("real");
  });

  it("reads a session_info appended after the index, and keeps the index's name without one", () => {
    writeFileSync(path, `${info("real")}${filler(LIST_INDEX_MIN_BYTES)}`);
    writeIndex("indexed");
    writeFileSync(path, `${readFileSync(path, "utf8")}${filler(10)}${info("newer")}`);
    expect(latestName()).toBe("newer");
  });

  it("reads a small file whole and keeps no index for it", () => {
    writeFileSync(path, `${info("small")}${filler(100)}`);
    writeIndex("stale");
    expect(latestName()).toBe("small");
    writeFileSync(path, filler(100));
    expect(latestName()).toBeUndefined();
  });

  it("writes an index after scanning 64 KB or more, vouching for whole lines only", () => {
    writeFileSync(path, `${info("real")}${filler(LIST_INDEX_MIN_BYTES)}`);
    expect(latestName()).toBe("real");
    const index = JSON.parse(readFileSync(listIndexPathOf(path), "utf8")) as Record<string, unknown>;
    expect(index).toMatchObject({
      version: 1,
      size: readFileSync(path).length,
      ino: fstatSyncOf(path),
      name: "real",
    });
    // A torn last line: the index covers the lines before it.
    writeFileSync(path, `${filler(LIST_INDEX_MIN_BYTES)}{"type":"cus`);
    writeFileSync(listIndexPathOf(path), "");
    expect(latestName()).toBeUndefined();
    const torn = JSON.parse(readFileSync(listIndexPathOf(path), "utf8")) as Record<string, unknown>;
    expect(torn.size).toBe(Buffer.byteLength(filler(LIST_INDEX_MIN_BYTES)));
    expect(torn).not.toHaveProperty("name");
  });

  it("writes no index when the name was found past the last line end, nor after a short scan", () => {
    writeFileSync(path, `${filler(LIST_INDEX_MIN_BYTES)}${info("unterminated").trimEnd()}`);
    expect(latestName()).toBe("unterminated");
    expect(existsSync(listIndexPathOf(path))).toBe(false);
    writeFileSync(path, `${info("real")}${filler(LIST_INDEX_MIN_BYTES)}`);
    writeIndex("indexed");
    const before = readFileSync(listIndexPathOf(path), "utf8");
    writeFileSync(path, `${readFileSync(path, "utf8")}${filler(100)}`);
    expect(latestName()).toBe("indexed");
    expect(readFileSync(listIndexPathOf(path), "utf8")).toBe(before);
  });
});

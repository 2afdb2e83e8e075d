import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { readAt, writeFileAtomic } from "./jsonl-files.js";
import { scanForLatestName } from "./session-name-scan.js";

/** Files smaller than this are scanned whole by `list()` (one read); no index is kept for them. */
export const LIST_INDEX_MIN_BYTES = 64 * 1024;
const FINGERPRINT_BYTES = 4096;

/**
 * The sidecar `<session file>.index.json`: the session's name as of byte `size` of the file, so
 * `list()` need not read a large file to learn there is no newer name. It is a cache, trusted only
 * while it still describes the file: same inode (an atomic rewrite — repair, migration — makes a
 * new one), `size` not past the end (a cut tail), and the same SHA-1 of the 4 KB before `size`
 * (content rewritten in place). Lines appended after `size` — by this library or by pi, which
 * knows nothing of the index — are scanned for a newer `session_info` on every listing.
 */
interface ListIndex {
  version: 1;
  size: number;
  ino: number;
  tail: string;
  name?: string;
}

/** Where the list index of a session file lives. */
export function listIndexPathOf(sessionPath: string): string {
  return `${sessionPath}.index.json`;
}

/**
 * The latest session name of an open session file (`fd`, `size` bytes, inode `ino`), reading only
 * what it must: small files whole; large ones from the end of a valid list index on, backwards
 * until a `session_info` line — so a name set early in a large file, or none at all, costs the
 * index and the lines appended since it was written. After scanning 64 KB or more it writes the
 * index anew (best effort: a read-only folder only makes the next listing slower). Throws the fs
 * error when reading the session file fails.
 */
export function readLatestName(
  sessionPath: string,
  fd: number,
  size: number,
  ino: number,
): string | undefined {
  if (size < LIST_INDEX_MIN_BYTES) {
    const scan = scanForLatestName(fd, 0, size);
    return scan.name;
  }
  const index = readValidIndex(sessionPath, fd, size, ino);
  const from = index?.size ?? 0;
  const scan = scanForLatestName(fd, from, size);
  const name = scan.found ? scan.name : index?.name;
  const foundPastLines = scan.found && (scan.foundEnd ?? 0) > scan.linesEnd;
  if (scan.linesEnd - from >= LIST_INDEX_MIN_BYTES && !foundPastLines) {
    writeIndexQuietly(sessionPath, fd, scan.linesEnd, ino, name);
  }
  return name;
}

/**
 * Writes the list index of a session file that holds `name` as of its end, when the file is large
 * enough to need one. Used by a session's writer when it closes. Never throws.
 */
export function writeListIndexAtClose(sessionPath: string, name: string | undefined): void {
  let fd: number | undefined;
  try {
    fd = openSync(sessionPath, "r");
    const stat = fstatSync(fd);
    if (stat.size >= LIST_INDEX_MIN_BYTES) writeIndexQuietly(sessionPath, fd, stat.size, stat.ino, name);
  } catch {
    // the index is only a cache
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function readValidIndex(sessionPath: string, fd: number, size: number, ino: number): ListIndex | undefined {
  let index: ListIndex;
  try {
    index = JSON.parse(readFileSync(listIndexPathOf(sessionPath), "utf8")) as ListIndex;
  } catch {
    return undefined;
  }
  if (
    index?.version !== 1 ||
    index.ino !== ino ||
    typeof index.size !== "number" ||
    index.size > size ||
    (index.name !== undefined && typeof index.name !== "string")
  ) {
    return undefined;
  }
  return index.tail === sha1(tailBefore(fd, index.size)) ? index : undefined;
}

/** Writes the index covering `[0, size)`, only if `size` is at a line end. Never throws. */
function writeIndexQuietly(
  sessionPath: string,
  fd: number,
  size: number,
  ino: number,
  name: string | undefined,
): void {
  try {
    const tail = tailBefore(fd, size);
    if (tail[tail.length - 1] !== 10) return; // a torn or unfinished last line: nothing to vouch for
    const index: ListIndex = { version: 1, size, ino, tail: sha1(tail) };
    if (name !== undefined) index.name = name;
    writeFileAtomic(listIndexPathOf(sessionPath), JSON.stringify(index), "none");
  } catch {
    // the index is only a cache
  }
}

/** The (up to) 4 KB before `size`. */
function tailBefore(fd: number, size: number): Buffer {
  const length = Math.min(size, FINGERPRINT_BYTES);
  const buffer = Buffer.alloc(length);
  return buffer.subarray(0, readAt(fd, buffer, size - length, length));
}

function sha1(bytes: Buffer): string {
  return createHash("sha1").update(bytes).digest("hex");
}

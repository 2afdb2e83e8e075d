import type { FileHandle } from "node:fs/promises";
import { throwIfAborted } from "./regular-file.js";

/** Which lines of a file to read, and the bounds of what is kept. */
export interface LineWindowRequest {
  /** First line to keep (1-based). */
  startLine: number;
  /** Lines asked for (`read`'s `limit`); stopping there is not a truncation. */
  limit?: number;
  /** Most lines kept; stopping there is a truncation (`truncatedBy: "lines"`). */
  maxLines: number;
  /** Most bytes kept, newlines between lines included (UTF-8). */
  maxBytes: number;
  /** The rest of a file at most this large is scanned after the window to count its lines. */
  countLinesUpTo: number;
  /** Size of the file (from `fstat`), for `countLinesUpTo`. */
  size: number;
  signal: AbortSignal;
}

/** The lines read, and what is known about the rest of the file. */
export interface LineWindow {
  /** The kept lines, without their newlines. Empty when `startLine` is past the end. */
  lines: string[];
  /** The only kept line is longer than `maxBytes`: it holds its first `maxBytes` bytes. */
  lineCut: boolean;
  /** Why lines were left out before `limit` was reached. */
  truncatedBy?: "lines" | "bytes";
  /** Lines follow the kept ones (false when unknown: a cut line in a file too large to count). */
  more: boolean;
  /** Lines in the whole file, when it was read to its end. */
  totalLines?: number;
}

const NEWLINE = 0x0a;
const CHUNK_BYTES = 64 * 1024;

/**
 * Reads lines `startLine…` of a file through `handle` in 64 KB chunks and stops as soon as the
 * window is full: memory stays bounded by `maxBytes` and one chunk, whatever the file's size or the
 * length of its lines. Lines before `startLine` are counted, not kept; a first line longer than
 * `maxBytes` is cut (at a UTF-8 character boundary), not loaded whole. Lines are split on `\n` only
 * and a final newline does not start a line, as `splitLines` does. Reads use positions, so the
 * handle's own position is not moved.
 *
 * Contract: async; checks `signal` before every chunk and rejects with "Operation aborted"; rejects
 * with the system's error when a read fails.
 *
 * ```ts
 * import { open } from "node:fs/promises";
 * const handle = await open("notes.txt");
 * const { size } = await handle.stat();
 * const window = await readLineWindow(handle, {
 *   startLine: 10, limit: 3, maxLines: 2000, maxBytes: 50 * 1024, countLinesUpTo: 8 << 20, size, signal,
 * });
 * window.lines; // lines 10, 11 and 12
 * ```
 */
export async function readLineWindow(handle: FileHandle, request: LineWindowRequest): Promise<LineWindow> {
  const wanted = Math.min(request.limit ?? Number.POSITIVE_INFINITY, request.maxLines);
  const countAll = request.size <= request.countLinesUpTo;
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const window: LineWindow = { lines: [], lineCut: false, more: false };
  let phase: "skip" | "window" | "count" = request.startLine === 1 ? "window" : "skip";
  let line = 1;
  let newlines = 0;
  let keptBytes = 0;
  let current: Buffer[] = [];
  let currentBytes = 0;
  let lastByte: number | undefined;
  let position = 0;
  let reachedEnd = false;

  /** The window is complete; scan on only to count the file's lines. */
  const stop = (more: boolean, truncatedBy?: "lines" | "bytes") => {
    window.more = more;
    if (truncatedBy !== undefined) window.truncatedBy = truncatedBy;
    phase = "count";
  };
  const keepLine = (bytes: Buffer) => {
    window.lines.push(bytes.toString("utf8"));
    keptBytes += bytes.length + (window.lines.length > 1 ? 1 : 0);
  };

  reading: for (;;) {
    throwIfAborted(request.signal);
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) {
      reachedEnd = true;
      break;
    }
    position += bytesRead;
    lastByte = chunk[bytesRead - 1];
    const bytes = chunk.subarray(0, bytesRead);
    let at = 0;
    while (at < bytesRead) {
      if (phase !== "window") {
        const end = bytes.indexOf(NEWLINE, at);
        if (end === -1) break;
        newlines++;
        at = end + 1;
        if (phase === "skip" && ++line === request.startLine) phase = "window";
        continue;
      }
      // In the window, at the start of a line (current is empty) or inside one.
      if (current.length === 0 && window.lines.length === wanted) {
        stop(true, wanted === request.limit ? undefined : "lines");
        if (!countAll) break reading;
        continue;
      }
      const newline = bytes.indexOf(NEWLINE, at);
      const end = newline === -1 ? bytesRead : newline;
      const separator = window.lines.length > 0 ? 1 : 0;
      if (keptBytes + separator + currentBytes + (end - at) > request.maxBytes) {
        if (window.lines.length === 0) {
          current.push(bytes.subarray(at, at + request.maxBytes - currentBytes));
          keepLine(utf8Prefix(Buffer.concat(current)));
          window.lineCut = true;
          // Whether lines follow is known only if the count goes on.
          stop(false, "bytes");
        } else stop(true, "bytes");
        current = [];
        currentBytes = 0;
        if (!countAll) break reading;
        continue;
      }
      current.push(Buffer.from(bytes.subarray(at, end)));
      currentBytes += end - at;
      if (newline === -1) break;
      keepLine(Buffer.concat(current));
      current = [];
      currentBytes = 0;
      newlines++;
      at = newline + 1;
    }
  }
  if (phase === "window" && currentBytes > 0) keepLine(Buffer.concat(current));
  if (reachedEnd) {
    window.totalLines = newlines + (lastByte === undefined || lastByte === NEWLINE ? 0 : 1);
    const lastShown = request.startLine + window.lines.length - 1;
    window.more = window.lines.length > 0 && lastShown < window.totalLines;
  }
  return window;
}

/** The longest start of `bytes` that does not end inside a UTF-8 character. */
function utf8Prefix(bytes: Buffer): Buffer {
  let lead = bytes.length - 1;
  while (lead > 0 && bytes.length - lead < 4 && ((bytes[lead] as number) & 0xc0) === 0x80) lead--;
  const first = bytes[lead] ?? 0;
  const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return bytes.length - lead < length ? bytes.subarray(0, lead) : bytes;
}

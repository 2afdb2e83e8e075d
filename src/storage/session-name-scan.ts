import { readAt } from "./jsonl-files.js";
import { normalizeSessionName } from "./session-tree.js";

const MARK = '"type":"session_info"';
const MARK_BYTES = Buffer.from(MARK);
const CHUNK_BYTES = 64 * 1024;
/** Longer lines are not considered: a `session_info` line holds a short name. */
const MAX_INFO_LINE_BYTES = 1024 * 1024;
const EMPTY = Buffer.alloc(0);

/** What a search for the latest `session_info` entry found. */
export interface NameSearch {
  /** True when a `session_info` line was found; `name` is then its name (`undefined`: cleared). */
  found: boolean;
  name?: string;
}

/** The result of {@link scanForLatestName}. */
export interface NameScan extends NameSearch {
  /** Offset just past the range's last "\n" (the range's start when it has none). */
  linesEnd: number;
  /** Offset just past the found line (its "\n" excluded). */
  foundEnd?: number;
}

/**
 * The name of a line that is a `session_info` entry, or `undefined` when the line is anything else
 * (another entry, a nested `"type":"session_info"`, malformed JSON).
 */
function infoLineName(line: string): NameSearch | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const entry = value as { type?: unknown; name?: unknown };
  if (entry.type !== "session_info") return undefined;
  const search: NameSearch = { found: true };
  const name = normalizeSessionName(typeof entry.name === "string" ? entry.name : undefined);
  if (name !== undefined) search.name = name;
  return search;
}

/**
 * The latest `session_info` entry among the bytes `[start, end)` of a session file, read backwards
 * in 64 KB chunks from `end`, so a name near the end costs one read. `start` must be a line start.
 * Lines that do not parse (a torn tail) or are not `session_info` entries are passed over; an
 * unterminated last line counts when it parses (as `open` keeps it). Only lines containing
 * `"type":"session_info"` are parsed. Memory: one chunk plus the line being assembled (lines over
 * 1 MB are skipped unread). Throws the fs error when a read fails.
 */
export function scanForLatestName(fd: number, start: number, end: number): NameScan {
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(0, end - start)));
  let linesEnd: number | undefined;
  // The end of a line that began before the current chunk: its bytes from the chunk's end on.
  let carry: Buffer = EMPTY;
  let skippingLongLine = false;
  let pos = end;
  const check = (line: Buffer, lineEnd: number): NameScan | undefined => {
    if (skippingLongLine || line.length === 0 || !line.includes(MARK_BYTES)) return undefined;
    const search = infoLineName(line.toString("utf8"));
    if (search === undefined) return undefined;
    return { ...search, linesEnd: linesEnd ?? start, foundEnd: lineEnd };
  };
  while (pos > start) {
    const from = Math.max(start, pos - chunk.length);
    const block = chunk.subarray(0, readAt(fd, chunk, from, pos - from));
    let lineEnd = block.length;
    let newline = lineEnd > 0 ? block.lastIndexOf(10, lineEnd - 1) : -1;
    if (linesEnd === undefined && newline !== -1) linesEnd = from + newline + 1;
    while (newline !== -1) {
      const piece = block.subarray(newline + 1, lineEnd);
      const line = carry.length === 0 ? piece : Buffer.concat([piece, carry]);
      const hit = check(line, from + lineEnd + carry.length);
      if (hit) return hit;
      carry = EMPTY;
      skippingLongLine = false;
      lineEnd = newline;
      newline = lineEnd > 0 ? block.lastIndexOf(10, lineEnd - 1) : -1;
    }
    if (!skippingLongLine) {
      if (lineEnd + carry.length > MAX_INFO_LINE_BYTES) {
        skippingLongLine = true;
        carry = EMPTY;
      } else {
        carry = Buffer.concat([block.subarray(0, lineEnd), carry]);
      }
    }
    pos = from;
  }
  return check(carry, start + carry.length) ?? { found: false, linesEnd: linesEnd ?? start };
}

/**
 * The latest `session_info` entry in `text` (complete JSONL lines, as a session writer gets them),
 * searched from the end; only lines containing `"type":"session_info"` are parsed.
 */
export function latestNameInText(text: string): NameSearch {
  let at = text.lastIndexOf(MARK);
  while (at !== -1) {
    const start = text.lastIndexOf("\n", at) + 1;
    const end = text.indexOf("\n", at);
    const search = infoLineName(text.slice(start, end === -1 ? undefined : end));
    if (search) return search;
    at = start === 0 ? -1 : text.lastIndexOf(MARK, start - 1);
  }
  return { found: false };
}

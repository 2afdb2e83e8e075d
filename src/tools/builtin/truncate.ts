/** Default output limits of the built-in tools. */
export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;

export interface TruncationLimits {
  maxLines?: number;
  maxBytes?: number;
}

/** What was kept of a text and why. Byte counts are UTF-8. */
export interface TruncationResult {
  text: string;
  truncated: boolean;
  truncatedBy?: "lines" | "bytes";
  totalLines: number;
  totalBytes: number;
  keptLines: number;
  keptBytes: number;
}

/**
 * Keeps the beginning of `text`: whole lines only, at most `maxLines` lines and `maxBytes` bytes.
 * When even the first line is over the byte limit nothing is kept (`keptLines: 0`).
 *
 * Contract: the kept text is never over `maxBytes` UTF-8 bytes nor `maxLines` lines, and starts the text.
 */
export function truncateHead(text: string, limits: TruncationLimits = {}): TruncationResult {
  const { maxLines, maxBytes } = resolveLimits(limits);
  const lines = splitLines(text);
  const totalBytes = Buffer.byteLength(text);
  let keptBytes = 0;
  let kept = 0;
  let truncatedBy: "lines" | "bytes" | undefined;
  for (const line of lines) {
    if (kept === maxLines) {
      truncatedBy = "lines";
      break;
    }
    const cost = Buffer.byteLength(line) + (kept > 0 ? 1 : 0);
    if (keptBytes + cost > maxBytes) {
      truncatedBy = "bytes";
      break;
    }
    keptBytes += cost;
    kept++;
  }
  if (truncatedBy === undefined) {
    if (totalBytes <= maxBytes) return untruncated(text, lines.length, totalBytes);
    truncatedBy = "bytes"; // every line fits, the trailing newline does not
  }
  const keptText = lines.slice(0, kept).join("\n");
  return result(keptText, truncatedBy, lines.length, totalBytes, kept);
}

/**
 * Keeps the end of `text`: at most `maxLines` lines and `maxBytes` bytes. When the last line alone
 * is over the byte limit, its final `maxBytes` bytes are kept (no character cut in two).
 *
 * Contract: the kept text is never over `maxBytes` UTF-8 bytes nor `maxLines` lines (`maxLines: 0`
 * keeps nothing), and ends the text (a trailing newline aside).
 */
export function truncateTail(text: string, limits: TruncationLimits = {}): TruncationResult {
  const { maxLines, maxBytes } = resolveLimits(limits);
  const lines = splitLines(text);
  const totalBytes = Buffer.byteLength(text);
  let keptBytes = 0;
  let kept = 0;
  let truncatedBy: "lines" | "bytes" | undefined;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (kept === maxLines) {
      truncatedBy = "lines";
      break;
    }
    const cost = Buffer.byteLength(lines[i] as string) + (kept > 0 ? 1 : 0);
    if (keptBytes + cost > maxBytes) {
      truncatedBy = "bytes";
      break;
    }
    keptBytes += cost;
    kept++;
  }
  if (truncatedBy === undefined) {
    if (totalBytes <= maxBytes) return untruncated(text, lines.length, totalBytes);
    truncatedBy = "bytes"; // every line fits, the trailing newline does not
  }
  if (kept === 0 && truncatedBy === "bytes") {
    const last = Buffer.from(lines[lines.length - 1] as string);
    let start = last.length - maxBytes;
    while (start < last.length && isContinuationByte(last[start] as number)) start++; // no cut character
    return result(last.subarray(start).toString("utf8"), "bytes", lines.length, totalBytes, 1);
  }
  return result(lines.slice(lines.length - kept).join("\n"), truncatedBy, lines.length, totalBytes, kept);
}

/** Formats a byte count for notes: `512 B`, `3.2 KB`, `1.5 MB`, `2.0 GB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

/** Splits into lines; a single trailing newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop(); // a trailing newline ends a line; "" has none
  return lines;
}

function resolveLimits(limits: TruncationLimits): { maxLines: number; maxBytes: number } {
  return { maxLines: limits.maxLines ?? DEFAULT_MAX_LINES, maxBytes: limits.maxBytes ?? DEFAULT_MAX_BYTES };
}

function untruncated(text: string, totalLines: number, totalBytes: number): TruncationResult {
  return { text, truncated: false, totalLines, totalBytes, keptLines: totalLines, keptBytes: totalBytes };
}

function result(
  text: string,
  truncatedBy: "lines" | "bytes",
  totalLines: number,
  totalBytes: number,
  keptLines: number,
): TruncationResult {
  const keptBytes = Buffer.byteLength(text);
  return { text, truncated: true, truncatedBy, totalLines, totalBytes, keptLines, keptBytes };
}

/** Whether a UTF-8 byte continues a character (`10xxxxxx`) rather than starting one. */
function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * Serialized JSON lines split into what the `entries` table stores: `json` goes into the `jsonb`
 * column; `raw` keeps the exact line when jsonb cannot hold it (PostgreSQL rejects `\u0000` and lone
 * surrogate escapes), and the jsonb copy then has those escapes replaced by U+FFFD.
 */
export interface JsonbLines {
  json: string[];
  raw: (string | null)[];
}

/** Escapes jsonb refuses: NUL and UTF-16 surrogates (pairs are caught too; `raw` keeps them exact). */
const JSONB_UNSAFE_ESCAPE = /\\u(?:0000|[dD][89abcdefABCDEF][0-9a-fA-F]{2})/;
const JSONB_UNSAFE_ESCAPES = new RegExp(JSONB_UNSAFE_ESCAPE.source, "g");

/** Splits text of complete lines (each ending with "\n") into {@link JsonbLines}. */
export function toJsonbLines(text: string): JsonbLines {
  const lines: JsonbLines = { json: [], raw: [] };
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.length === 0) continue;
    pushLine(lines, line);
  }
  return lines;
}

/** Adds one JSON line (without "\n") to `lines`. */
export function pushLine(lines: JsonbLines, line: string): void {
  if (line.includes("\\u") && JSONB_UNSAFE_ESCAPE.test(line)) {
    lines.json.push(line.replace(JSONB_UNSAFE_ESCAPES, "\\ufffd"));
    lines.raw.push(line);
  } else {
    lines.json.push(line);
    lines.raw.push(null);
  }
}

import { parse as parseYaml } from "yaml";

/** A markdown file split into its metadata header and its body. */
export interface FrontMatterDocument {
  /** The header as an object; `{}` when the file has no header. */
  data: Record<string, unknown>;
  /** Which header form the file used. */
  format: "yaml" | "json" | "none";
  /** The text after the header, trimmed. */
  body: string;
}

/** Thrown by `splitFrontMatter` when a header is present but cannot be parsed. */
export class FrontMatterError extends Error {
  override name = "FrontMatterError";
}

/** Normalises CRLF / CR line endings to LF and drops a UTF-8 byte-order mark. */
export function normalizeNewlines(text: string): string {
  return text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
}

/**
 * Splits a markdown file into header data and body. Two header forms are accepted:
 * YAML between a leading `---` line and the next `---` line, or a JSON object at the very start
 * of the file closed by a `---` line (`{"name": "x"}\n---\nbody`). A file with neither has
 * `format: "none"` and `data: {}`.
 *
 * Throws `FrontMatterError` when a header is present but malformed (invalid YAML/JSON, not a
 * mapping, or a YAML header that is never closed).
 */
export function splitFrontMatter(raw: string): FrontMatterDocument {
  const text = normalizeNewlines(raw);
  if (text.startsWith("---\n") || text === "---") {
    const close = findDelimiterLine(text, 4);
    if (close === undefined) throw new FrontMatterError("front matter starts with --- but is never closed");
    const data = parseHeader(() => parseYaml(text.slice(4, close.start)), "YAML");
    return { data, format: "yaml", body: text.slice(close.end).trim() };
  }
  if (text.startsWith("{")) {
    const close = findDelimiterLine(text, 0);
    if (close !== undefined) {
      const data = parseHeader(() => JSON.parse(text.slice(0, close.start)), "JSON");
      return { data, format: "json", body: text.slice(close.end).trim() };
    }
  }
  return { data: {}, format: "none", body: text.trim() };
}

/** Finds the first line that is exactly `---` at or after `from` (which must be a line start). */
function findDelimiterLine(text: string, from: number): { start: number; end: number } | undefined {
  let lineStart = from;
  while (lineStart <= text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    if (text.slice(lineStart, lineEnd).trimEnd() === "---") {
      return { start: lineStart, end: newline === -1 ? text.length : newline + 1 };
    }
    if (newline === -1) return undefined;
    lineStart = newline + 1;
  }
  return undefined;
}

function parseHeader(parse: () => unknown, kind: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parse();
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new FrontMatterError(`invalid ${kind} front matter: ${detail}`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new FrontMatterError(`${kind} front matter must be a mapping of fields`);
  }
  return value as Record<string, unknown>;
}

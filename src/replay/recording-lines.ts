import {
  RECORDING_FORMAT,
  RECORDING_FORMAT_VERSION,
  type RecordingEntry,
  RecordingError,
  type RecordingHeader,
} from "./recording-format.js";

/**
 * The header and entries of a recording's JSONL text, each line checked.
 *
 * Contract: pure; throws `RecordingError` naming the first bad line (see `Recording.fromJSONL`).
 */
export function parseRecordingLines(text: string): { header: RecordingHeader; entries: RecordingEntry[] } {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length === 0 || lines.every((line) => line.trim() === ""))
    throw new RecordingError("empty", "the recording is empty (its first line must be the recording header)");
  const parsed = lines.map((line, index) => parseLine(line, index + 1));
  const header = checkRecordingHeader(parsed[0], 1);
  const entries = parsed.slice(1).map((value, index) => checkRecordingEntry(value, index + 2));
  return { header, entries };
}

function parseLine(line: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw new RecordingError(
      "parse",
      `not JSON (a truncated or hand-edited recording?): ${(error as Error).message}`,
      number,
    );
  }
}

/**
 * `value` as a recording header (format, version, source).
 *
 * Contract: pure; throws `RecordingError` at `line` (or at `where`, e.g. a session entry) otherwise.
 */
export function checkRecordingHeader(
  value: unknown,
  line: number | undefined,
  where?: string,
): RecordingHeader {
  const header = value as Partial<RecordingHeader> | null;
  if (typeof header !== "object" || header === null || header.format !== RECORDING_FORMAT)
    throw new RecordingError(
      "format",
      `not a recording header (expected "format": "${RECORDING_FORMAT}")`,
      line,
      where,
    );
  if (header.version !== RECORDING_FORMAT_VERSION)
    throw new RecordingError(
      "version",
      `the recording has format version ${JSON.stringify(header.version)}; this agentchart reads version ${RECORDING_FORMAT_VERSION}`,
      line,
      where,
    );
  if (header.source !== "agent" && header.source !== "harness")
    throw new RecordingError("invalid", `the header's "source" must be "agent" or "harness"`, line, where);
  return header as RecordingHeader;
}

/** The fields each kind of entry must have, with their JSON type. */
const REQUIRED: Record<RecordingEntry["kind"], Record<string, "string" | "object" | "array" | "number">> = {
  model_call: { agentPath: "array", key: "string", request: "object", events: "array" },
  tool_call: { agentPath: "array", toolCallId: "string", toolName: "string" },
  command: { agentPath: "array", command: "object" },
  step: { index: "number", step: "string", snapshot: "object" },
};

/**
 * `value` as a recording entry: a known `kind` with the fields of that kind.
 *
 * Contract: pure; throws `RecordingError` at `line` (or at `where`, e.g. a session entry) otherwise.
 */
export function checkRecordingEntry(
  value: unknown,
  line: number | undefined,
  where?: string,
): RecordingEntry {
  const entry = value as Record<string, unknown> | null;
  const kind = typeof entry === "object" && entry !== null ? entry.kind : undefined;
  if (typeof kind !== "string" || !Object.hasOwn(REQUIRED, kind))
    throw new RecordingError(
      "invalid",
      `not a recording entry (its "kind" must be one of ${Object.keys(REQUIRED).join(", ")})`,
      line,
      where,
    );
  for (const [field, type] of Object.entries(REQUIRED[kind as RecordingEntry["kind"]])) {
    const item = (entry as Record<string, unknown>)[field];
    const actual = Array.isArray(item) ? "array" : item === null ? "null" : typeof item;
    if (actual !== type)
      throw new RecordingError(
        "invalid",
        `the ${kind} entry's "${field}" must be ${type === "array" ? "an array" : `a ${type}`}`,
        line,
        where,
      );
  }
  return entry as unknown as RecordingEntry;
}

import { SessionError } from "../types/session-error.js";
import type { RecoveredLine, SessionEntry, SessionHeader } from "./entries.js";
import { entryFieldsProblem } from "./entry-schema.js";
import { headerVersion, migrateHeader, migrateV1Entries, migrateV2Entries, type RawLine } from "./migrate.js";
import { SessionTree } from "./session-tree.js";

/** The result of reading a session file's text. */
export interface ParsedSession {
  header: SessionHeader;
  tree: SessionTree;
  /** Format version of the file as read (1, 2 or 3); below 3 the content was migrated in memory. */
  sourceVersion: number;
  /** Middle lines skipped under `recover`. */
  skipped: RecoveredLine[];
  /** An unparsable last line (a torn write), not part of `tree`. `start` is its character offset. */
  tornTail?: RecoveredLine & { start: number };
  /** True when the last kept line lacks its trailing newline. */
  missingFinalNewline: boolean;
}

const SECRET_KEYS = new Set(["apiKey"]);
const TOP_LEVEL_SECRET_KEYS = new Set(["apiKey", "headers"]);

function stripSecrets(key: string, value: unknown, topLevel: boolean): unknown {
  if (SECRET_KEYS.has(key) || (topLevel && TOP_LEVEL_SECRET_KEYS.has(key))) return undefined;
  return value;
}

/**
 * One JSON line (with "\n") for an entry or header. Keys named `apiKey` (at any depth) and `headers`
 * (on the entry or its message) are never written.
 */
export function serializeLine(value: SessionEntry | SessionHeader): string {
  const json = JSON.stringify(value);
  const message = (value as { message?: unknown }).message;
  // Cheap superset of the cases that need stripping: `Key"` is rare in JSON text (a one-byte scan that
  // rarely stops) and every "apiKey" key contains it; `headers` only counts on the entry or its message.
  const maybeSecret =
    json.includes('Key"') ||
    "headers" in value ||
    (typeof message === "object" && message !== null && "headers" in message);
  if (!maybeSecret) return `${json}\n`;
  const holders = new Set<unknown>([value, message]);
  const safe = JSON.stringify(value, function (this: unknown, key, inner) {
    return stripSecrets(key, inner, holders.has(this));
  });
  return `${safe}\n`;
}

function fail(line: number, reason: string): SessionError {
  return new SessionError("invalid_entry", `Session file line ${line}: ${reason}.`);
}

/** Why an entry's envelope (type, id, parentId, timestamp) is unusable, or `undefined`. */
function envelopeProblem(value: Record<string, unknown>): string | undefined {
  if (typeof value.type !== "string" || !value.type) return "missing entry type";
  if (typeof value.id !== "string" || !value.id) return "missing entry id";
  if (value.parentId !== null && typeof value.parentId !== "string")
    return "parentId must be a string or null";
  if (typeof value.timestamp !== "string") return "missing timestamp";
  return undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Inserts checked entries into `tree`: a bad one throws `invalid_entry` naming its line, or with
 * `recover` is listed in `skipped`. An entry skipped only for its fields (a malformed message) keeps
 * its place in the tree's shape: its children are attached to its parent, so one bad message does not
 * cost the rest of the conversation.
 */
function entryAdder(
  tree: SessionTree,
  skipped: RecoveredLine[],
  options: { recover?: boolean },
): (line: number, value: Record<string, unknown>) => void {
  const parentOfSkipped = new Map<string, string | null>();
  return (line, value) => {
    let problem = envelopeProblem(value);
    if (problem === undefined) {
      const parentId = value.parentId as string | null;
      const relinked = parentId === null ? undefined : parentOfSkipped.get(parentId);
      problem = entryFieldsProblem(value);
      if (problem !== undefined) {
        const id = value.id as string;
        if (!tree.has(id)) parentOfSkipped.set(id, relinked === undefined ? parentId : relinked);
      } else {
        if (relinked !== undefined) value.parentId = relinked;
        try {
          tree.insert(value as unknown as SessionEntry);
          return;
        } catch (error) {
          problem = (error as Error).message;
        }
      }
    }
    if (!options.recover) throw fail(line, problem);
    skipped.push({ line, reason: problem, text: JSON.stringify(value) });
  };
}

/**
 * Builds a session from an already parsed v3 header and entries (e.g. rows of a database), checked
 * like the lines of a file: numbered as lines 2, 3, … after the header; a bad entry throws
 * `invalid_entry`, or with `recover` is skipped and listed.
 */
export function parseSessionValues(
  header: Record<string, unknown>,
  entries: readonly Record<string, unknown>[],
  options: { recover?: boolean } = {},
): ParsedSession {
  if (header.type !== "session" || typeof header.id !== "string" || typeof header.cwd !== "string") {
    throw fail(1, 'not a session header (expected {type:"session", id, cwd, …})');
  }
  if (headerVersion(header) !== 3) throw fail(1, "expected a version-3 session header");
  const tree = new SessionTree();
  const skipped: RecoveredLine[] = [];
  const addEntry = entryAdder(tree, skipped, options);
  for (let i = 0; i < entries.length; i++) addEntry(i + 2, entries[i]!);
  return { header: migrateHeader(header), tree, sourceVersion: 3, skipped, missingFinalNewline: false };
}

/**
 * Parses the text of a session file (pi format v1, v2 or v3) into a header and a tree, in one pass:
 * each line is parsed once and a v3 entry goes straight into the tree's indexes.
 *
 * - An unparsable last line is a torn write: it is returned as `tornTail` (the caller repairs the file).
 * - Any other bad line throws `SessionError("invalid_entry")` naming the first one, or with `recover`
 *   is skipped and listed in `skipped`.
 * - v1/v2 content is migrated in memory (ids, linear parents, `firstKeptEntryId`, `hookMessage`); its
 *   entries are collected first, since migration needs all of them.
 */
export function parseSessionText(text: string, options: { recover?: boolean } = {}): ParsedSession {
  const tree = new SessionTree();
  const skipped: RecoveredLine[] = [];
  const addEntry = entryAdder(tree, skipped, options);

  let header: Record<string, unknown> | undefined;
  let sourceVersion = 3;
  let toMigrate: RawLine[] | undefined;
  let tornTail: ParsedSession["tornTail"];
  let lastKeptEnd = 0;
  let lineNo = 0;
  let start = 0;
  const length = text.length;
  while (start < length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = length;
    lineNo++;
    const lineStart = start;
    start = end + 1;
    if (end === lineStart) continue;
    const lineText = text.slice(lineStart, end);
    if (lineText.charCodeAt(0) <= 32 && lineText.trim() === "") continue;
    const value = parseObject(lineText);
    if (header === undefined) {
      if (value?.type !== "session" || typeof value.id !== "string" || typeof value.cwd !== "string") {
        throw fail(lineNo, 'not a session header (expected {type:"session", id, cwd, …})');
      }
      sourceVersion = headerVersion(value);
      if (sourceVersion > 3) {
        throw fail(lineNo, `unsupported session version ${String(value.version)} (this library reads 1–3)`);
      }
      if (sourceVersion < 3) toMigrate = [];
      header = value;
      lastKeptEnd = end;
      continue;
    }
    if (value === undefined) {
      if (text.slice(start).trim() === "") {
        tornTail = {
          line: lineNo,
          reason: "torn last line (unparsable JSON)",
          text: lineText,
          start: lineStart,
        };
        break;
      }
      if (!options.recover) throw fail(lineNo, "not a JSON object");
      skipped.push({ line: lineNo, reason: "not a JSON object", text: lineText });
      continue;
    }
    if (toMigrate) toMigrate.push({ line: lineNo, value });
    else addEntry(lineNo, value);
    lastKeptEnd = end;
  }
  if (header === undefined) throw fail(1, "the file is empty (no session header)");

  if (toMigrate) {
    if (sourceVersion < 2) migrateV1Entries(toMigrate);
    migrateV2Entries(toMigrate);
    for (const { line, value } of toMigrate) addEntry(line, value);
  }
  const result: ParsedSession = {
    header: migrateHeader(header),
    tree,
    sourceVersion,
    skipped,
    missingFinalNewline: lastKeptEnd === length && !text.endsWith("\n"),
  };
  if (tornTail) result.tornTail = tornTail;
  return result;
}

/** The full text of a session file: header and entries in order. */
export function serializeSession(header: SessionHeader, entries: readonly SessionEntry[]): string {
  let text = serializeLine(header);
  for (const entry of entries) text += serializeLine(entry);
  return text;
}

import type { SessionHeader } from "./entries.js";
import { createEntryId } from "./ids.js";

/** A parsed line: its 1-based line number and the raw object. */
export interface RawLine {
  line: number;
  value: Record<string, unknown>;
}

/** The format version a header declares: pi's version-1 headers have no `version` field. */
export function headerVersion(header: Record<string, unknown>): number {
  return typeof header.version === "number" ? header.version : 1;
}

/** Turns a pi v1/v2 header into a v3 header, keeping unknown fields (pi ignores them). */
export function migrateHeader(header: Record<string, unknown>): SessionHeader {
  const migrated = { ...header, type: "session", version: 3 } as SessionHeader & Record<string, unknown>;
  if (migrated.parentSession === undefined && typeof header.branchedFrom === "string") {
    migrated.parentSession = header.branchedFrom;
  }
  return migrated;
}

/**
 * Migrates pi version-1 entries in place: every entry gets a fresh 8-character id and the previous
 * entry as parent (v1 files are linear), and compactions' `firstKeptEntryIndex` (a file line index
 * where the header is 0) becomes `firstKeptEntryId`.
 */
export function migrateV1Entries(lines: RawLine[]): void {
  const taken = new Set<string>();
  const idByLineIndex = new Map<number, string>();
  let previous: string | null = null;
  for (const { line, value } of lines) {
    const id =
      typeof value.id === "string" && value.id && !taken.has(value.id) ? value.id : createEntryId(taken);
    taken.add(id);
    value.id = id;
    value.parentId = previous;
    previous = id;
    idByLineIndex.set(line - 1, id);
  }
  for (const { value } of lines) {
    if (value.type !== "compaction" || typeof value.firstKeptEntryIndex !== "number") continue;
    const keptId = idByLineIndex.get(value.firstKeptEntryIndex);
    if (keptId !== undefined && value.firstKeptEntryId === undefined) value.firstKeptEntryId = keptId;
    delete value.firstKeptEntryIndex;
  }
}

/** Migrates pi version-2 entries in place: the role `hookMessage` became `custom`. */
export function migrateV2Entries(lines: RawLine[]): void {
  for (const { value } of lines) {
    const message = value.message as { role?: unknown } | undefined;
    if (value.type === "message" && message?.role === "hookMessage") message.role = "custom";
  }
}

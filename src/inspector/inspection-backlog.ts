import type { InspectionRecord, MachineDefinitionRecord } from "./inspection-record.js";

/** The bounded memory of an inspector: the latest records plus every machine definition seen. */
export interface InspectionBacklog {
  /**
   * Stores a record, evicting the oldest ones beyond the record or byte limits. Returns the
   * record's JSON text, so callers can broadcast it without serializing it twice.
   */
  add(record: InspectionRecord): string;
  /** Machine definitions (kept even after their actor record was evicted) and records, oldest first. */
  replay(): { definitions: MachineDefinitionRecord[]; records: InspectionRecord[] };
  /** The JSON texts of the stored records, oldest first. */
  replayJson(): string[];
  readonly size: number;
  /** Total length of the stored JSON texts, in characters. */
  readonly bytes: number;
}

interface BacklogEntry {
  record: InspectionRecord;
  json: string;
}

/**
 * Creates a backlog keeping at most `capacity` records and about `maxBytes` characters of JSON
 * (the newest record is always kept). Definitions are kept apart so that a page connecting late can
 * still draw a machine whose first actor record was evicted.
 */
export function createInspectionBacklog(capacity = 2_000, maxBytes = 32 * 1024 * 1024): InspectionBacklog {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new RangeError(`Backlog capacity must be a positive integer, got ${capacity}`);
  }
  let entries: BacklogEntry[] = [];
  let head = 0;
  let bytes = 0;
  const definitions = new Map<string, MachineDefinitionRecord>();
  const stored = () => entries.slice(head);
  return {
    add(record) {
      if (record.kind === "actor" && record.definition) {
        definitions.set(record.definition.machineKey, record.definition);
      }
      const json = JSON.stringify(record);
      entries.push({ record, json });
      bytes += json.length;
      while (entries.length - head > 1 && (entries.length - head > capacity || bytes > maxBytes)) {
        bytes -= (entries[head] as BacklogEntry).json.length;
        head += 1;
      }
      if (head > 1_024 && head * 2 > entries.length) {
        entries = entries.slice(head);
        head = 0;
      }
      return json;
    },
    replay() {
      return { definitions: [...definitions.values()], records: stored().map((entry) => entry.record) };
    },
    replayJson() {
      return stored().map((entry) => entry.json);
    },
    get size() {
      return entries.length - head;
    },
    get bytes() {
      return bytes;
    },
  };
}

/**
 * Prefixes every session id and machine key of a record, so that records ingested from several
 * processes (whose session ids all start at `x:0`) do not collide. Returns a new record.
 */
export function namespaceRecord(record: InspectionRecord, prefix: string): InspectionRecord {
  const scoped = { ...record, sessionId: prefix + record.sessionId, rootId: prefix + record.rootId };
  if (record.parentId !== undefined) scoped.parentId = prefix + record.parentId;
  switch (scoped.kind) {
    case "actor":
      if (scoped.machineKey !== undefined) scoped.machineKey = prefix + scoped.machineKey;
      if (scoped.definition) {
        scoped.definition = { ...scoped.definition, machineKey: prefix + scoped.definition.machineKey };
      }
      return scoped;
    case "event":
      if (scoped.sourceId !== undefined) scoped.sourceId = prefix + scoped.sourceId;
      return scoped;
    case "snapshot":
      scoped.children = Object.fromEntries(
        Object.entries(scoped.children).map(([childId, sessionId]) => [childId, prefix + sessionId]),
      );
      return scoped;
  }
}

/** Cheap structural check for records arriving over `/ingest`. */
export function isInspectionRecord(value: unknown): value is InspectionRecord {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    (record.kind === "actor" || record.kind === "event" || record.kind === "snapshot") &&
    typeof record.sessionId === "string" &&
    typeof record.actorId === "string" &&
    typeof record.rootId === "string" &&
    typeof record.seq === "number" &&
    (record.kind !== "snapshot" || (typeof record.children === "object" && record.children !== null))
  );
}

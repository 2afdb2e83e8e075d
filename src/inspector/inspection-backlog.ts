import type { InspectionRecord, MachineDefinitionRecord } from "./inspection-record.js";

/** The bounded memory of an inspector: the latest records plus every machine definition seen. */
export interface InspectionBacklog {
  /** Stores a record, evicting the oldest once `capacity` is reached. */
  add(record: InspectionRecord): void;
  /** Machine definitions (kept even after their actor record was evicted) and records, oldest first. */
  replay(): { definitions: MachineDefinitionRecord[]; records: InspectionRecord[] };
  readonly size: number;
}

/**
 * Creates a ring buffer of the last `capacity` records. Definitions are kept apart so that a page
 * connecting late can still draw a machine whose first actor record was evicted.
 */
export function createInspectionBacklog(capacity = 2_000): InspectionBacklog {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new RangeError(`Backlog capacity must be a positive integer, got ${capacity}`);
  }
  const slots: Array<InspectionRecord | undefined> = new Array(capacity);
  const definitions = new Map<string, MachineDefinitionRecord>();
  let next = 0;
  let size = 0;
  return {
    add(record) {
      if (record.kind === "actor" && record.definition) {
        definitions.set(record.definition.machineKey, record.definition);
      }
      slots[next] = record;
      next = (next + 1) % capacity;
      size = Math.min(size + 1, capacity);
    },
    replay() {
      const records: InspectionRecord[] = [];
      const start = size < capacity ? 0 : next;
      for (let i = 0; i < size; i += 1) {
        const record = slots[(start + i) % capacity];
        if (record) records.push(record);
      }
      return { definitions: [...definitions.values()], records };
    },
    get size() {
      return size;
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

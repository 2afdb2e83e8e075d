import type {
  EventRecord,
  InspectionRecord,
  InspectorServerMessage,
  JsonValue,
  MachineDefinitionRecord,
  SnapshotRecord,
} from "../inspection-record.js";

/**
 * The page's view of the inspected systems, rebuilt from records only. Pure data, no DOM, so it
 * runs (and is tested) in Node as well as in the browser.
 */

/** What the page knows about one actor. */
export interface ActorView {
  sessionId: string;
  actorId: string;
  /** The parent's session id, from the first record that carries it (none for a root). */
  parentId?: string;
  rootId: string;
  machineKey?: string;
  /** `"active" | "done" | "error" | "stopped"`; `"stopped"` once the parent dropped it. */
  status: string;
  /** The latest snapshot, if any. */
  snapshot?: SnapshotRecord;
  /** Order of appearance, for stable lists. */
  order: number;
}

/** A record with the page-local arrival index (sequence numbers may repeat across sources). */
export interface Indexed<TRecord> {
  index: number;
  record: TRecord;
}

/** Mutable page model; call {@link applyServerMessage} for each WebSocket message. */
export interface InspectorModel {
  definitions: Map<string, MachineDefinitionRecord>;
  actors: Map<string, ActorView>;
  /** Root session ids, in order of appearance. */
  roots: string[];
  events: Array<Indexed<EventRecord>>;
  snapshots: Array<Indexed<SnapshotRecord>>;
  nextIndex: number;
  maxEvents: number;
  maxSnapshots: number;
}

/** An empty model keeping at most `maxEvents` events and `maxSnapshots` snapshots. */
export function createInspectorModel(maxEvents = 500, maxSnapshots = 2_000): InspectorModel {
  return {
    definitions: new Map(),
    actors: new Map(),
    roots: [],
    events: [],
    snapshots: [],
    nextIndex: 0,
    maxEvents,
    maxSnapshots,
  };
}

/** Applies a server message; a `replay` resets the model first. */
export function applyServerMessage(model: InspectorModel, message: InspectorServerMessage): void {
  if (message.type === "replay") {
    Object.assign(model, createInspectorModel(model.maxEvents, model.maxSnapshots));
    for (const definition of message.definitions) model.definitions.set(definition.machineKey, definition);
  }
  for (const record of message.records) applyRecord(model, record);
}

/** Applies one record to the model. */
export function applyRecord(model: InspectorModel, record: InspectionRecord): void {
  const index = model.nextIndex++;
  const actor = ensureActor(model, record);
  switch (record.kind) {
    case "actor":
      if (record.definition) model.definitions.set(record.definition.machineKey, record.definition);
      if (record.machineKey !== undefined) actor.machineKey = record.machineKey;
      return;
    case "event":
      pushBounded(model.events, { index, record }, model.maxEvents);
      return;
    case "snapshot":
      pushBounded(model.snapshots, { index, record }, model.maxSnapshots);
      actor.snapshot = record;
      if (actor.status !== "stopped") actor.status = record.status;
      markDroppedChildren(model, record);
      return;
  }
}

/**
 * The actor of `record`, created on its first record. A child's `actor` record comes before its
 * parent is known (see `RecordBase.parentId`), so the parent is taken from the first record that has it.
 */
function ensureActor(model: InspectorModel, record: InspectionRecord): ActorView {
  const known = model.actors.get(record.sessionId);
  if (known) {
    if (known.parentId === undefined && record.parentId !== undefined) known.parentId = record.parentId;
    return known;
  }
  const actor: ActorView = {
    sessionId: record.sessionId,
    actorId: record.actorId,
    rootId: record.rootId,
    status: "active",
    order: model.actors.size,
  };
  if (record.parentId !== undefined) actor.parentId = record.parentId;
  model.actors.set(record.sessionId, actor);
  if (isRootActor(actor)) model.roots.push(record.sessionId);
  return actor;
}

/** True for the root actor of a system (its session id is the system's root id). */
export function isRootActor(actor: ActorView): boolean {
  return actor.sessionId === actor.rootId;
}

/** A child missing from its parent's snapshot was stopped (XState reports no stop event). */
function markDroppedChildren(model: InspectorModel, parent: SnapshotRecord): void {
  const current = new Set(Object.values(parent.children));
  for (const actor of model.actors.values()) {
    if (
      actor.parentId === parent.sessionId &&
      !current.has(actor.sessionId) &&
      actor.snapshot !== undefined
    ) {
      actor.status = "stopped";
    }
  }
  if (parent.status !== "active") {
    for (const actor of model.actors.values()) {
      if (actor.parentId === parent.sessionId) actor.status = "stopped";
    }
  }
}

function pushBounded<TItem>(items: TItem[], item: TItem, max: number): void {
  items.push(item);
  if (items.length > max) items.splice(0, items.length - max);
}

/**
 * Actors of one system (same root) in tree order: the root first, then each child (in order of
 * appearance) followed by its own descendants — so an agent tool's call is followed by its sub-agent
 * and the sub-agent's calls. An actor whose parent the model never saw follows the root.
 */
export function actorsOfSystem(model: InspectorModel, rootId: string): ActorView[] {
  const actors = [...model.actors.values()]
    .filter((actor) => actor.rootId === rootId)
    .sort((a, b) => a.order - b.order);
  const childrenOf = new Map<string, ActorView[]>();
  for (const actor of actors) {
    if (actor.sessionId === rootId) continue;
    const parent = actor.parentId !== undefined && model.actors.has(actor.parentId) ? actor.parentId : rootId;
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), actor]);
  }
  const ordered: ActorView[] = [];
  const visit = (actor: ActorView) => {
    ordered.push(actor);
    for (const child of childrenOf.get(actor.sessionId) ?? []) visit(child);
  };
  const root = model.actors.get(rootId);
  if (root) visit(root);
  else for (const orphan of childrenOf.get(rootId) ?? []) visit(orphan);
  return ordered;
}

/** How many ancestors of `actor` the model knows (0 for a root; a sub-agent's call is 2 deeper than its call). */
export function actorDepth(model: InspectorModel, actor: ActorView): number {
  let depth = 0;
  for (let parent = actor.parentId; parent !== undefined; parent = model.actors.get(parent)?.parentId) {
    if (!model.actors.has(parent)) break;
    depth += 1;
  }
  return depth;
}

/** The snapshot an event led to: the first snapshot of the same actor recorded after it. */
export function snapshotAfterEvent(
  model: InspectorModel,
  event: Indexed<EventRecord>,
): SnapshotRecord | undefined {
  const after = model.snapshots.find(
    (entry) => entry.index > event.index && entry.record.sessionId === event.record.sessionId,
  );
  return after?.record ?? model.actors.get(event.record.sessionId)?.snapshot;
}

/**
 * State paths active in a state value, relative to the machine root:
 * `{ executingTools: "waiting" }` → `["executingTools", "executingTools.waiting"]`.
 */
export function activeStatePaths(value: JsonValue | undefined, prefix = ""): string[] {
  if (typeof value === "string") return [prefix + value];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    prefix + key,
    ...activeStatePaths(child, `${prefix}${key}.`),
  ]);
}

/** A short label for a state value: `"executingTools.waiting"`. */
export function describeStateValue(value: JsonValue | undefined): string {
  const paths = activeStatePaths(value);
  return paths.filter((path) => !paths.some((other) => other.startsWith(`${path}.`))).join(", ");
}

/**
 * The JSON records the inspector sends over the wire. They are small projections of XState's
 * inspection events (`@xstate.actor`, `@xstate.event`, `@xstate.snapshot`): every value in them is
 * plain JSON, already sanitized, so they can be logged, persisted and replayed unchanged.
 *
 * Actor identity: `sessionId` is unique within an actor system (`"x:3"`); `actorId` is the id the
 * actor was given (`"call_1"` for a tool call child). `parentId` and `rootId` are session ids. A root
 * is the actor whose `sessionId` equals its `rootId`. A child's `parentId` is known once it starts:
 * its `actor` record (sent when it is created) has none, its `xstate.init` event record and every
 * later record have it.
 */

/** JSON value as produced by the sanitizer. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One transition of a state node, reduced to its event type and target state ids. */
export interface TransitionDefinitionRecord {
  /** Event type; `""` for eventless (`always`) transitions, `xstate.after.*` for delayed ones. */
  event: string;
  /** Ids of the target state nodes; empty for targetless transitions. */
  targets: string[];
  /** True when the transition has a guard. */
  guarded: boolean;
}

/** One state node of a machine definition. */
export interface StateDefinitionRecord {
  /** Full state node id, e.g. `"agentLoop.executingTools"`. */
  id: string;
  key: string;
  type: "atomic" | "compound" | "parallel" | "final" | "history";
  /** Key of the initial child state (compound states only). */
  initial?: string;
  states: StateDefinitionRecord[];
  transitions: TransitionDefinitionRecord[];
  /** Ids of actors invoked by this state. */
  invokes: string[];
}

/** The definition of a machine, sent the first time an actor running it is seen. */
export interface MachineDefinitionRecord {
  /** Key unique per machine within one inspector (`"<machine id>#<n>"`). */
  machineKey: string;
  root: StateDefinitionRecord;
}

/** Fields shared by all records. */
export interface RecordBase {
  /** Sequence number assigned by the inspector that projected the record (monotonic per source). */
  seq: number;
  /** Milliseconds since the epoch, when the record was projected. */
  time: number;
  sessionId: string;
  actorId: string;
  /** Session id of the parent, on every record of a child from its `xstate.init` event on. */
  parentId?: string;
  /** Session id of the system's root actor (the record's own `sessionId` for a root). */
  rootId: string;
}

/** An actor was created (`@xstate.actor`). */
export interface ActorRecord extends RecordBase {
  kind: "actor";
  /** Set for state machine actors: which definition it runs. */
  machineKey?: string;
  /** Present only in the first record of a machine seen by this inspector. */
  definition?: MachineDefinitionRecord;
}

/** An event was delivered to an actor (`@xstate.event`). */
export interface EventRecord extends RecordBase {
  kind: "event";
  /** Session id of the sender, when known. */
  sourceId?: string;
  eventType: string;
  /** The event without its `type`, sanitized. */
  payload: JsonValue;
}

/** An actor produced a new snapshot (`@xstate.snapshot`). */
export interface SnapshotRecord extends RecordBase {
  kind: "snapshot";
  /** Type of the event that caused this snapshot. */
  eventType: string;
  /** `"active" | "done" | "error" | "stopped"`. */
  status: string;
  /** State value for machine snapshots (`"streaming"`, `{ executingTools: "waiting" }`). */
  value?: JsonValue;
  context?: JsonValue;
  /** Child actors currently in the snapshot: child id → session id. */
  children: Record<string, string>;
  output?: JsonValue;
  error?: JsonValue;
}

/** Any inspection record. */
export type InspectionRecord = ActorRecord | EventRecord | SnapshotRecord;

/** Server → page messages. */
export type InspectorServerMessage =
  | { type: "replay"; definitions: MachineDefinitionRecord[]; records: InspectionRecord[] }
  | { type: "records"; records: InspectionRecord[] };

/** Client (another process) → server `/ingest` messages. */
export interface InspectorIngestMessage {
  type: "records";
  records: InspectionRecord[];
}

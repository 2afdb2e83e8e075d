import type { AnyStateMachine, InspectedEventEvent, InspectionEvent } from "xstate";
import type { InspectionRecord, JsonValue, RecordBase, SnapshotRecord } from "./inspection-record.js";
import { projectMachineDefinition } from "./machine-definition.js";
import { type SanitizeLimits, sanitizeForInspection } from "./sanitize.js";

/** The `inspect` option of `createActor`, as a plain function. */
export type InspectFunction = (event: InspectionEvent) => void;

/** Options of {@link createInspectionProjector}. */
export interface InspectionProjectorOptions {
  /** Limits for contexts, event payloads and outputs. Defaults: {@link defaultSanitizeLimits}. */
  limits?: Partial<SanitizeLimits>;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** Type of the event XState reports when an actor starts (`createInitEvent`). */
const XSTATE_INIT = "xstate.init";

/** What the projector reads from an actor ref beyond the public `ActorRefLike` surface. */
interface InspectedActorRef {
  sessionId: string;
  id?: string;
  logic?: unknown;
}

/**
 * Returns an `inspect` function for `createActor(machine, { inspect })` that turns each XState
 * inspection event into a small JSON {@link InspectionRecord} and hands it to `onRecord`
 * synchronously. `@xstate.microstep`, `@xstate.action` and `@xstate.transition` are ignored.
 *
 * The first actor record of each machine carries the machine definition; later actors of the same
 * machine only name its `machineKey`. The returned function never throws: a failing projection or
 * a throwing `onRecord` is swallowed so that inspection cannot break the inspected actors.
 *
 * Parents come from XState's public inspection stream only: an actor's start is reported as its
 * `xstate.init` event, sent by its parent (no sender for a root). From that event record on, every
 * record of a child carries `parentId`; its `actor` record, reported when the actor is created and
 * before it starts, has none (tell a root by `sessionId === rootId`).
 *
 * ```ts
 * import { createActor } from "xstate";
 * import { agentMachine } from "agentchart/machines";
 * import type { InspectionRecord } from "agentchart/node";
 * const records: InspectionRecord[] = [];
 * const actor = createActor(agentMachine, { inspect: createInspectionProjector((r) => records.push(r)) });
 * ```
 */
export function createInspectionProjector(
  onRecord: (record: InspectionRecord) => void,
  options: InspectionProjectorOptions = {},
): InspectFunction {
  const now = options.now ?? Date.now;
  // By the machine's state-node tree: the machines `createAgentMachine` provides share their
  // definition's tree, so they share one key (and the definition is sent once).
  const machineKeys = new WeakMap<object, string>();
  /** Parent session id per started actor ref (`undefined` for a root); weak, so stopped actors go. */
  const parentIds = new WeakMap<object, string | undefined>();
  let machineCount = 0;
  let seq = 0;

  const sanitize = (value: unknown): JsonValue => sanitizeForInspection(value, options.limits);

  const base = (event: InspectionEvent): RecordBase => {
    const ref = event.actorRef as unknown as InspectedActorRef;
    seq += 1;
    const record: RecordBase = {
      seq,
      time: now(),
      sessionId: ref.sessionId,
      actorId: ref.id ?? ref.sessionId,
      rootId: event.rootId,
    };
    const parentId = parentIds.get(event.actorRef);
    if (parentId !== undefined) record.parentId = parentId;
    return record;
  };

  const project = (event: InspectionEvent): InspectionRecord | undefined => {
    switch (event.type) {
      case "@xstate.actor": {
        const logic = (event.actorRef as unknown as InspectedActorRef).logic;
        if (!isStateMachine(logic)) return { ...base(event), kind: "actor" };
        const known = machineKeys.get(logic.root);
        if (known !== undefined) return { ...base(event), kind: "actor", machineKey: known };
        machineCount += 1;
        const machineKey = `${logic.id}#${machineCount}`;
        machineKeys.set(logic.root, machineKey);
        const definition = { machineKey, root: projectMachineDefinition(logic) };
        return { ...base(event), kind: "actor", machineKey, definition };
      }
      case "@xstate.event": {
        if (event.event.type === XSTATE_INIT) rememberParent(event);
        const { type, ...payload } = event.event;
        const record: InspectionRecord = {
          ...base(event),
          kind: "event",
          eventType: type,
          payload: sanitize(payload),
        };
        if (event.sourceRef) record.sourceId = event.sourceRef.sessionId;
        return record;
      }
      case "@xstate.snapshot":
        return projectSnapshot(base(event), event.event.type, event.snapshot);
      default:
        return undefined;
    }
  };

  /** The first `xstate.init` of an actor is its start, and its sender the parent (none for a root). */
  const rememberParent = (event: InspectedEventEvent): void => {
    if (!parentIds.has(event.actorRef)) parentIds.set(event.actorRef, event.sourceRef?.sessionId);
  };

  const projectSnapshot = (record: RecordBase, eventType: string, snapshot: unknown): SnapshotRecord => {
    const raw = snapshot as {
      status?: unknown;
      value?: unknown;
      context?: unknown;
      children?: Record<string, { sessionId?: string } | undefined>;
      output?: unknown;
      error?: unknown;
    };
    const children: Record<string, string> = {};
    for (const [childId, child] of Object.entries(raw.children ?? {})) {
      if (child?.sessionId !== undefined) children[childId] = child.sessionId;
    }
    const projected: SnapshotRecord = {
      ...record,
      kind: "snapshot",
      eventType,
      status: typeof raw.status === "string" ? raw.status : "active",
      children,
    };
    if (raw.value !== undefined) projected.value = sanitize(raw.value);
    if (raw.context !== undefined) projected.context = sanitize(raw.context);
    if (raw.output !== undefined) projected.output = sanitize(raw.output);
    if (raw.error !== undefined) projected.error = sanitize(raw.error);
    return projected;
  };

  return (event) => {
    try {
      const record = project(event);
      if (record !== undefined) onRecord(record);
    } catch {
      // Inspection must never break the inspected system.
    }
  };
}

function isStateMachine(logic: unknown): logic is AnyStateMachine {
  return (
    typeof logic === "object" &&
    logic !== null &&
    "root" in logic &&
    "id" in logic &&
    typeof (logic as { transition?: unknown }).transition === "function"
  );
}

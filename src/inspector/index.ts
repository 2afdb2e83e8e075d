/**
 * The local, offline inspector for XState v5 actor systems (Node only): a server with a page that
 * draws the machine, highlights active states, lists child actors and logs events; a client that
 * streams records from another process; and the projection they share.
 */
export { createInspectionBacklog, type InspectionBacklog } from "./inspection-backlog.js";
export {
  createInspectionProjector,
  type InspectFunction,
  type InspectionProjectorOptions,
} from "./inspection-projector.js";
export type {
  ActorRecord,
  EventRecord,
  InspectionRecord,
  InspectorIngestMessage,
  InspectorServerMessage,
  JsonValue,
  MachineDefinitionRecord,
  SnapshotRecord,
  StateDefinitionRecord,
  TransitionDefinitionRecord,
} from "./inspection-record.js";
export {
  createInspectorClient,
  type InspectorClient,
  type InspectorClientOptions,
} from "./inspector-client.js";
export {
  createInspectorServer,
  type InspectorServer,
  type InspectorServerOptions,
} from "./inspector-server.js";
export { projectMachineDefinition } from "./machine-definition.js";
export { defaultSanitizeLimits, type SanitizeLimits, sanitizeForInspection } from "./sanitize.js";

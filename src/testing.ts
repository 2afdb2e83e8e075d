export { type ScriptedModel, type ScriptedTurn, scriptedModel } from "./providers/scripted/scripted-model.js";
export type { ScriptedBlock, ScriptedReply, ScriptedToolCall } from "./providers/scripted/scripted-reply.js";
export {
  type ConformanceMatchers,
  type ConformanceTestApi,
  type SessionRepoFactory,
  type SessionRepoFixture,
  sessionRepoConformance,
} from "./storage/conformance.js";

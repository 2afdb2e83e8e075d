export { type ScriptedModel, type ScriptedTurn, scriptedModel } from "./providers/scripted/scripted-model.js";
export type { ScriptedBlock, ScriptedReply } from "./providers/scripted/scripted-reply.js";
export { sessionRepoConformance } from "./storage/conformance.js";

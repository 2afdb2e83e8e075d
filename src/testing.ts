export { type ScriptedModel, type ScriptedTurn, scriptedModel } from "./providers/scripted/scripted-model.js";
export type { ScriptedBlock, ScriptedReply, ScriptedToolCall } from "./providers/scripted/scripted-reply.js";
export { type ReplayDivergence, ReplayDivergenceError } from "./replay/replay-divergence-error.js";
export { type ReplayModel, type ReplayModelOptions, replayModel } from "./replay/replay-model.js";
export { type ReplayToolMode, type ReplayToolsOptions, replayTools } from "./replay/replay-tools.js";
export { type ReplayVerdict, type VerifyReplayOptions, verifyReplay } from "./replay/verify/verify-replay.js";
export {
  type ConformanceMatchers,
  type ConformanceTestApi,
  type SessionRepoFactory,
  type SessionRepoFixture,
  sessionRepoConformance,
} from "./storage/conformance.js";

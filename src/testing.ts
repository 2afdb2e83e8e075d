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
export { agentRunInvariants } from "./testing/agent-invariants.js";
export type {
  AgentInvariant,
  AgentTestObservation,
  TextDeltaRecord,
  ToolExecutionRecord,
} from "./testing/agent-observation.js";
export { AgentTestError, type AgentTestErrorCode } from "./testing/agent-test-error.js";
export {
  type AgentPathExploration,
  type AgentTestCoverage,
  type AgentTestModel,
  type AgentTestModelOptions,
  type AgentTestPath,
  type AgentTestStep,
  createAgentTestModel,
} from "./testing/agent-test-model.js";
export type { OutsideEvent, OutsideEventSwitches } from "./testing/outside-model.js";
export {
  formatAgentTestCoverage,
  type PathTestFunction,
  testAgentPaths,
} from "./testing/test-agent-paths.js";
export {
  createTransitionCoverage,
  type MachineCoverage,
  machineTransitions,
  type TransitionCoverage,
  transitionLabel,
} from "./testing/transition-coverage.js";

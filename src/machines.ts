// `agentchart/machines`: the statecharts and their parts, for an XState user who embeds, provides,
// inspects or drives a machine without the `Agent` / `AgentHarness` facades — the agent, tool-call
// and harness machines, their context, events, input and options, the loop built on the agent
// machine, the persisted formats of their snapshots and recordings, and the types their context and
// events carry (budgets, guardrail outcomes, the loop's callbacks, the harness's hooks). No `node:`
// import. What an application uses is in `agentchart` (docs/concepts.md, "Entry points").

export { agentLoop, agentLoopContinue, createAgentLoopActor } from "./agent/agent-loop.js";
export type { RecordOption } from "./agent/agent-recording.js";
export {
  AGENT_SNAPSHOT_FORMAT,
  AGENT_SNAPSHOT_VERSION,
  type AgentActor,
  type PersistedAgentMachine,
  type PersistedChild,
} from "./agent/agent-snapshot.js";
export type { AgentMachineState, RunBudgetState } from "./agent/agent-state.js";
export { agentEvents$, agentState$ } from "./agent/agent-streams.js";
export { createHarnessMachine, type HarnessMachine } from "./harness/create-harness-machine.js";
export type {
  HarnessHandler,
  HarnessHookMap,
  HarnessOwnEvent,
  HarnessStreamOptions,
  HookName,
  HookReturn,
  ObservedEventName,
  StreamOptionsPatch,
  TreePreparation,
} from "./harness/hooks.js";
export type { SystemPromptContext } from "./harness/resources/system-prompt.js";
export type { ToolsChange } from "./harness/settings.js";
export {
  HARNESS_SNAPSHOT_FORMAT,
  HARNESS_SNAPSHOT_VERSION,
  type HarnessResumeStep,
} from "./harness/snapshot.js";
export type { PersistedSubAgent } from "./harness/sub-agent-sessions.js";
export { defaultConvertToLlm } from "./loop/messages.js";
export type {
  AgentMachineContext,
  AgentParentEvent,
  AgentSettings,
  QueueMode,
  QueueName,
  SubAgentPlace,
  ToolCallOutcome,
} from "./machines/agent/agent.context.js";
export type { AgentCommand, AgentMachineEvent, ResumedCallState } from "./machines/agent/agent.events.js";
export type { AgentMachineOptions } from "./machines/agent/agent.implementations.js";
export { type AgentMachineInput, agentMachine } from "./machines/agent/agent.machine.js";
export { type AgentMachine, createAgentMachine } from "./machines/agent/agent.provided.js";
export type { SessionCommand, SessionDraft, SessionReply } from "./machines/harness/harness.events.js";
export {
  type BackoffInput,
  type CompactionInput,
  type CompactionOutcome,
  type CompactOperation,
  type HarnessAgentCommand,
  type HarnessMachineContext,
  type HarnessMachineEvent,
  type HarnessMachineInput,
  type HarnessOperation,
  type HarnessPhase,
  harnessMachine,
  type NavigateOperation,
  type NavigateTreeOptions,
  type PromptOperation,
  RECORDED_AGENT_EVENTS,
  type RecordedAgentEvent,
  type ResumeOperation,
  type TurnInput,
  type TurnOperation,
  type TurnOutcome,
} from "./machines/harness/harness.machine.js";
export type { ToolCallContext } from "./machines/tool-call/tool-call.context.js";
export { toolCallMachine } from "./machines/tool-call/tool-call.machine.js";
export {
  type CanonicalRequest,
  RECORDING_FORMAT,
  RECORDING_FORMAT_VERSION,
  type RecordedCommand,
  type RecordedModelCall,
  type RecordedReplyEvent,
  type RecordedStep,
  type RecordedStepKind,
  type RecordedToolCall,
  type RecordingEntry,
  type RecordingHeader,
} from "./replay/recording-format.js";
export type {
  BudgetAction,
  BudgetLedger,
  BudgetLimits,
  BudgetName,
  BudgetReservation,
  BudgetUsage,
  LoopBreakerName,
  RequestEstimate,
  ReservationAnswer,
} from "./types/budget.js";
export type { AgentEventType, OwnAgentEvent } from "./types/events.js";
export type { GuardrailNames, GuardrailOutcome } from "./types/guardrail.js";
export type {
  AgentCallbacks,
  AgentContext,
  AgentEventSink,
  AgentLoopConfig,
  MaybePromise,
  NextTurnUpdate,
  SteeringPolicy,
  TurnEndContext,
} from "./types/loop.js";
export type { InvalidToolArguments, UsageCost } from "./types/messages.js";
export type { ModelCost, ModelRecord } from "./types/model.js";
export type { GuardrailTrip, OutputIssue, RunOutputState, RunStopReason } from "./types/output.js";
export type {
  AssistantEventSource,
  OutputRequest,
  PersistableStreamOptions,
  ToolSpec,
} from "./types/stream.js";
export type { SubAgentSpec } from "./types/sub-agent.js";
export type { HandoffDefinition, HandoffRecord, SubAgentDefinition } from "./types/tool.js";

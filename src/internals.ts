// `agentchart/internals`: pieces of the machinery that tests, tools and the curious may want, with
// no stability promise — anything here may change in any release. The public API is `agentchart`
// and its other entry points; `api/*.api.md` lists it, and a test fails on any change to it.

export type { GuardrailCheck, GuardrailOutcome } from "./actors/guardrails.actor.js";
export type { ReplyOutput, StreamReplyInput, StreamRequest } from "./actors/stream-reply.actor.js";
export type { SubAgentCollection } from "./actors/sub-agent.actors.js";
export type { ToolStepInput } from "./actors/tool-step.actors.js";
export type { TurnCallbacksAnswer, TurnCallbacksInput } from "./actors/turn-callbacks.actor.js";
export type { OutputValidation } from "./actors/validate-output.actor.js";
export { escapeXml } from "./harness/resources/skills-prompt.js";
export { isRetryableError } from "./harness/retry-policy.js";
export type { NextTurnPlan } from "./loop/between-turns.js";
export type { OutputCandidate, OutputVerdict } from "./loop/output-steps.js";
export type {
  AgentView,
  HeldReply,
  InboxMessage,
  QueuedReturns,
  RunState,
  ToolBatch,
  ToolCallPhase,
} from "./machines/agent/agent.context.js";
export type {
  AgentInternalEvent,
  DecisionEvent,
  StreamActorCommand,
  StreamActorEvent,
  StreamedReply,
  StreamReplyOutput,
  TurnDecision,
} from "./machines/agent/agent.events.js";
export type {
  CallingAgent,
  SubAgentEnd,
  SubAgentStart,
  ToolCallInput,
} from "./machines/tool-call/tool-call.context.js";
export type {
  AgentEventsEvent,
  ExecutionEvent,
  ReservationEvent,
  ReserveEvent,
  SubAgentEndedEvent,
  SubAgentEventsEvent,
  SubAgentReadyEvent,
  SubAgentReserveEvent,
  ToolAwaitingEvent,
  ToolCallEvent,
  ToolPreparedEvent,
  ToolUpdateEvent,
  ToolValidatedEvent,
} from "./machines/tool-call/tool-call.events.js";
export { abortableDelay } from "./providers/abortable-delay.js";
// The built-in catalogue changes with every model that comes or goes; `getModel` and `resolveModel`
// (in `agentchart`) are the stable way to read it.
export { type CatalogueModel, findModel, MODEL_CATALOGUE } from "./types/model-catalogue.js";
export { FINAL_ANSWER_TOOL } from "./types/output.js";
export { MODEL_DEFAULTS } from "./types/resolve-model.js";
export {
  DEFAULT_SUB_AGENT_MAX_CONCURRENT,
  DEFAULT_SUB_AGENT_MAX_DEPTH,
  DEFAULT_SUB_AGENT_MAX_TURNS,
} from "./types/sub-agent.js";

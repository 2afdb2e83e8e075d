// `agentchart/internals`: pieces of the machinery that tests, tools and the curious may want, with
// no stability promise — anything here may change in any release. The public API is `agentchart`
// and its other entry points; `api/*.api.md` lists it, and a test fails on any change to it.

export type { SubAgentPlace } from "./actors/agent-runtime.js";
export type { GuardrailCheck, GuardrailOutcome } from "./actors/guardrails.actor.js";
export type {
  ReplyOutput,
  StreamedReply,
  StreamReplyInput,
  StreamReplyOutput,
  StreamRequest,
} from "./actors/stream-reply.actor.js";
export type { SubAgentCollection, SubAgentReadyEvent } from "./actors/sub-agent.actors.js";
export type { ToolStepInput } from "./actors/tool-step.actors.js";
export type { OutputValidation } from "./actors/validate-output.actor.js";
export { escapeXml } from "./harness/resources/skills-prompt.js";
export { abortableDelay } from "./harness/retry-policy.js";
export type { HeldReply, InboxMessage, RunState, ToolBatch, ToolCallPhase } from "./loop/agent-context.js";
export type {
  NextTurnPlan,
  TurnCallbacksAnswer,
  TurnCallbacksInput,
  TurnDecision,
} from "./loop/between-turns.js";
export type { OutputCandidate, OutputVerdict } from "./loop/output-steps.js";
export type { SubAgentEnd, SubAgentStart } from "./loop/sub-agent-steps.js";
export type { DecisionEvent } from "./machines/agent.actions.js";
export type { AgentInternalEvent } from "./machines/agent.machine.js";
export type {
  SubAgentEndedEvent,
  SubAgentInput,
  ToolAwaitingEvent,
  ToolCallEvent,
  ToolCallInput,
  ToolPreparedEvent,
  ToolValidatedEvent,
} from "./machines/tool-call.machine.js";

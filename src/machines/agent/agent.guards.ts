import { and, not, or, stateIn } from "xstate";
import { planOf } from "../../loop/between-turns.js";
import * as budgetSteps from "../../loop/budget-steps.js";
import { continueRefusal } from "../../loop/continue-refusal.js";
import { type OutputVerdict, outputCandidate } from "../../loop/output-steps.js";
import * as steps from "../../loop/run-steps.js";
import { isBatchSettled } from "../../loop/tool-batch.js";
import type { GuardrailOutcome } from "../../types/guardrail.js";
import type { AssistantMessage } from "../../types/messages.js";
import type { ReservationEvent } from "../tool-call/tool-call.events.js";
import type { AgentMachineContext } from "./agent.context.js";
import type { StreamedReply, TurnDecision } from "./agent.events.js";

// The guards of `agentMachine`: pure predicates of the context and of the params the machine hands
// them (an actor's output, a decision), and of the state (`stateIn`) for `ABORT` and `FAIL`, which the
// `running` state handles for all its states. They never see an implementation: what a guard needs
// is data.

/** What a guard reads. */
export interface GuardArgs {
  context: AgentMachineContext;
}

export function planStreams({ context }: GuardArgs, decision: TurnDecision): boolean {
  return planOf(context, decision).next === "stream";
}

export function inboxEmpty({ context }: GuardArgs): boolean {
  return (context.run?.inbox.length ?? 0) === 0;
}

export function replyFailed(_: GuardArgs, output: StreamedReply): boolean {
  return output.message.stopReason === "error" || output.message.stopReason === "aborted";
}

export function replyHasToolCalls(_: GuardArgs, output: StreamedReply): boolean {
  return output.message.content.some((block) => block.type === "toolCall");
}

export function replyHeld(_: GuardArgs, output: StreamedReply): boolean {
  return output.held;
}

export function replyCarriesOutput({ context }: GuardArgs, message: AssistantMessage): boolean {
  return outputCandidate(context, message) !== undefined;
}

export function inputTripped(_: GuardArgs, output: StreamedReply): boolean {
  return output.inputTrip !== undefined;
}

export function tripped(_: GuardArgs, outcome: GuardrailOutcome): boolean {
  return outcome.trip !== undefined;
}

export function holdsReplies({ context }: GuardArgs): boolean {
  return context.guardrails.output.length > 0;
}

export function isSubAgent({ context }: GuardArgs): boolean {
  return context.parentToolCallId !== undefined;
}

export function inputCheckDue({ context }: GuardArgs): boolean {
  return (context.run?.inbox.length ?? 0) === 0 && context.run?.inputCheck === "blocking";
}

export function outputFailsForGood({ context }: GuardArgs, verdict: OutputVerdict): boolean {
  const output = context.run?.output;
  return !verdict.ok && output !== undefined && output.repairs >= output.maxRepairs;
}

/** Every message is injected and the run's budget holds the model call at a `pause` limit. */
export function modelCallPausesForBudget({ context }: GuardArgs): boolean {
  return (context.run?.inbox.length ?? 0) === 0 && budgetSteps.modelCallPauses(context);
}

/** Every message is injected and the model call would pass a `stop` limit (or a tool call was stopped). */
export function modelCallStopsForBudget({ context }: GuardArgs): boolean {
  return (context.run?.inbox.length ?? 0) === 0 && budgetSteps.modelCallStops(context);
}

/** Every message is injected and the model call must be reserved with the ancestors' ledgers too. */
export function reservesWithAncestors({ context }: GuardArgs): boolean {
  return (context.run?.inbox.length ?? 0) === 0 && context.sharesLedger === true;
}

/** An answer to this agent's own reservation (not one on its way down to a sub-agent). */
export function ownReservation(_: GuardArgs, answer: ReservationEvent): boolean {
  return answer.path.length === 0;
}

/** This agent's own reservation, granted. */
export function ownReservationGranted(args: GuardArgs, answer: ReservationEvent): boolean {
  return ownReservation(args, answer) && answer.answer.granted;
}

/** The run waits at a budget limit. */
export function budgetPaused({ context }: GuardArgs): boolean {
  return budgetSteps.budgetPaused(context);
}

export function budgetNotPaused(args: GuardArgs): boolean {
  return !budgetPaused(args);
}

export function hasToolBatch({ context }: GuardArgs): boolean {
  return context.run?.batch !== undefined;
}

export function batchSettled({ context }: GuardArgs): boolean {
  return context.run?.batch !== undefined && isBatchSettled(context.run.batch);
}

/** One of the batch's calls waits for a person (approval) or the client (a client tool's answer). */
export function callWaits({ context }: GuardArgs): boolean {
  return (context.run?.batch?.waiting?.length ?? 0) > 0;
}

export function noCallWaits(args: GuardArgs): boolean {
  return !callWaits(args);
}

export function toolCallRunning({ context }: GuardArgs, toolCallId: string): boolean {
  return steps.hasToolCallChild(context, toolCallId);
}

export function canContinue({ context }: GuardArgs): boolean {
  return continueRefusal(context.messages, context.steering.length + context.followUp.length) === undefined;
}

/** A reply streams and is not yet being checked: the stream actor answers an abort with the partial reply. */
export const replyStreaming = and([
  stateIn("#agent.running.streaming"),
  not(stateIn("#agent.running.streaming.checking")),
]);

/** `ABORT` waits for the stream's partial reply — except in a sub-agent, which its parent stops right after. */
export const abortWaitsForStream = and([replyStreaming, not(isSubAgent as never)]);

/** The turn's reply is in the transcript (its calls or its typed output are being handled). */
export const replyRecorded = or([
  stateIn("#agent.running.validatingOutput"),
  stateIn("#agent.running.executingTools"),
]);

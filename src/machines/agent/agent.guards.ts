import type { GuardrailOutcome } from "../../actors/guardrails.actor.js";
import type { StreamedReply } from "../../actors/stream-reply.actor.js";
import { planOf } from "../../loop/between-turns.js";
import { type OutputVerdict, outputCandidate } from "../../loop/output-steps.js";
import * as steps from "../../loop/run-steps.js";
import { isBatchSettled } from "../../loop/tool-batch.js";
import type { AssistantMessage } from "../../types/messages.js";
import type { AgentMachineContext } from "./agent.context.js";
import type { TurnDecision } from "./agent.events.js";

// The guards of `agentMachine`: pure predicates of the context and of the params the machine hands
// them (an actor's output, a decision). They never see the runtime: what a guard needs is data.

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

export function hasToolBatch({ context }: GuardArgs): boolean {
  return context.run?.batch !== undefined;
}

export function batchSettled({ context }: GuardArgs): boolean {
  return context.run?.batch !== undefined && isBatchSettled(context.run.batch);
}

export function toolCallRunning({ context }: GuardArgs, toolCallId: string): boolean {
  return steps.hasToolCallChild(context, toolCallId);
}

export function canContinue({ context }: GuardArgs): boolean {
  const last = context.messages.at(-1) as { role?: string } | undefined;
  if (!last) return false;
  return last.role !== "assistant" || context.steering.length > 0 || context.followUp.length > 0;
}

import type { AssistantMessage, ToolCall, ToolResultMessage } from "../types/messages.js";
import type { AgentTool } from "../types/tool.js";
import { toolCallsOf, toolResultMessage } from "./messages.js";
import type { ToolCallOutcome } from "./tool-call-steps.js";

/** Where one tool call of a batch is: waiting, in preflight, ready, running, or answered. */
export type ToolCallPhase = "pending" | "preparing" | "prepared" | "executing" | "settled";

/**
 * The bookkeeping of one assistant message's tool calls. Owned by the running loop and updated in
 * place by its actions (a batch lives for one `executingTools` state).
 */
export interface ToolBatch {
  message: AssistantMessage;
  calls: ToolCall[];
  sequential: boolean;
  phases: Map<string, ToolCallPhase>;
  outcomes: Map<string, ToolCallOutcome>;
  /** With steering between tools, one controller per spawned call: aborting it stops that call's tool. */
  controllers: Map<string, AbortController>;
  /** Tool result messages emitted so far, in source order. */
  results: ToolResultMessage[];
}

/** What the loop should do next with a batch. */
export type BatchStep =
  | { kind: "spawn"; call: ToolCall }
  | { kind: "execute"; ids: string[] }
  | { kind: "wait" };

export const TRUNCATED_CALL_TEXT = (name: string) =>
  `Tool call "${name}" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.`;
export const SKIPPED_CALL_TEXT = "Tool call skipped: the user sent a new message";
export const ABORTED_CALL_TEXT = "Tool call aborted";
export const FAILED_REPLY_CALL_TEXT = "Tool call not executed: the model reply failed";
export const DUPLICATE_ID_CALL_TEXT = (id: string) =>
  `Tool call not executed: the reply used the tool call id "${id}" more than once, so no call of it ran. Re-issue the tool calls with distinct ids.`;

/** The first tool call id used twice in the batch, if any (results could not be told apart). */
export function duplicateCallId(batch: ToolBatch): string | undefined {
  const seen = new Set<string>();
  for (const call of batch.calls) {
    if (seen.has(call.id)) return call.id;
    seen.add(call.id);
  }
  return undefined;
}

/** A batch for the tool calls of `message`, sequential when configured or when any called tool asks for it. */
export function createToolBatch(
  message: AssistantMessage,
  tools: AgentTool[],
  mode: "parallel" | "sequential" | undefined,
): ToolBatch {
  const calls = toolCallsOf(message);
  const sequential =
    mode === "sequential" ||
    calls.some((call) => tools.find((tool) => tool.name === call.name)?.executionMode === "sequential");
  return {
    message,
    calls,
    sequential,
    phases: new Map(),
    outcomes: new Map(),
    controllers: new Map(),
    results: [],
  };
}

/** The next step: preflights run one at a time in source order; then all calls run (parallel) or one by one. */
export function nextBatchStep(batch: ToolBatch): BatchStep {
  let firstPending: ToolCall | undefined;
  const prepared: string[] = [];
  for (const call of batch.calls) {
    const phase = batch.phases.get(call.id) ?? "pending";
    if (phase === "preparing") return { kind: "wait" };
    if (phase === "executing" && batch.sequential) return { kind: "wait" };
    if (phase === "prepared") prepared.push(call.id);
    if (phase === "pending" && firstPending === undefined) firstPending = call;
  }
  if (batch.sequential) {
    if (prepared.length > 0) return { kind: "execute", ids: prepared.slice(0, 1) };
    return firstPending ? { kind: "spawn", call: firstPending } : { kind: "wait" };
  }
  if (firstPending) return { kind: "spawn", call: firstPending };
  return prepared.length > 0 ? { kind: "execute", ids: prepared } : { kind: "wait" };
}

export function isBatchSettled(batch: ToolBatch): boolean {
  return batch.calls.every((call) => batch.phases.get(call.id) === "settled");
}

export function unsettledCalls(batch: ToolBatch): ToolCall[] {
  return batch.calls.filter((call) => batch.phases.get(call.id) !== "settled");
}

export function settle(batch: ToolBatch, outcome: ToolCallOutcome): void {
  batch.phases.set(outcome.toolCall.id, "settled");
  batch.outcomes.set(outcome.toolCall.id, outcome);
}

/**
 * Result messages not yet emitted for the settled prefix of the batch (source order). With `all`,
 * the batch must be fully settled and every remaining result is returned.
 */
export function takeResultMessages(batch: ToolBatch): ToolResultMessage[] {
  const taken: ToolResultMessage[] = [];
  for (let index = batch.results.length; index < batch.calls.length; index++) {
    const outcome = batch.outcomes.get(batch.calls[index]!.id);
    if (!outcome) break;
    const message = toolResultMessage(batch.calls[index]!, outcome.result, outcome.isError);
    batch.results.push(message);
    taken.push(message);
  }
  return taken;
}

/** True when the batch ran calls and every one of their results asks to terminate. */
export function batchTerminates(batch: ToolBatch): boolean {
  return (
    batch.calls.length > 0 &&
    batch.calls.every((call) => batch.outcomes.get(call.id)?.result.terminate === true)
  );
}

import type { ToolBatch, ToolCallOutcome, ToolCallPhase } from "../machines/agent/agent.context.js";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "../types/messages.js";
import { toolCallsOf, toolResultMessage } from "./messages.js";

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
/** The one text of a call that had started when its agent stopped and whose tool may not run twice. */
export const INTERRUPTED_CALL_TEXT =
  "Tool call interrupted, not re-run: the agent stopped while it was executing, and this tool is not re-run after a restart (replay: never). Check its effects before calling it again.";
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

/**
 * A record keyed by tool call ids (a copy of `from`, if given), made without a prototype. Call ids are
 * new with every reply: an ordinary object given each as a property gets a new hidden class per id,
 * and copying such records costs about three times what copying these does (V8 keeps an object made
 * by `Object.create(null)` as a dictionary). They are plain data all the same (JSON, persisted as before).
 */
function idRecord<T>(from?: Readonly<Record<string, T>>): Record<string, T> {
  const record = Object.create(null) as Record<string, T>;
  return from ? Object.assign(record, from) : record;
}

/** A batch for the tool calls of `message`; `sequential` when configured or when a called tool asks for it. */
export function createToolBatch(message: AssistantMessage, sequential: boolean): ToolBatch {
  return {
    message,
    calls: toolCallsOf(message),
    sequential,
    phases: idRecord(),
    outcomes: idRecord(),
    results: [],
    pollingSteering: false,
    approved: [],
  };
}

export function phaseOf(batch: ToolBatch, id: string): ToolCallPhase {
  return batch.phases[id] ?? "pending";
}

/** The batch with the phase of `id` (or of each of `ids`) changed: one copy of the batch in all. */
export function withPhase(batch: ToolBatch, id: string | readonly string[], phase: ToolCallPhase): ToolBatch {
  const phases = idRecord(batch.phases);
  if (typeof id === "string") phases[id] = phase;
  else for (const each of id) phases[each] = phase;
  return { ...batch, phases };
}

/**
 * The next step: preflights run one at a time in source order; then all calls run (parallel) or one by
 * one. `holdPending`: no pending call may start (the run's budget holds them), the prepared ones run.
 */
export function nextBatchStep(batch: ToolBatch, holdPending = false): BatchStep {
  if (batch.pollingSteering || batch.reserving !== undefined) return { kind: "wait" };
  let firstPending: ToolCall | undefined;
  const prepared: string[] = [];
  for (const call of batch.calls) {
    const phase = phaseOf(batch, call.id);
    if (phase === "preparing") return { kind: "wait" };
    if (phase === "executing" && batch.sequential) return { kind: "wait" };
    if (phase === "prepared") prepared.push(call.id);
    if (phase === "pending" && firstPending === undefined && !holdPending) firstPending = call;
  }
  if (batch.sequential) {
    if (prepared.length > 0) return { kind: "execute", ids: prepared.slice(0, 1) };
    return firstPending ? { kind: "spawn", call: firstPending } : { kind: "wait" };
  }
  if (firstPending) return { kind: "spawn", call: firstPending };
  return prepared.length > 0 ? { kind: "execute", ids: prepared } : { kind: "wait" };
}

export function isBatchSettled(batch: ToolBatch): boolean {
  return batch.calls.every((call) => batch.phases[call.id] === "settled");
}

export function unsettledCalls(batch: ToolBatch): ToolCall[] {
  return batch.calls.filter((call) => batch.phases[call.id] !== "settled");
}

/** The calls of the batch that have an actor now: started (not pending) and not yet settled. */
export function runningCalls(batch: ToolBatch): string[] {
  return unsettledCalls(batch)
    .filter((call) => phaseOf(batch, call.id) !== "pending")
    .map((call) => call.id);
}

/** The batch with `outcome` recorded. */
export function settle(batch: ToolBatch, outcome: ToolCallOutcome): ToolBatch {
  const id = outcome.toolCall.id;
  const phases = idRecord(batch.phases);
  phases[id] = "settled";
  const outcomes = idRecord(batch.outcomes);
  outcomes[id] = outcome;
  const settled = { ...batch, phases, outcomes };
  return batch.waiting?.includes(id) ? withWaiting(settled, id, false) : settled;
}

/** `batch` with call `id` waiting for a person or the client (`waits`), or not. */
export function withWaiting(batch: ToolBatch, id: string, waits: boolean): ToolBatch {
  const others = (batch.waiting ?? []).filter((waiting) => waiting !== id);
  return { ...batch, waiting: waits ? [...others, id] : others };
}

/** Result messages not yet emitted for the settled prefix of the batch (source order), and the batch after. */
export function takeResultMessages(batch: ToolBatch): { batch: ToolBatch; taken: ToolResultMessage[] } {
  const taken: ToolResultMessage[] = [];
  for (let index = batch.results.length; index < batch.calls.length; index++) {
    const call = batch.calls[index]!;
    const outcome = batch.outcomes[call.id];
    if (!outcome) break;
    taken.push(toolResultMessage(call, outcome.result, outcome.isError));
  }
  if (taken.length === 0) return { batch, taken };
  return { batch: { ...batch, results: [...batch.results, ...taken] }, taken };
}

/** True when the batch ran calls and every one of their results asks to terminate. */
export function batchTerminates(batch: ToolBatch): boolean {
  return (
    batch.calls.length > 0 && batch.calls.every((call) => batch.outcomes[call.id]?.result.terminate === true)
  );
}

import type { SnapshotFrom } from "xstate";
import type { AgentEvent } from "../../src/types/events.js";
import { LoopRig, type RigOptions, settle } from "./real-loop.js";
import type { ToolCallModel, ToolCallModelEvent, ToolCallResult } from "./tool-call.model.js";

/** The subject call and its sibling (whose preflight decides when the loop sends EXECUTE). */
export const SUBJECT = "t1";
const SIBLING = "t2";

export interface ToolCallObservation {
  state: string;
  result: ToolCallResult | undefined;
}

const RESULT_TEXTS: Record<string, ToolCallResult> = {
  "blocked by test": "blocked",
  "before hook failed": "beforeError",
  "Tool call denied: not allowed": "denied",
  "t1 done": "ok",
  "tool failed": "toolError",
  "afterToolCall failed: after hook failed": "afterError",
  "Tool call aborted": "aborted",
};

const flatten = (value: unknown): string =>
  typeof value === "string"
    ? value
    : Object.entries(value as Record<string, unknown>)
        .map(([key, inner]) => `${key}.${flatten(inner)}`)
        .join();

/** A real loop run whose first reply calls [t1, t2]; resolves once t1's preflight is running. */
export async function startToolCallRun(
  options: Pick<RigOptions, "inspect" | "entry" | "replay">,
): Promise<LoopRig> {
  const rig = new LoopRig({
    ...options,
    holdBeforeToolCall: [SUBJECT, SIBLING],
    holdAfterToolCall: [SUBJECT],
  });
  rig.start();
  await settle(rig);
  // An Agent polls its own (empty) steering queue at run start; the loop rig holds that poll.
  if (!rig.agent) rig.answerPoll(rig.turnPolls, "answer");
  await settle(rig);
  rig.answerModel({
    toolCalls: [SUBJECT, SIBLING].map((id) => ({ name: "work", arguments: {}, id })),
  });
  await settle(rig);
  return rig;
}

export function observeToolCall(rig: LoopRig): ToolCallObservation {
  const child = rig.actor.getSnapshot().children[SUBJECT];
  if (child) {
    const snapshot = child.getSnapshot();
    return { state: "value" in snapshot ? flatten(snapshot.value) : "?", result: undefined };
  }
  const end = rig.events.find(
    (e): e is Extract<AgentEvent, { type: "tool_execution_end" }> =>
      e.type === "tool_execution_end" && e.toolCallId === SUBJECT,
  );
  if (!end) return { state: "absent", result: undefined };
  const text = end.result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  const result = RESULT_TEXTS[text];
  if (!result) throw new Error(`unexpected result for ${SUBJECT}: ${text}`);
  return { state: result === "aborted" ? "stopped" : "settled", result };
}

export function projectToolCall(state: SnapshotFrom<ToolCallModel>): ToolCallObservation {
  const final = state.status === "done";
  return { state: flatten(state.value), result: final ? state.context.result : undefined };
}

export function describeToolCallState(state: SnapshotFrom<ToolCallModel>): string {
  const { needsApproval, executed, result } = state.context;
  const flags = [needsApproval ? "approval" : "", executed ?? "", result ?? ""].filter(Boolean);
  return `${flatten(state.value)}${flags.length ? `{${flags.join(" ")}}` : ""}`;
}

export async function applyToolCallEvent(rig: LoopRig, event: ToolCallModelEvent): Promise<void> {
  switch (event.type) {
    case "PREFLIGHT":
      rig.approveNext = event.verdict === "approval";
      rig.release(
        rig.beforeHooks,
        SUBJECT,
        event.verdict === "throw"
          ? { error: new Error("before hook failed") }
          : { value: event.verdict === "block" ? { block: true, reason: "blocked by test" } : undefined },
      );
      break;
    case "EXECUTE":
      rig.approveNext = false;
      rig.release(rig.beforeHooks, SIBLING, { value: undefined });
      break;
    case "APPROVE":
      rig.approve(SUBJECT);
      break;
    case "DENY":
      rig.deny(SUBJECT, "not allowed");
      break;
    case "EXECUTED":
      rig.release(
        rig.toolRuns,
        SUBJECT,
        event.outcome === "ok"
          ? { value: { content: [{ type: "text", text: "t1 done" }] } }
          : { error: new Error("tool failed") },
      );
      break;
    case "FINALIZED":
      rig.release(
        rig.afterHooks,
        SUBJECT,
        event.outcome === "keep" ? { value: undefined } : { error: new Error("after hook failed") },
      );
      break;
    case "ABORT":
      rig.abort("event");
      break;
  }
  await settle(rig);
}

import type { SnapshotFrom } from "xstate";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import { unwrapRunning } from "../support/run-value.js";
import type { LoopModel, LoopModelEvent, ReplyKind } from "./loop.model.js";
import { type LoopRig, type ModelAnswer, providerAbortedEvents, settle } from "./real-loop.js";

/** What the test compares between the model and the real loop after every step. */
export interface LoopObservation {
  value: unknown;
  /** Child actors by id (tool call ids without their turn number): promise actors are "active". */
  children: Record<string, unknown>;
  steerQueued: boolean;
  followQueued: boolean;
}

/** Tool call ids are the call's letter and the number of the model call that made it: "a3", "b3". */
const callId = (letter: string, turn: number) => `${letter}${turn}`;

export function observeLoop(rig: LoopRig): LoopObservation {
  const snapshot = rig.actor.getSnapshot();
  const children = Object.entries(snapshot.children)
    .map(([id, child]): [string, unknown] => {
      const childSnapshot = child!.getSnapshot();
      return [id.replace(/\d+$/, ""), "value" in childSnapshot ? childSnapshot.value : "active"];
    })
    .sort(([a], [b]) => a.localeCompare(b));
  return {
    value: unwrapRunning(snapshot.value),
    children: Object.fromEntries(children),
    steerQueued: rig.queues.steering.length > 0,
    followQueued: rig.queues.followUp.length > 0,
  };
}

/**
 * The real agent's state for a model state: the model's `done` (the run ended) is the agent back in
 * `idle`; between turns the rig's callbacks answer asynchronously, so the agent waits for them in
 * `preparingTurn.deciding` with the `turnCallbacks` actor running.
 */
export function projectLoop(state: SnapshotFrom<LoopModel>): LoopObservation {
  const { context } = state;
  const modelValue = state.value as string;
  const value =
    modelValue === "done"
      ? "idle"
      : modelValue === "preparingTurn"
        ? { preparingTurn: "deciding" }
        : modelValue === "streaming"
          ? { streaming: "released" }
          : modelValue;
  const children: Record<string, unknown> =
    modelValue === "preparingTurn"
      ? { turnCallbacks: "active" }
      : modelValue === "streaming"
        ? { stream: "active" }
        : Object.fromEntries(
            Object.entries(context.batch)
              .filter(([, call]) => call === "running" || call === "approval")
              .map(([letter, call]) => [letter, call === "approval" ? "awaitingApproval" : "executing"]),
          );
  return { value, children, steerQueued: context.steerQueued, followQueued: context.followQueued };
}

export function describeLoopState(state: SnapshotFrom<LoopModel>): string {
  const { context } = state;
  const flags = [
    context.wantsReply && state.value === "preparingTurn" ? "wantsReply" : "",
    context.partial ? "partial" : "",
    ...Object.entries(context.batch).map(([letter, call]) => `${letter}:${call}`),
    context.steerQueued ? "steer" : "",
    context.steerPending ? "steerPending" : "",
    context.followQueued ? "followUp" : "",
  ].filter(Boolean);
  return `${state.value as string}${flags.length ? `{${flags.join(" ")}}` : ""}`;
}

function replyFor(kind: ReplyKind, turn: number): ModelAnswer {
  const call = (letter: string, name = "work") => ({ name, arguments: {}, id: callId(letter, turn) });
  const replies: Record<ReplyKind, ModelAnswer> = {
    text: { text: "All done here." } satisfies ScriptedReply,
    tools: { text: "Working.", toolCalls: [call("a"), call("b")] },
    approval: { toolCalls: [call("a", "guarded")] },
    length: { toolCalls: [call("a")], stopReason: "length" },
    error: { text: "Partial", error: "overloaded" },
    aborted: { events: providerAbortedEvents() },
    throws: { throws: new Error("provider unreachable") },
    partial: { toolCalls: [call("a")], hang: true },
  };
  return replies[kind];
}

/** Performs one model event on the real loop, then lets it run until it waits for the test again. */
export async function applyLoopEvent(rig: LoopRig, event: LoopModelEvent, batchTurn: { n: number }) {
  switch (event.type) {
    case "START":
      rig.start();
      break;
    case "ABORT":
      rig.abort(event.via);
      break;
    case "STEER":
      rig.enqueue("steering");
      break;
    case "FOLLOW_UP":
      rig.enqueue("followUp");
      break;
    case "DECIDE":
      rig.decide(event.outcome);
      break;
    case "REPLY": {
      const turn = rig.pendingModelCall().number;
      if (event.kind === "tools" || event.kind === "approval") batchTurn.n = turn;
      rig.answerModel(replyFor(event.kind, turn));
      break;
    }
    case "TOOL_SETTLED":
      rig.release(rig.toolRuns, callId(event.call, batchTurn.n), {
        value: {
          content: [{ type: "text", text: `${event.call} done` }],
          terminate: event.result === "terminate",
        },
      });
      break;
    case "APPROVE":
      rig.approve(callId(event.call, batchTurn.n));
      break;
    case "DENY":
      rig.deny(callId(event.call, batchTurn.n), "no");
      break;
  }
  await settle(rig);
}

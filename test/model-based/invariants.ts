import { expect } from "vitest";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/types/messages.js";
import type { LoopRig } from "./real-loop.js";

const roleOf = (message: AgentMessage) => (message as { role?: string }).role;

/**
 * What every finished run must satisfy, whatever path it took (docs/concepts.md): one agent_start
 * first and one agent_end last, balanced turns, one tool_execution_end per tool_execution_start, one
 * tool result per tool call, no model call after an abort, no child left running, no tool left
 * un-aborted, and every queued message delivered once or still queued.
 */
export function expectRunInvariants(rig: LoopRig): void {
  const snapshot = rig.actor.getSnapshot();
  expect(snapshot.value).toBe("idle");
  expect(snapshot.context.run).toBeUndefined();
  expect(Object.keys(snapshot.children)).toEqual([]);

  const types = rig.events.map((event) => event.type);
  expect(types[0]).toBe("agent_start");
  expect(types.filter((type) => type === "agent_start")).toHaveLength(1);
  expect(types.filter((type) => type === "agent_end")).toHaveLength(1);
  expect(types.at(-1)).toBe("agent_end");
  const end = rig.events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
  expect(snapshot.context.messages.slice(-end.messages.length)).toEqual(end.messages);
  // Compared as data: a persisted and restored agent holds copies of the messages, not the same objects.
  const same = (a: AgentMessage) => (b: AgentMessage) => JSON.stringify(a) === JSON.stringify(b);
  const users = snapshot.context.messages.filter((message) => roleOf(message) === "user");
  for (const message of users)
    expect(users.filter(same(message)), "a user message is in the transcript twice").toHaveLength(1);

  let turnOpen = false;
  for (const type of types) {
    if (type === "turn_start") expect(turnOpen, "turn_start inside a turn").toBe(false);
    if (type === "turn_end") expect(turnOpen, "turn_end outside a turn").toBe(true);
    if (type === "turn_start" || type === "turn_end") turnOpen = type === "turn_start";
  }
  expect(turnOpen, "the last turn was not ended").toBe(false);

  const toolEvents = (type: "tool_execution_start" | "tool_execution_end") =>
    rig.events.flatMap((event, index) => (event.type === type ? [{ id: event.toolCallId, index }] : []));
  const starts = toolEvents("tool_execution_start");
  const ends = toolEvents("tool_execution_end");
  expect(new Set(starts.map((s) => s.id)).size, "a tool call started twice").toBe(starts.length);
  expect(ends.map((e) => e.id).sort()).toEqual(starts.map((s) => s.id).sort());
  for (const endEvent of ends) {
    expect(endEvent.index).toBeGreaterThan(starts.find((s) => s.id === endEvent.id)!.index);
  }

  const messages = end.messages;
  const calls = messages.flatMap((message, index) =>
    roleOf(message) === "assistant"
      ? (message as AssistantMessage).content.flatMap((block) =>
          block.type === "toolCall" ? [{ id: block.id, index }] : [],
        )
      : [],
  );
  const results = messages.flatMap((message, index) =>
    roleOf(message) === "toolResult" ? [{ id: (message as ToolResultMessage).toolCallId, index }] : [],
  );
  expect(results.map((r) => r.id).sort(), "one tool result per tool call").toEqual(
    calls.map((c) => c.id).sort(),
  );
  for (const result of results) {
    expect(result.index).toBeGreaterThan(calls.find((c) => c.id === result.id)!.index);
  }

  if (rig.callsAtAbort !== undefined)
    expect(rig.modelCalls, "model called after abort").toHaveLength(rig.callsAtAbort);
  for (const [id, held] of [...rig.toolRuns, ...rig.beforeHooks, ...rig.afterHooks]) {
    if (held.late) expect(held.signal?.aborted, `${id} was left running without an abort`).toBe(true);
  }

  if (rig.agent) {
    const state = rig.agent.state;
    expect(state.isStreaming).toBe(false);
    expect(state.pendingToolCalls.size).toBe(0);
    expect(state.messages.slice(-messages.length)).toEqual(messages);
  }

  for (const message of rig.queued) {
    const delivered = messages.filter(same(message)).length;
    const waiting = [...rig.queues.steering, ...rig.queues.followUp].filter(same(message)).length;
    expect(delivered + waiting, "a queued message was lost or duplicated").toBe(1);
  }
}

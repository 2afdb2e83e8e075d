import { expect } from "vitest";
import { ABORTED_CALL_TEXT } from "../../src/loop/tool-batch.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/types/messages.js";
import type { ComposedRig } from "./composed-rig.js";

type AgentEnd = Extract<AgentEvent, { type: "agent_end" }>;

const roleOf = (message: AgentMessage) => (message as { role?: string }).role;
const pathKey = (event: AgentEvent) => (event.agentPath ?? []).join("/");
const json = (message: AgentMessage) => JSON.stringify(message);
const textOf = (message: AssistantMessage | ToolResultMessage) =>
  message.content.map((block) => (block.type === "text" ? block.text : "")).join("");

/**
 * One agent's transcript is valid: each tool call answered by exactly one result that follows it, and
 * no message in it twice (every scripted reply and queued message is unique, so a repeat is a bug).
 */
export function expectValidTranscript(messages: readonly AgentMessage[], who: string): void {
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
  expect(results.map((r) => r.id).sort(), `${who}: one tool result per tool call`).toEqual(
    calls.map((c) => c.id).sort(),
  );
  for (const result of results)
    expect(result.index, `${who}: result of ${result.id} before its call`).toBeGreaterThan(
      calls.find((c) => c.id === result.id)!.index,
    );
  const texts = messages.map(json);
  expect(new Set(texts).size, `${who}: a message is in the transcript twice`).toBe(texts.length);
}

/**
 * What every finished run of the tree must satisfy at every level, whatever path it took (and across a
 * persist/restore): the root idle with no actor left under it; per `agentPath`, one `agent_start` and
 * one `agent_end` after it, balanced turns and tool executions; each level's transcript valid; each
 * agent tool result carrying its child's last text (or its failure) and its child's usage; the refund
 * never run unasked nor twice by one agent; no model call after the abort; every held piece of work
 * left running when the run ended was aborted; every message queued to the root delivered once or
 * still queued, every message queued to a child delivered at most once (exactly once if it stopped normally).
 */
export function expectTreeInvariants(rig: ComposedRig): void {
  const snapshot = rig.agent.actor.getSnapshot();
  expect(snapshot.value).toBe("idle");
  expect(snapshot.context.run).toBeUndefined();
  expect(Object.keys(snapshot.children), "an actor was left under the root").toEqual([]);
  expect(rig.agent.state.isStreaming).toBe(false);
  expect(rig.agent.state.awaitingApproval).toEqual([]);

  const byPath = new Map<string, AgentEvent[]>();
  for (const event of rig.events) byPath.set(pathKey(event), [...(byPath.get(pathKey(event)) ?? []), event]);
  const ends = new Map<string, AgentEnd>();
  for (const [path, events] of byPath) {
    const who = path === "" ? "root" : `child ${path}`;
    const types = events.map((event) => event.type);
    expect(types[0], `${who}: first event`).toBe("agent_start");
    if (path !== "" && isSilentAbort(rig, types)) continue;
    expect(
      types.filter((type) => type === "agent_start"),
      `${who}: agent_start`,
    ).toHaveLength(1);
    expect(
      types.filter((type) => type === "agent_end"),
      `${who}: agent_end`,
    ).toHaveLength(1);
    expect(types.at(-1), `${who}: last event`).toBe("agent_end");
    ends.set(path, events.at(-1) as AgentEnd);
    let turnOpen = false;
    for (const type of types) {
      if (type === "turn_start") expect(turnOpen, `${who}: turn_start inside a turn`).toBe(false);
      if (type === "turn_end") expect(turnOpen, `${who}: turn_end outside a turn`).toBe(true);
      if (type === "turn_start" || type === "turn_end") turnOpen = type === "turn_start";
    }
    expect(turnOpen, `${who}: the last turn was not ended`).toBe(false);
    const ids = (type: string) =>
      events.flatMap((event) => (event.type === type ? [(event as { toolCallId: string }).toolCallId] : []));
    const started = ids("tool_execution_start");
    expect(new Set(started).size, `${who}: a tool call started twice`).toBe(started.length);
    expect(ids("tool_execution_end").sort(), `${who}: one end per started tool call`).toEqual(started.sort());
  }

  const rootEnd = ends.get("")!;
  expect(snapshot.context.messages.slice(-rootEnd.messages.length)).toEqual(rootEnd.messages);
  expectValidTranscript(snapshot.context.messages, "root");
  const rootResults = rootEnd.messages.filter((m): m is ToolResultMessage => roleOf(m) === "toolResult");
  for (const [path, end] of ends) {
    if (path === "") continue;
    expectValidTranscript(end.messages, `child ${path}`);
    const result = rootResults.find((r) => r.toolCallId === path);
    expect(result, `the call ${path} has no tool result`).toBeDefined();
    const last = end.messages.findLast((m): m is AssistantMessage => roleOf(m) === "assistant");
    if (last?.stopReason === "stop") {
      expect(result!.isError).toBe(false);
      expect(textOf(result!)).toBe(textOf(last));
    } else expect(result!.isError, `the failed child ${path} gave a success result`).toBe(true);
    // KNOWN GAP (reported to the lead): the result of a call aborted with the root carries no usage,
    // so the child's spent tokens are missing from the root's totals.
    if (textOf(result!) === ABORTED_CALL_TEXT) continue;
    const replies = end.messages.filter((m): m is AssistantMessage => roleOf(m) === "assistant");
    expect(result!.usage?.input, `usage of ${path}`).toBe(replies.reduce((sum, m) => sum + m.usage.input, 0));
  }
  // Every call of the agent tool ran a child (no limit is hit here).
  for (const result of rootResults) {
    expect(byPath.has(result.toolCallId), `call ${result.toolCallId} ran no child`).toBe(true);
    if (!ends.has(result.toolCallId)) expect(textOf(result)).toBe(ABORTED_CALL_TEXT);
  }

  for (const run of rig.refundRuns) {
    expect(rig.approved.has(run.toolCallId), `refund ${run.toolCallId} ran unasked`).toBe(true);
    expect(run.idempotencyKey).toMatch(new RegExp(`^root/h\\d+:${run.toolCallId}$`));
    if (run.held.late) expect(run.held.signal.aborted, `${run.toolCallId} left running`).toBe(true);
  }
  const runsOf = (id: string, generation?: number) =>
    rig.refundRuns.filter(
      (r) => r.toolCallId === id && (generation === undefined || r.held.generation === generation),
    ).length;
  for (const id of new Set(rig.refundRuns.map((r) => r.toolCallId))) {
    for (let generation = 0; generation <= rig.generation; generation++)
      expect(runsOf(id, generation), `refund ${id} ran twice in one agent`).toBeLessThanOrEqual(1);
    if (rig.options.replay === "never") expect(runsOf(id), `refund ${id} re-ran`).toBe(1);
  }

  if (rig.callsAtAbort !== undefined)
    expect(rig.modelCalls.length, "model called after abort").toBe(rig.callsAtAbort);

  const waiting = [...rig.agent.queued.steering, ...rig.agent.queued.followUp].map(json);
  for (const { agentPath, message } of rig.queued) {
    if (agentPath.length === 0) {
      const delivered = rootEnd.messages.filter((m) => json(m) === json(message)).length;
      const queued = waiting.filter((m) => m === json(message)).length;
      expect(delivered + queued, "a message queued to the root was lost or duplicated").toBe(1);
      continue;
    }
    const end = ends.get(agentPath.join("/"));
    if (!end) continue; // the child ended silently (see isSilentAbort): its transcript is gone
    const delivered = end.messages.filter((m) => json(m) === json(message)).length;
    expect(delivered, "a message queued to a child was duplicated").toBeLessThanOrEqual(1);
    if (end.messages.at(-1) && (end.messages.at(-1) as AssistantMessage).stopReason === "stop")
      expect(delivered, "a message queued to a child that stopped normally was lost").toBe(1);
  }
}

/**
 * KNOWN GAP: when the root is aborted by a listener of a child's own `turn_end`, the child is in the
 * middle of a macrostep, so the ABORT sent down waits in its mailbox, and the root stops the call
 * (clearing that mailbox) before the child handles it: the child never emits `agent_end`. A child
 * aborted while streaming ends its run at once (`streaming: ABORT [isSubAgent]`), so that shape must
 * not appear. Allowed only in exactly this shape: the root was aborted and the child's last event is
 * that `turn_end`.
 */
function isSilentAbort(rig: ComposedRig, types: string[]): boolean {
  if (types.includes("agent_end") || rig.callsAtAbort === undefined) return false;
  expect(types.at(-1), "a child ended without agent_end").toBe("turn_end");
  expect(types.filter((type) => type === "agent_start")).toHaveLength(1);
  return true;
}

import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import { createInspectionBacklog, namespaceRecord } from "../../src/inspector/inspection-backlog.js";
import { createInspectionProjector } from "../../src/inspector/inspection-projector.js";
import type { ActorRecord, InspectionRecord, SnapshotRecord } from "../../src/inspector/inspection-record.js";
import { fakeLoopMachine } from "../support/fake-loop.machine.js";

function runFakeLoop() {
  const records: InspectionRecord[] = [];
  const actor = createActor(fakeLoopMachine, {
    inspect: createInspectionProjector((record) => records.push(record), { now: () => 42 }),
  });
  actor.start();
  actor.send({ type: "PROMPT", text: "hi" });
  actor.send({ type: "TOOL_CALLS", calls: [{ callId: "call_1", name: "read" }] });
  const child = actor.getSnapshot().children.call_1;
  child?.send({ type: "PREPARED", needsApproval: false });
  child?.send({ type: "EXECUTED", result: "ok" });
  child?.send({ type: "FINALIZED" });
  actor.send({ type: "NEXT_TURN" });
  actor.send({ type: "STREAM_END" });
  return { actor, records };
}

describe("inspection projection", () => {
  it("turns a whole actor system into JSON-safe records with actor, parent and root ids", () => {
    const { actor, records } = runFakeLoop();
    expect(actor.getSnapshot().status).toBe("done");
    expect(JSON.parse(JSON.stringify(records))).toEqual(records);
    const actors = records.filter((record): record is ActorRecord => record.kind === "actor");
    expect(actors.map((record) => record.actorId)).toEqual([actor.sessionId, "call_1"]);
    const child = actors[1];
    expect(child?.rootId).toBe(actor.sessionId);
    expect(records.every((record) => record.rootId === actor.sessionId)).toBe(true);
    // The root has no parent; the child's parent is known from its start (`xstate.init`, sent by
    // its parent) on: its actor record, reported when it is created, comes before.
    expect(records.filter((record) => record.sessionId === actor.sessionId && "parentId" in record)).toEqual(
      [],
    );
    const [created, started, ...later] = records.filter((record) => record.sessionId === child?.sessionId);
    expect(created).toBe(child);
    expect(created).not.toHaveProperty("parentId");
    expect(started).toMatchObject({
      kind: "event",
      eventType: "xstate.init",
      sourceId: actor.sessionId,
      parentId: actor.sessionId,
    });
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((record) => record.parentId === actor.sessionId)).toBe(true);
    expect(records.map((record) => record.seq)).toEqual(records.map((_, i) => i + 1));
    expect(records.every((record) => record.time === 42)).toBe(true);
  });

  it("drops the AbortSignal and function from the context and lists children by id", () => {
    const { records } = runFakeLoop();
    const executing = records.find(
      (record): record is SnapshotRecord => record.kind === "snapshot" && record.value === "executingTools",
    );
    expect(executing?.context).toEqual({
      messages: [{ role: "user", text: "hi" }],
      pendingCalls: ["call_1"],
      results: {},
    });
    expect(Object.keys(executing?.children ?? {})).toEqual(["call_1"]);
    const last = records.filter((record) => record.kind === "snapshot" && record.actorId !== "call_1").at(-1);
    expect(last).toMatchObject({ status: "done", value: "done", children: {} });
  });

  it("records events with their sanitized payload and sender", () => {
    const { records } = runFakeLoop();
    const toolCalls = records.find((record) => record.kind === "event" && record.eventType === "TOOL_CALLS");
    expect(toolCalls).toMatchObject({ payload: { calls: [{ callId: "call_1", name: "read" }] } });
    const done = records.find(
      (record) => record.kind === "event" && record.eventType === "xstate.done.actor.call_1",
    );
    const child = records.find((record) => record.kind === "actor" && record.actorId === "call_1");
    expect(done).toMatchObject({
      sourceId: child?.sessionId,
      payload: { output: { callId: "call_1", result: "ok" } },
    });
  });

  it("sends each machine definition once, with states, initial state and transitions", () => {
    const records: InspectionRecord[] = [];
    const inspect = createInspectionProjector((record) => records.push(record));
    const first = createActor(fakeLoopMachine, { inspect }).start();
    first.send({ type: "PROMPT", text: "hi" });
    first.send({ type: "TOOL_CALLS", calls: [{ callId: "call_1", name: "read" }] });
    createActor(fakeLoopMachine, { inspect }).start();
    const actors = records.filter((record): record is ActorRecord => record.kind === "actor");
    const loop = actors[0]?.definition;
    expect(loop?.root.id).toBe("agentLoop");
    expect(loop?.root.initial).toBe("idle");
    expect(loop?.root.states.map((state) => state.key)).toEqual([
      "idle",
      "streaming",
      "executingTools",
      "preparingTurn",
      "done",
    ]);
    const streaming = loop?.root.states.find((state) => state.key === "streaming");
    expect(streaming?.transitions).toContainEqual({
      event: "TOOL_CALLS",
      targets: ["agentLoop.executingTools"],
      guarded: false,
    });
    const executing = loop?.root.states.find((state) => state.key === "executingTools");
    expect(executing?.transitions).toContainEqual({
      event: "",
      targets: ["agentLoop.preparingTurn"],
      guarded: true,
    });
    expect(actors[1]?.definition?.root.id).toBe("toolCall");
    expect(actors[2]?.definition).toBeUndefined();
    expect(actors[2]?.machineKey).toBe(loop?.machineKey);
  });

  it("swallows a throwing consumer so the inspected actor keeps running", () => {
    const actor = createActor(fakeLoopMachine, {
      inspect: createInspectionProjector(() => {
        throw new Error("consumer failed");
      }),
    });
    actor.start();
    actor.send({ type: "PROMPT", text: "hi" });
    expect(actor.getSnapshot().matches("streaming")).toBe(true);
  });
});

describe("inspection backlog", () => {
  it("keeps the latest records and every definition, even when its actor record was evicted", () => {
    const { records } = runFakeLoop();
    const backlog = createInspectionBacklog(5);
    for (const record of records) backlog.add(record);
    const replay = backlog.replay();
    expect(backlog.size).toBe(5);
    expect(replay.records).toEqual(records.slice(-5));
    expect(replay.definitions.map((definition) => definition.root.id)).toEqual(["agentLoop", "toolCall"]);
  });

  it("evicts the oldest records beyond the byte budget but always keeps the newest", () => {
    const { records } = runFakeLoop();
    const backlog = createInspectionBacklog(1_000, 1_500);
    const texts = records.map((record) => backlog.add(record));
    expect(texts.map((text) => JSON.parse(text))).toEqual(records);
    expect(backlog.bytes).toBeLessThanOrEqual(1_500);
    expect(backlog.replayJson()).toEqual(texts.slice(-backlog.size));
    const tiny = createInspectionBacklog(1_000, 1);
    for (const record of records) tiny.add(record);
    expect(tiny.replay().records).toEqual(records.slice(-1));
  });

  it("rejects a capacity that is not a positive integer", () => {
    expect(() => createInspectionBacklog(0)).toThrow(RangeError);
  });

  it("namespaces session ids and machine keys of ingested records", () => {
    const { records } = runFakeLoop();
    const scoped = records.map((record) => namespaceRecord(record, "i1/"));
    expect(
      scoped.every((record) => record.sessionId.startsWith("i1/") && record.rootId.startsWith("i1/")),
    ).toBe(true);
    const snapshot = scoped.find((record) => record.kind === "snapshot" && "call_1" in record.children);
    expect(snapshot?.kind === "snapshot" && snapshot.children.call_1?.startsWith("i1/")).toBe(true);
    const actor = scoped.find(
      (record): record is ActorRecord => record.kind === "actor" && !!record.definition,
    );
    expect(actor?.definition?.machineKey).toBe(actor?.machineKey);
    expect(actor?.machineKey?.startsWith("i1/")).toBe(true);
  });
});

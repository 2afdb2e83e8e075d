import { describe, expect, it } from "vitest";
import { createInspectionBacklog, namespaceRecord } from "../../src/inspector/inspection-backlog.js";
import { createInspectionProjector } from "../../src/inspector/inspection-projector.js";
import type { ActorRecord, InspectionRecord, SnapshotRecord } from "../../src/inspector/inspection-record.js";
import { promptRead, runEnded, startReadAgent } from "../support/inspected-agent.js";

/** The real agent machine run once through a `read` call, inspected with a fixed clock. */
async function runReadAgent() {
  const records: InspectionRecord[] = [];
  const agent = startReadAgent(
    createInspectionProjector((record) => records.push(record), { now: () => 42 }),
    { needsApproval: false },
  );
  promptRead(agent);
  await runEnded(agent);
  return { agent, records };
}

function actorRecords(records: InspectionRecord[]): ActorRecord[] {
  return records.filter((record): record is ActorRecord => record.kind === "actor");
}

describe("inspection projection", () => {
  it("turns a whole actor system into JSON-safe records with actor, parent and root ids", async () => {
    const { agent, records } = await runReadAgent();
    expect(agent.getSnapshot().matches("idle")).toBe(true);
    expect(JSON.parse(JSON.stringify(records))).toEqual(records);
    const actors = actorRecords(records);
    expect(actors[0]?.sessionId).toBe(agent.sessionId);
    const child = actors.find((record) => record.actorId === "call_1");
    expect(child?.rootId).toBe(agent.sessionId);
    expect(records.every((record) => record.rootId === agent.sessionId)).toBe(true);
    // The root has no parent; the child's parent is known from its start (`xstate.init`, sent by
    // its parent) on: its actor record, reported when it is created, comes before.
    expect(records.filter((record) => record.sessionId === agent.sessionId && "parentId" in record)).toEqual(
      [],
    );
    const [created, started, ...later] = records.filter((record) => record.sessionId === child?.sessionId);
    expect(created).toBe(child);
    expect(created).not.toHaveProperty("parentId");
    expect(started).toMatchObject({
      kind: "event",
      eventType: "xstate.init",
      sourceId: agent.sessionId,
      parentId: agent.sessionId,
    });
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((record) => record.parentId === agent.sessionId)).toBe(true);
    expect(records.map((record) => record.seq)).toEqual(records.map((_, i) => i + 1));
    expect(records.every((record) => record.time === 42)).toBe(true);
  });

  it("records each snapshot's context as data and lists the children by id", async () => {
    const { agent, records } = await runReadAgent();
    const snapshots = records.filter(
      (record): record is SnapshotRecord =>
        record.kind === "snapshot" && record.sessionId === agent.sessionId,
    );
    const executing = snapshots.find((record) => JSON.stringify(record.value).includes("executingTools"));
    expect(executing?.value).toEqual({ running: { executingTools: "working" } });
    expect(Object.keys(executing?.children ?? {})).toContain("call_1");
    expect(executing?.context).toMatchObject({
      agentId: "a1",
      run: { batch: { calls: [{ id: "call_1", name: "read" }] } },
    });
    const last = snapshots.at(-1);
    expect(last).toMatchObject({ status: "active", value: "idle", children: {} });
    expect(last?.context).toEqual(JSON.parse(JSON.stringify(agent.getSnapshot().context)));
  });

  it("records events with their sanitized payload and sender", async () => {
    const { records } = await runReadAgent();
    const prompt = records.find((record) => record.kind === "event" && record.eventType === "PROMPT");
    expect(prompt).toMatchObject({ payload: { messages: [{ role: "user", content: "read my notes" }] } });
    const done = records.find(
      (record) => record.kind === "event" && record.eventType === "xstate.done.actor.call_1",
    );
    const child = actorRecords(records).find((record) => record.actorId === "call_1");
    expect(done).toMatchObject({
      sourceId: child?.sessionId,
      payload: { output: { toolCall: { id: "call_1", name: "read" }, isError: false } },
    });
  });

  it("sends each machine definition once, with states, initial state and transitions", async () => {
    const records: InspectionRecord[] = [];
    const inspect = createInspectionProjector((record) => records.push(record));
    const first = startReadAgent(inspect, { needsApproval: false });
    promptRead(first);
    await runEnded(first);
    const second = startReadAgent(inspect, { needsApproval: false });
    const actors = actorRecords(records);
    const agent = actors[0]?.definition;
    expect(agent?.root.id).toBe("agent");
    expect(agent?.root.initial).toBe("idle");
    expect(agent?.root.states.map((state) => state.key)).toEqual(["idle", "running"]);
    const idle = agent?.root.states.find((state) => state.key === "idle");
    expect(idle?.transitions).toContainEqual(
      expect.objectContaining({ event: "PROMPT", targets: ["agent.running"] }),
    );
    const running = agent?.root.states.find((state) => state.key === "running");
    expect(running?.states.map((state) => state.key)).toEqual(
      expect.arrayContaining(["preparingTurn", "streaming", "executingTools"]),
    );
    expect(actors.find((record) => record.actorId === "call_1")?.definition?.root.id).toBe("toolCall");
    const again = actors.find((record) => record.sessionId === second.sessionId);
    expect(again?.definition).toBeUndefined();
    expect(again?.machineKey).toBe(agent?.machineKey);
  });

  it("swallows a throwing consumer so the inspected actor keeps running", async () => {
    const agent = startReadAgent(
      createInspectionProjector(() => {
        throw new Error("consumer failed");
      }),
      { needsApproval: false },
    );
    promptRead(agent);
    expect(agent.getSnapshot().matches("running")).toBe(true);
    await runEnded(agent);
    expect(agent.getSnapshot().context.messages.at(-1)).toMatchObject({ content: [{ text: "Done." }] });
  });
});

describe("inspection backlog", () => {
  it("keeps the latest records and every definition, even when its actor record was evicted", async () => {
    const { records } = await runReadAgent();
    const backlog = createInspectionBacklog(5);
    for (const record of records) backlog.add(record);
    const replay = backlog.replay();
    expect(backlog.size).toBe(5);
    expect(replay.records).toEqual(records.slice(-5));
    expect(replay.definitions.map((definition) => definition.root.id)).toEqual(["agent", "toolCall"]);
  });

  it("evicts the oldest records beyond the byte budget but always keeps the newest", async () => {
    const { records } = await runReadAgent();
    // A budget of two of the largest records: several records are evicted, the newest always kept.
    const budget = 2 * Math.max(...records.map((record) => Buffer.byteLength(JSON.stringify(record))));
    const backlog = createInspectionBacklog(1_000, budget);
    const texts = records.map((record) => backlog.add(record));
    expect(texts.map((text) => JSON.parse(text))).toEqual(records);
    expect(backlog.bytes).toBeLessThanOrEqual(budget);
    expect(backlog.size).toBeLessThan(records.length);
    expect(backlog.replayJson()).toEqual(texts.slice(-backlog.size));
    const tiny = createInspectionBacklog(1_000, 1);
    for (const record of records) tiny.add(record);
    expect(tiny.replay().records).toEqual(records.slice(-1));
  });

  it("rejects a capacity that is not a positive integer", () => {
    expect(() => createInspectionBacklog(0)).toThrow(RangeError);
  });

  it("namespaces session ids and machine keys of ingested records", async () => {
    const { records } = await runReadAgent();
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

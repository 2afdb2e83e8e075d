import { describe, expect, it } from "vitest";
import { createInspectionProjector } from "../../src/inspector/inspection-projector.js";
import type { InspectionRecord } from "../../src/inspector/inspection-record.js";
import {
  activeStatePaths,
  actorsOfSystem,
  applyServerMessage,
  createInspectorModel,
  describeStateValue,
  snapshotAfterEvent,
} from "../../src/inspector/page/inspector-model.js";
import { callWaiting, promptRead, runEnded, startReadAgent } from "../support/inspected-agent.js";

describe("inspector page model", () => {
  it("follows a tool call child from appearing to stopped", async () => {
    const records: InspectionRecord[] = [];
    const agent = startReadAgent(
      createInspectionProjector((r) => records.push(r)),
      { needsApproval: true },
    );
    const model = createInspectorModel();
    const sync = () => applyServerMessage(model, { type: "records", records: records.splice(0) });
    promptRead(agent);
    await callWaiting(agent);
    sync();
    const child = () => actorsOfSystem(model, agent.sessionId).find((view) => view.actorId === "call_1");
    expect(child()).toMatchObject({ status: "active", snapshot: { value: "awaitingApproval" } });
    agent.send({ type: "APPROVE_TOOL", toolCallId: "call_1" });
    await runEnded(agent);
    sync();
    expect(child()).toMatchObject({ status: "stopped", snapshot: { value: "settled" } });
    expect(model.actors.get(agent.sessionId)?.snapshot?.value).toBe("idle");

    const approve = model.events.find(
      (entry) => entry.record.eventType === "APPROVE" && entry.record.sessionId === child()?.sessionId,
    );
    expect(approve && snapshotAfterEvent(model, approve)?.value).toBe("executing");
  });

  it("resets on replay and keeps definitions from it", () => {
    const records: InspectionRecord[] = [];
    startReadAgent(
      createInspectionProjector((r) => records.push(r)),
      { needsApproval: false },
    );
    const model = createInspectorModel();
    applyServerMessage(model, { type: "records", records });
    applyServerMessage(model, { type: "replay", definitions: [], records: records.slice(-1) });
    expect(model.roots).toHaveLength(1);
    expect(model.events).toHaveLength(0);
    expect(model.snapshots).toHaveLength(1);
  });

  it("turns state values into active paths and labels", () => {
    expect(activeStatePaths("streaming")).toEqual(["streaming"]);
    expect(activeStatePaths({ executingTools: { batch: "waiting" } })).toEqual([
      "executingTools",
      "executingTools.batch",
      "executingTools.batch.waiting",
    ]);
    expect(describeStateValue({ a: "x", b: "y" })).toBe("a.x, b.y");
  });
});

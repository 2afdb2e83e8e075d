import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
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
import { fakeLoopMachine } from "../support/fake-loop.machine.js";

describe("inspector page model", () => {
  it("follows a tool call child from appearing to stopped", () => {
    const records: InspectionRecord[] = [];
    const actor = createActor(fakeLoopMachine, {
      inspect: createInspectionProjector((r) => records.push(r)),
    });
    const model = createInspectorModel();
    const sync = () => applyServerMessage(model, { type: "records", records: records.splice(0) });
    actor.start();
    actor.send({ type: "PROMPT", text: "hi" });
    actor.send({ type: "TOOL_CALLS", calls: [{ callId: "call_1", name: "read" }] });
    sync();
    const child = () => actorsOfSystem(model, actor.sessionId).find((view) => view.actorId === "call_1");
    expect(child()).toMatchObject({ status: "active", snapshot: { value: "preparing" } });
    actor.getSnapshot().children.call_1?.send({ type: "PREPARED", needsApproval: true });
    sync();
    expect(child()?.snapshot?.value).toBe("awaitingApproval");
    const callChild = actor.getSnapshot().children.call_1;
    callChild?.send({ type: "APPROVE" });
    callChild?.send({ type: "EXECUTED", result: "ok" });
    callChild?.send({ type: "FINALIZED" });
    sync();
    expect(child()).toMatchObject({ status: "stopped", snapshot: { value: "settled" } });
    expect(model.actors.get(actor.sessionId)?.snapshot?.value).toBe("preparingTurn");

    const approve = model.events.find((entry) => entry.record.eventType === "APPROVE");
    expect(approve && snapshotAfterEvent(model, approve)?.value).toBe("executing");
  });

  it("resets on replay and keeps definitions from it", () => {
    const records: InspectionRecord[] = [];
    createActor(fakeLoopMachine, { inspect: createInspectionProjector((r) => records.push(r)) }).start();
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

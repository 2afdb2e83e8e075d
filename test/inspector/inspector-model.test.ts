import { describe, expect, it } from "vitest";
import { createActor, createMachine } from "xstate";
import { createInspectionProjector } from "../../src/inspector/inspection-projector.js";
import type { InspectionRecord } from "../../src/inspector/inspection-record.js";
import { projectMachineDefinition } from "../../src/inspector/machine-definition.js";
import { flattenBoxes, layoutStateTree } from "../../src/inspector/page/diagram-layout.js";
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

describe("diagram layout", () => {
  it("places the initial state first and successors in later columns, children inside parents", () => {
    const records: InspectionRecord[] = [];
    createActor(fakeLoopMachine, { inspect: createInspectionProjector((r) => records.push(r)) }).start();
    const definition = records.find((record) => record.kind === "actor")?.definition;
    if (!definition) throw new Error("no definition recorded");
    const root = layoutStateTree(definition.root);
    const byPath = new Map(flattenBoxes(root).map((box) => [box.path, box]));
    const x = (path: string) => byPath.get(path)?.x ?? Number.NaN;
    expect(x("idle")).toBeLessThan(x("streaming"));
    expect(x("streaming")).toBeLessThan(x("executingTools"));
    expect(x("executingTools")).toBeLessThan(x("preparingTurn"));
    for (const box of root.children) {
      expect(box.x).toBeGreaterThanOrEqual(root.x);
      expect(box.x + box.width).toBeLessThanOrEqual(root.x + root.width);
      expect(box.y + box.height).toBeLessThanOrEqual(root.y + root.height);
    }
  });

  it("nests compound states inside their parent and puts parallel regions side by side", () => {
    const machine = createMachine({
      id: "nested",
      initial: "idle",
      states: {
        idle: { on: { GO: "executingTools" } },
        executingTools: {
          initial: "waiting",
          states: { waiting: { on: { NEXT: "collecting" } }, collecting: {} },
          on: { DONE: "watching" },
        },
        watching: {
          type: "parallel",
          states: { left: { initial: "a", states: { a: {} } }, right: { initial: "b", states: { b: {} } } },
        },
      },
    });
    const root = layoutStateTree(projectMachineDefinition(machine));
    const boxes = new Map(flattenBoxes(root).map((box) => [box.path, box]));
    const inside = (child: string, parent: string) => {
      const c = boxes.get(child);
      const p = boxes.get(parent);
      if (!c || !p) throw new Error(`missing ${child} or ${parent}`);
      return c.x > p.x && c.y > p.y && c.x + c.width < p.x + p.width && c.y + c.height < p.y + p.height;
    };
    expect(inside("executingTools.waiting", "executingTools")).toBe(true);
    expect(inside("executingTools.collecting", "executingTools")).toBe(true);
    expect(inside("watching.left.a", "watching.left")).toBe(true);
    expect(inside("watching.right", "watching")).toBe(true);
    expect(boxes.get("watching.left")?.region).toBe(true);
    expect(boxes.get("watching.left")?.y).toBe(boxes.get("watching.right")?.y);
    expect(boxes.get("executingTools.waiting")?.x).toBeLessThan(
      boxes.get("executingTools.collecting")?.x ?? 0,
    );
  });
});

import { describe, expect, it } from "vitest";
import { createInspectionProjector } from "../../src/inspector/inspection-projector.js";
import type { InspectionRecord } from "../../src/inspector/inspection-record.js";
import {
  actorName,
  isInternalActor,
  preferredSystem,
  systemName,
} from "../../src/inspector/page/actor-names.js";
import { applyServerMessage, createInspectorModel } from "../../src/inspector/page/inspector-model.js";
import { createHarness } from "../support/harness-support.js";
import { echoTool } from "../support/loop-harness.js";

/** The page model after real harness runs, one per call id, recorded by one projector. */
async function modelOfRuns(callIds: string[]) {
  const records: InspectionRecord[] = [];
  const inspect = createInspectionProjector((record) => records.push(record));
  const agents: string[] = [];
  for (const id of callIds) {
    const { harness, session } = await createHarness(
      [{ toolCalls: [{ name: "echo", arguments: { text: "hi" }, id }] }, { text: "done" }],
      { inspect, tools: [echoTool()] },
    );
    await harness.prompt("go");
    agents.push(session.id.slice(0, 8));
  }
  const model = createInspectorModel();
  applyServerMessage(model, { type: "records", records });
  return { model, agents };
}

describe("readable names of inspected systems and actors", () => {
  it("names a harness by its agent, the agent by its id, a tool call by tool and call id", async () => {
    const { model, agents } = await modelOfRuns(["call_a", "call_b"]);
    // One system per harness: the harness, its agent and session, the agent's calls and steps.
    expect(model.roots.map((rootId) => systemName(model, rootId))).toEqual([
      `harness of agent ${agents[0]}`,
      `harness of agent ${agents[1]}`,
    ]);
    const [, second] = model.roots as [string, string];
    expect(preferredSystem(model)).toBe(second);

    const actors = [...model.actors.values()].filter((actor) => actor.rootId === second);
    const names = actors.map((actor) => ({
      name: actorName(model, actor),
      internal: isInternalActor(actor),
    }));
    // The harness sets no between-turn callbacks: its agent decides between turns without an actor;
    // a call validates in an entry action, without one either. A call's step actors are invoked with
    // ids of their own (`executeTool`), which name them.
    expect(names).toEqual([
      { name: `harness of agent ${agents[1]}`, internal: false },
      { name: "session", internal: false },
      { name: `agent ${agents[1]}`, internal: false },
      { name: "turn", internal: false },
      { name: "stream", internal: false },
      { name: "echo · call_b", internal: false },
      { name: "executeTool", internal: false },
      { name: "stream", internal: false },
    ]);
  });

  it("opens on the newest system when none is an agent, and names a bare root by machine and session", () => {
    const model = createInspectorModel();
    const root = (sessionId: string, machineKey: string) =>
      ({
        kind: "actor",
        seq: 1,
        time: 0,
        sessionId,
        actorId: sessionId,
        rootId: sessionId,
        machineKey,
      }) as const;
    applyServerMessage(model, {
      type: "replay",
      definitions: [
        {
          machineKey: "m#1",
          root: { id: "m", key: "m", type: "atomic", states: [], transitions: [], invokes: [] },
        },
      ],
      records: [root("i1/x:0", "m#1"), root("i1/x:1", "m#1")],
    });
    expect(preferredSystem(model)).toBe("i1/x:1");
    expect(systemName(model, "i1/x:0")).toBe("m i1/x:0");
  });
});

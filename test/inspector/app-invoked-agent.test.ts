import { describe, expect, it } from "vitest";
import { type AnyActorRef, createActor, setup } from "xstate";
import { createInspectionProjector } from "../../src/inspector/inspection-projector.js";
import type { InspectionRecord } from "../../src/inspector/inspection-record.js";
import { actorName } from "../../src/inspector/page/actor-names.js";
import { actorTestId } from "../../src/inspector/page/actor-test-id.js";
import {
  actorDepth,
  actorsOfSystem,
  applyServerMessage,
  createInspectorModel,
} from "../../src/inspector/page/inspector-model.js";
import { createAgentMachine } from "../../src/machines/agent/agent.provided.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { testModel } from "../support/loop-harness.js";
import { recordedParentId } from "../support/recorded-parent.js";

/** The real agent machine, with a model that is never called (the agents stay idle). */
const agentMachine = createAgentMachine({ streamFn: scriptedModel([]) });

/** An app's own machine that invokes an agent with id `agent`. */
const deskMachine = setup({ actors: { agent: agentMachine } }).createMachine({
  id: "desk",
  invoke: {
    src: "agent",
    id: "agent",
    input: ({ self }) => ({ agentId: `desk-${self.id}`, model: testModel }),
  },
});

/** The app: its own agent `agent` and two desks, `billing` and `support`, each with an agent `agent`. */
const appMachine = setup({ actors: { agent: agentMachine, desk: deskMachine } }).createMachine({
  id: "app",
  invoke: [
    { src: "agent", id: "agent", input: { agentId: "front", model: testModel } },
    { src: "desk", id: "billing" },
    { src: "desk", id: "support" },
  ],
});

/** Stands in for the tool call machine (machine id `toolCall`) of an agent tool's call `c1`. */
const toolCallStandIn = setup({ actors: { agent: agentMachine } }).createMachine({
  id: "toolCall",
  context: { toolCall: { id: "c1", name: "research" } },
  invoke: { src: "agent", id: "agent", input: { agentId: "root/c1", model: testModel } },
});

/** The child `id` of `parent`'s current snapshot. */
function childOf(parent: AnyActorRef, id: string): AnyActorRef {
  const child: AnyActorRef | undefined = parent.getSnapshot().children[id];
  if (child === undefined) throw new Error(`${parent.id} has no child ${id}`);
  return child;
}

/** Runs `machine` as a root inspected by one projector; returns its records and the page model. */
function inspectRun(machine: typeof appMachine | typeof toolCallStandIn) {
  const records: InspectionRecord[] = [];
  const root = createActor(machine, { inspect: createInspectionProjector((record) => records.push(record)) });
  root.start();
  const model = createInspectorModel();
  applyServerMessage(model, { type: "records", records });
  return { root, records, model };
}

describe("an agent that an app's own machine invokes", () => {
  it("is recorded under the actor that invoked it and named by its own id, not as a sub-agent", () => {
    const { root, records, model } = inspectRun(appMachine);
    const frontAgent = childOf(root, "agent");
    const billing = childOf(root, "billing");
    const support = childOf(root, "support");
    const billingAgent = childOf(billing, "agent");
    const supportAgent = childOf(support, "agent");

    expect(recordedParentId(records, root.sessionId)).toBeUndefined();
    for (const child of [frontAgent, billing, support]) {
      expect(recordedParentId(records, child.sessionId)).toBe(root.sessionId);
    }
    expect(recordedParentId(records, billingAgent.sessionId)).toBe(billing.sessionId);
    expect(recordedParentId(records, supportAgent.sessionId)).toBe(support.sessionId);

    expect(model.roots).toEqual([root.sessionId]);
    const lines = actorsOfSystem(model, root.sessionId).map(
      (actor) => `${"  ".repeat(actorDepth(model, actor))}${actorName(model, actor)}`,
    );
    expect(lines).toEqual([
      `app ${root.sessionId}`,
      "  agent",
      "  billing",
      "    agent",
      "  support",
      "    agent",
    ]);
  });

  it("is still a sub-agent, named after its tool, when a tool call machine invokes it", () => {
    const { root, model } = inspectRun(toolCallStandIn);
    const child = model.actors.get(childOf(root, "agent").sessionId);
    expect(child?.parentId).toBe(root.sessionId);
    expect(child && actorName(model, child)).toBe("sub-agent research");
  });
});

describe("test ids of the page's actor list", () => {
  it("differ for actors that share an actor id", () => {
    const { root, model } = inspectRun(appMachine);
    const actors = actorsOfSystem(model, root.sessionId);
    const agents = actors.filter((actor) => actor.actorId === "agent");
    expect(agents).toHaveLength(3);
    expect(new Set(agents.map(actorTestId)).size).toBe(3);
    expect(new Set(actors.map(actorTestId)).size).toBe(actors.length);
    expect(actorTestId(model.actors.get(root.sessionId)!)).toBe(`actor-${root.sessionId}`);
  });
});

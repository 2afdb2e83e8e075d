import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createInspectionProjector } from "../../src/inspector/inspection-projector.js";
import type { ActorRecord, InspectionRecord } from "../../src/inspector/inspection-record.js";
import { actorName, isInternalActor } from "../../src/inspector/page/actor-names.js";
import {
  actorDepth,
  actorsOfSystem,
  applyServerMessage,
  createInspectorModel,
} from "../../src/inspector/page/inspector-model.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { echoTool, testModel } from "../support/loop-harness.js";
import { recordedParentId } from "../support/recorded-parent.js";

/** A real run of root → `research` (call `c1`) → `echo` (call `e1`), recorded by one projector. */
async function recordSubAgentRun() {
  const records: InspectionRecord[] = [];
  const research = defineAgentTool({
    name: "research",
    description: "Researches",
    agent: {
      streamFn: scriptedModel([
        { toolCalls: [{ id: "e1", name: "echo", arguments: { text: "deep" } }] },
        { text: "research: done" },
      ]),
      tools: [echoTool()],
    },
  });
  const agent = new Agent({
    model: testModel,
    agentId: "root-agent",
    streamFn: scriptedModel([
      { toolCalls: [{ id: "c1", name: "research", arguments: { task: "look" } }] },
      { text: "root: done" },
    ]),
    tools: [research],
    inspect: createInspectionProjector((record) => records.push(record)),
  });
  await agent.prompt("go");
  return { records, agent };
}

describe("the inspector shows an agent tree", () => {
  it("projects the child agent as an actor of the call, and the child's calls under it", async () => {
    const { records, agent } = await recordSubAgentRun();
    const actors = records.filter((record): record is ActorRecord => record.kind === "actor");
    const byActorId = (actorId: string) => actors.filter((record) => record.actorId === actorId);
    const [call] = byActorId("c1");
    const [child] = byActorId("agent");
    const [childCall] = byActorId("e1");
    const parentOf = (record: ActorRecord | undefined) =>
      record === undefined ? undefined : recordedParentId(records, record.sessionId);
    expect(parentOf(call)).toBe(agent.actor.sessionId);
    expect(parentOf(child)).toBe(call?.sessionId);
    expect(parentOf(childCall)).toBe(child?.sessionId);
    // One system: every actor of the tree has the root agent's session as its root.
    expect(new Set(actors.map((record) => record.rootId))).toEqual(new Set([agent.actor.sessionId]));
    // The child runs the agent machine the root runs: the same definition, sent once.
    const rootRecord = actors.find((record) => record.sessionId === agent.actor.sessionId);
    expect(child?.machineKey).toBe(rootRecord?.machineKey);
    expect(actors.filter((record) => record.definition?.root.id === "agent")).toHaveLength(1);
    const childSnapshot = records.findLast(
      (record) => record.kind === "snapshot" && record.sessionId === child?.sessionId,
    );
    expect(childSnapshot).toMatchObject({ context: { agentId: "root-agent/c1" } });
  });

  it("lists root → call → sub-agent → its calls in tree order, indented by depth, with readable names", async () => {
    const { records, agent } = await recordSubAgentRun();
    const model = createInspectorModel();
    applyServerMessage(model, { type: "records", records });
    const lines = actorsOfSystem(model, agent.actor.sessionId)
      .filter((actor) => !isInternalActor(actor))
      .map((actor) => `${"  ".repeat(actorDepth(model, actor))}${actorName(model, actor)}`);
    expect(lines).toEqual([
      "agent root-age",
      "  stream",
      "  research · c1",
      "    prepareSubAgent",
      "    sub-agent research",
      "      stream",
      "      echo · e1",
      "        executeTool",
      "      stream",
      "    collectSubAgent",
      "  stream",
    ]);
  });

  it("keeps each sub-agent under its own call when parallel calls' actors appear interleaved", () => {
    const model = createInspectorModel();
    const actor = (sessionId: string, actorId: string, parentId?: string): ActorRecord => ({
      kind: "actor",
      seq: 1,
      time: 0,
      sessionId,
      actorId,
      rootId: "x:0",
      ...(parentId ? { parentId } : {}),
    });
    applyServerMessage(model, {
      type: "records",
      records: [
        actor("x:0", "x:0"),
        actor("x:1", "c1", "x:0"),
        actor("x:2", "c2", "x:0"),
        actor("x:3", "agent", "x:2"),
        actor("x:4", "agent", "x:1"),
        actor("x:5", "e2", "x:3"),
        actor("x:6", "e1", "x:4"),
      ],
    });
    const tree = actorsOfSystem(model, "x:0").map(
      (view) => `${"  ".repeat(actorDepth(model, view))}${view.actorId}`,
    );
    expect(tree).toEqual(["x:0", "  c1", "    agent", "      e1", "  c2", "    agent", "      e2"]);
  });
});

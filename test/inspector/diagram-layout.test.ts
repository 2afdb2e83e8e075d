import { describe, expect, it } from "vitest";
import { createMachine } from "xstate";
import { projectMachineDefinition } from "../../src/inspector/machine-definition.js";
import {
  type DiagramLayout,
  diagramGraph,
  edgeLabelText,
  flattenBoxes,
  layoutDiagram,
  readLayout,
  type StateBox,
} from "../../src/inspector/page/diagram-layout.js";
import { agentMachine, harnessMachine, toolCallMachine } from "../../src/machines.js";
import { type DiagramBoxes, diagramFaults, type Rect } from "../support/diagram-geometry.js";
import { elkEngine, fixedPitchMeasure } from "../support/elk.js";

const nestedMachine = createMachine({
  id: "nested",
  initial: "idle",
  states: {
    idle: { on: { GO: "executingTools", STAY: "idle" } },
    executingTools: {
      initial: "waiting",
      states: {
        waiting: { on: { NEXT: "collecting", ESCAPE: "#nested.watching" } },
        collecting: { on: { SETTLE: "#nested.elsewhere" } },
      },
      on: { DONE: "watching", RESTART: ".waiting", PING: { actions: () => {} } },
    },
    watching: {
      type: "parallel",
      states: { left: { initial: "a", states: { a: {} } }, right: { initial: "b", states: { b: {} } } },
    },
    elsewhere: { type: "final" },
  },
});

async function layoutOf(machine: Parameters<typeof projectMachineDefinition>[0]): Promise<DiagramLayout> {
  return layoutDiagram(projectMachineDefinition(machine), fixedPitchMeasure, elkEngine());
}

function boxesOf(layout: DiagramLayout): DiagramBoxes {
  return {
    states: flattenBoxes(layout.root).map((box) => ({
      path: box.path,
      rect: box,
      label: box.label,
      atomic: box.children.length === 0,
    })),
    edgeLabels: layout.edges.map((edge) => ({
      name: `${edge.source.path} → ${edge.target.path}: ${edge.text}`,
      rect: edge.label,
    })),
  };
}

/** Distance from a point to the border of a rectangle (0 on it). */
function distanceToBorder(point: { x: number; y: number }, rect: Rect): number {
  const dx = Math.max(rect.x - point.x, 0, point.x - (rect.x + rect.width));
  const dy = Math.max(rect.y - point.y, 0, point.y - (rect.y + rect.height));
  if (dx > 0 || dy > 0) return Math.hypot(dx, dy);
  return Math.min(
    point.x - rect.x,
    rect.x + rect.width - point.x,
    point.y - rect.y,
    rect.y + rect.height - point.y,
  );
}

function byPath(layout: DiagramLayout): Map<string, StateBox> {
  return new Map(flattenBoxes(layout.root).map((box) => [box.path, box]));
}

describe("diagram layout (ELK)", () => {
  for (const [name, machine] of [
    ["agent", agentMachine],
    ["tool call", toolCallMachine],
    ["harness", harnessMachine],
  ] as const) {
    it(`draws the ${name} machine with every state and transition and no label over another or a state`, async () => {
      const definition = projectMachineDefinition(machine);
      const layout = await layoutOf(machine);
      const states = flattenBoxes(layout.root);
      const countStates = (node: typeof definition): number =>
        1 + node.states.reduce((sum, child) => sum + countStates(child), 0);
      expect(states).toHaveLength(countStates(definition));
      expect(layout.edges.length).toBeGreaterThan(5);
      for (const edge of layout.edges) {
        expect(edge.label.width).toBeGreaterThan(0);
        expect(edge.points.length).toBeGreaterThanOrEqual(2);
        expect(distanceToBorder(edge.points[0]!, edge.source)).toBeLessThan(1);
        expect(distanceToBorder(edge.points.at(-1)!, edge.target)).toBeLessThan(1);
      }
      expect(diagramFaults(boxesOf(layout))).toEqual([]);
      expect(layout.width).toBeGreaterThanOrEqual(layout.root.x + layout.root.width);
    });
  }

  it("nests states in their parents, keeps regions apart and draws self, inner and outward transitions", async () => {
    const layout = await layoutOf(nestedMachine);
    const boxes = byPath(layout);
    expect(diagramFaults(boxesOf(layout))).toEqual([]);
    expect(boxes.get("watching.left")?.region).toBe(true);
    expect(boxes.get("watching.right")?.region).toBe(true);
    expect(boxes.get("executingTools")?.region).toBe(false);
    const edges = layout.edges.map((edge) => `${edge.source.path} -${edge.text}-> ${edge.target.path}`);
    expect(edges).toEqual(
      expect.arrayContaining([
        "idle -GO-> executingTools",
        "idle -STAY-> idle",
        "executingTools.waiting -NEXT-> executingTools.collecting",
        "executingTools.waiting -ESCAPE-> watching",
        "executingTools.collecting -SETTLE-> elsewhere",
        "executingTools -RESTART-> executingTools.waiting",
        "executingTools -DONE-> watching",
      ]),
    );
    expect(edges.some((edge) => edge.includes("PING"))).toBe(false); // targetless: not drawn
  });

  it("puts each compound state's initial child in its first column", async () => {
    for (const machine of [agentMachine, toolCallMachine, harnessMachine, nestedMachine]) {
      const layout = await layoutOf(machine);
      for (const box of flattenBoxes(layout.root)) {
        const initial = box.children.find((child) => child.node.key === box.node.initial);
        if (!initial) continue;
        for (const sibling of box.children)
          expect(initial.x, `${machine.id}: ${box.path}`).toBeLessThanOrEqual(sibling.x);
      }
    }
  });

  it("builds ELK's graph: edges live in the innermost state holding both ends, targetless ones are left out", () => {
    const graph = diagramGraph(projectMachineDefinition(nestedMachine), fixedPitchMeasure);
    const containers = new Map<string, string>();
    const visit = (node: NonNullable<typeof graph.children>[number]) => {
      for (const edge of node.edges ?? [])
        containers.set(`${edge.sources[0]} -> ${edge.targets[0]}`, node.id);
      for (const child of node.children ?? []) visit(child);
    };
    visit(graph);
    expect(Object.fromEntries(containers)).toEqual({
      "nested.idle -> nested.executingTools": "nested",
      "nested.idle -> nested.idle": "nested",
      "nested.executingTools.waiting -> nested.executingTools.collecting": "nested.executingTools",
      "nested.executingTools.waiting -> nested.watching": "nested",
      "nested.executingTools.collecting -> nested.elsewhere": "nested",
      "nested.executingTools -> nested.executingTools.waiting": "nested.executingTools",
      "nested.executingTools -> nested.watching": "nested",
    });
    expect(graph.children?.[0]?.labels?.[0]).toMatchObject({ text: "nested", width: 48, height: 18 });
  });

  it("names XState's own events in words, keeps the exact event for the tooltip and shortens long labels", () => {
    expect(edgeLabelText({ event: "", targets: [], guarded: true })).toEqual({
      text: "always [guard]",
      fullText: "always [guard]",
    });
    expect(edgeLabelText({ event: "xstate.done.actor.compaction", targets: [], guarded: true })).toEqual({
      text: "compaction done [guard]",
      fullText: "xstate.done.actor.compaction [guard]",
    });
    const invoked = {
      event: "xstate.error.actor.0.toolCall.preparing.checkingHook",
      targets: [],
      guarded: false,
    };
    expect(edgeLabelText(invoked).text).toBe("checkingHook failed");
    expect(
      edgeLabelText({ event: "xstate.done.state.toolCall.finalizing", targets: [], guarded: false }).text,
    ).toBe("finalizing done");
    expect(edgeLabelText({ event: "xstate.after.500.agent.waiting", targets: [], guarded: false }).text).toBe(
      "after 500 ms",
    );
    const long = edgeLabelText({ event: "A_VERY_LONG_EVENT_NAME_OF_THIRTY_ONE", targets: [], guarded: true });
    expect(long.fullText).toBe("A_VERY_LONG_EVENT_NAME_OF_THIRTY_ONE [guard]");
    expect(long.text).toHaveLength(30);
    expect(long.text.endsWith("…")).toBe(true);
  });

  it("rejects an ELK result that is not the layout of the machine", () => {
    const definition = projectMachineDefinition(nestedMachine);
    expect(() => readLayout(definition, { id: "diagram", children: [] })).toThrow(
      "ELK's layout has no node for state nested",
    );
  });
});

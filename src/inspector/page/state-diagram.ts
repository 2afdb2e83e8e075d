import type { MachineDefinitionRecord, TransitionDefinitionRecord } from "../inspection-record.js";
import { flattenBoxes, layoutStateTree, type StateBox } from "./diagram-layout.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const MARGIN = 12;
const MAX_LABEL = 30;

/** A drawn diagram whose highlighted states can be updated. */
export interface StateDiagram {
  readonly element: SVGSVGElement;
  /** Marks exactly the states with these paths (`"executingTools.waiting"`) as active. */
  setActive(paths: ReadonlySet<string>): void;
}

/**
 * Draws a machine definition as SVG: one `<g class="state" data-testid="state-<path>">` per state
 * (nested inside its parent's box) and one labelled arrow per transition target.
 */
export function drawStateDiagram(definition: MachineDefinitionRecord): StateDiagram {
  const root = layoutStateTree(definition.root);
  const boxes = flattenBoxes(root);
  const boxById = new Map(boxes.map((box) => [box.node.id, box]));
  const svg = svgElement("svg", {
    viewBox: `${-MARGIN} ${-MARGIN} ${root.width + 2 * MARGIN} ${root.height + 2 * MARGIN + 40}`,
    width: String(root.width + 2 * MARGIN),
    height: String(root.height + 2 * MARGIN + 40),
    "data-testid": "state-diagram",
    "data-machine": definition.machineKey,
  });
  svg.append(arrowMarker());
  const groups = new Map<string, SVGGElement>();
  for (const box of boxes) {
    const group = drawBox(box);
    groups.set(box.path, group);
    svg.append(group);
  }
  const edges = svgElement("g", { class: "edges" });
  const pairCount = new Map<string, number>();
  for (const box of boxes) {
    for (const transition of box.node.transitions) {
      for (const targetId of transition.targets) {
        const target = boxById.get(targetId);
        if (!target) continue;
        const pair = `${box.node.id}->${targetId}`;
        const nth = pairCount.get(pair) ?? 0;
        pairCount.set(pair, nth + 1);
        edges.append(drawEdge(box, target, transition, nth));
      }
    }
  }
  svg.append(edges);
  return {
    element: svg,
    setActive(paths) {
      for (const [path, group] of groups) {
        if (path === "") continue;
        group.setAttribute("data-active", String(paths.has(path)));
      }
    },
  };
}

function drawBox(box: StateBox): SVGGElement {
  const classes = ["state", box.node.type, box.region ? "region" : ""].filter(Boolean).join(" ");
  const testId = box.path === "" ? "state-root" : `state-${box.path}`;
  const group = svgElement("g", { class: classes, "data-testid": testId, "data-active": "false" });
  group.append(
    svgElement("rect", {
      x: String(box.x),
      y: String(box.y),
      width: String(box.width),
      height: String(box.height),
      rx: "8",
    }),
  );
  const atomic = box.children.length === 0;
  const label = svgElement("text", {
    class: "state-label",
    x: String(atomic ? box.x + box.width / 2 : box.x + 10),
    y: String(atomic ? box.y + box.height / 2 + 4 : box.y + 18),
    "text-anchor": atomic ? "middle" : "start",
  });
  label.textContent = box.node.key;
  group.append(label);
  const title = svgElement("title", {});
  title.textContent =
    box.node.id + (box.node.invokes.length > 0 ? `\ninvokes: ${box.node.invokes.join(", ")}` : "");
  group.append(title);
  return group;
}

function drawEdge(source: StateBox, target: StateBox, transition: TransitionDefinitionRecord, nth: number) {
  const group = svgElement("g", { class: "edge", "data-event": transition.event });
  const { d, labelX, labelY, anchor = "middle" } = edgeGeometry(source, target, nth);
  group.append(svgElement("path", { d, "marker-end": "url(#arrow)" }));
  const fullLabel =
    (transition.event === "" ? "always" : transition.event) + (transition.guarded ? " [guard]" : "");
  const text = svgElement("text", { x: String(labelX), y: String(labelY), "text-anchor": anchor });
  text.textContent = fullLabel.length > MAX_LABEL ? `${fullLabel.slice(0, MAX_LABEL - 1)}…` : fullLabel;
  const title = svgElement("title", {});
  title.textContent = `${fullLabel} → ${target.node.id}`;
  text.append(title);
  group.append(text);
  return group;
}

interface EdgeGeometry {
  d: string;
  labelX: number;
  labelY: number;
  anchor?: "start" | "middle";
}

function edgeGeometry(source: StateBox, target: StateBox, nth: number): EdgeGeometry {
  const shift = nth * 14;
  if (source === target) {
    const x = source.x + source.width - 24;
    const y = source.y;
    return {
      d: `M ${x - 14} ${y} C ${x - 14} ${y - 30}, ${x + 14} ${y - 30}, ${x + 14} ${y}`,
      labelX: x,
      labelY: y - 26 - shift,
    };
  }
  const sourceRight = source.x + source.width;
  if (target.x >= sourceRight) {
    const x1 = sourceRight;
    const y1 = source.y + Math.min(source.height / 2, 20);
    const x2 = target.x;
    const y2 = target.y + Math.min(target.height / 2, 20);
    const bend = Math.max(30, (x2 - x1) / 2);
    return {
      d: `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`,
      labelX: (x1 + x2) / 2,
      labelY: (y1 + y2) / 2 - 5 - shift,
    };
  }
  const overlapLeft = Math.max(source.x, target.x);
  const overlapRight = Math.min(sourceRight, target.x + target.width);
  const sourceAbove = source.y + source.height <= target.y;
  if (overlapRight - overlapLeft > 20 && (sourceAbove || target.y + target.height <= source.y)) {
    // Same column: a straight arrow between facing edges.
    const x = (overlapLeft + overlapRight) / 2 + shift;
    const y1 = sourceAbove ? source.y + source.height : source.y;
    const y2 = sourceAbove ? target.y : target.y + target.height;
    return { d: `M ${x} ${y1} L ${x} ${y2}`, labelX: x + 6, labelY: (y1 + y2) / 2 + 4, anchor: "start" };
  }
  // Backwards: leave from the bottom and loop below both boxes.
  const x1 = source.x + source.width / 2;
  const y1 = source.y + source.height;
  const x2 = target.x + target.width / 2 + 8;
  const y2 = target.y + target.height;
  const low = Math.max(y1, y2) + 28 + shift;
  return {
    d: `M ${x1} ${y1} C ${x1} ${low}, ${x2} ${low}, ${x2} ${y2}`,
    labelX: (x1 + x2) / 2,
    labelY: low - 2,
  };
}

function arrowMarker(): SVGDefsElement {
  const defs = svgElement("defs", {});
  const marker = svgElement("marker", {
    id: "arrow",
    viewBox: "0 0 10 10",
    refX: "9",
    refY: "5",
    markerWidth: "7",
    markerHeight: "7",
    orient: "auto-start-reverse",
  });
  marker.append(svgElement("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#9aa3b5" }));
  defs.append(marker);
  return defs;
}

function svgElement<TName extends keyof SVGElementTagNameMap>(
  name: TName,
  attributes: Record<string, string>,
): SVGElementTagNameMap[TName] {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

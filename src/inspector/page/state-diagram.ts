import type { MachineDefinitionRecord } from "../inspection-record.js";
import {
  type Box,
  type DiagramLayout,
  type EdgeRoute,
  flattenBoxes,
  type LayoutEngine,
  layoutDiagram,
  type StateBox,
  type TextMeasure,
} from "./diagram-layout.js";

const SVG_NS = "http://www.w3.org/2000/svg";
/** Space around the root state, in diagram units. */
export const DIAGRAM_MARGIN = 12;
/** Fonts of the labels; the page's CSS draws them with the same ones (see page-html.ts). */
const FONTS = { state: "600 13px system-ui, sans-serif", edge: "12px system-ui, sans-serif" } as const;
const LINE_HEIGHT = { state: 18, edge: 16 } as const;
/** The smallest font size the diagram uses (edge labels), in diagram units. */
export const SMALLEST_FONT_SIZE = 12;

/** A drawn diagram whose highlighted states can be updated. */
export interface StateDiagram {
  /** The `<svg>`; empty, with `data-layout="pending"`, until the layout is done. */
  readonly element: SVGSVGElement;
  /**
   * Settles when the diagram is drawn (`data-layout="done"`), with the box the drawing covers in
   * diagram units, or when its layout failed (`"error"`), with `undefined`.
   */
  readonly drawn: Promise<Box | undefined>;
  /** Marks exactly the states with these paths (`"executingTools.waiting"`) as active, now or once drawn. */
  setActive(paths: ReadonlySet<string>): void;
}

/**
 * Draws a machine definition as SVG, laid out by `engine` (ELK): one `<g class="state"
 * data-testid="state-<path>">` per state, nested states inside their parent's box, and one
 * `<g class="edge">` per transition target with its label in a box of its own. A failed layout is
 * logged to the console and shown as a note in the `<svg>`.
 */
export function drawStateDiagram(definition: MachineDefinitionRecord, engine: LayoutEngine): StateDiagram {
  const svg = svgElement("svg", {
    "data-testid": "state-diagram",
    "data-machine": definition.machineKey,
    "data-layout": "pending",
  });
  let active: ReadonlySet<string> = new Set();
  let groups = new Map<string, SVGGElement>();
  const highlight = () => {
    for (const [path, group] of groups) {
      if (path !== "") group.setAttribute("data-active", String(active.has(path)));
    }
  };
  const drawn = layoutDiagram(definition.root, textMeasure(), engine).then(
    (layout) => {
      groups = render(svg, layout);
      highlight();
      svg.setAttribute("data-layout", "done");
      return {
        x: -DIAGRAM_MARGIN,
        y: -DIAGRAM_MARGIN,
        width: layout.width + 2 * DIAGRAM_MARGIN,
        height: layout.height + 2 * DIAGRAM_MARGIN,
      };
    },
    (error: unknown) => {
      console.error("inspector: the diagram layout failed", error);
      const note = svgElement("text", { x: "0", y: "16" });
      note.textContent = `The diagram could not be laid out: ${String(error)}`;
      svg.replaceChildren(note);
      svg.setAttribute("data-layout", "error");
      return undefined;
    },
  );
  return {
    element: svg,
    drawn,
    setActive(paths) {
      active = paths;
      highlight();
    },
  };
}

/** Fills `svg` with the layout (its `viewBox` is the page's camera); returns the state groups by path. */
function render(svg: SVGSVGElement, layout: DiagramLayout): Map<string, SVGGElement> {
  const groups = new Map<string, SVGGElement>();
  const states = flattenBoxes(layout.root);
  for (const box of states) groups.set(box.path, drawState(box));
  const edges = svgElement("g", { class: "edges" });
  for (const edge of layout.edges) edges.append(drawEdge(edge));
  svg.replaceChildren(arrowMarker(), ...groups.values(), edges);
  return groups;
}

function drawState(box: StateBox): SVGGElement {
  const classes = ["state", box.node.type, box.region ? "region" : ""].filter(Boolean).join(" ");
  const testId = box.path === "" ? "state-root" : `state-${box.path}`;
  const group = svgElement("g", { class: classes, "data-testid": testId, "data-active": "false" });
  group.append(svgElement("rect", { ...rectAttributes(box), rx: "8" }));
  group.append(labelText("state-label", box.node.key, box.label));
  const title = svgElement("title", {});
  title.textContent =
    box.node.id + (box.node.invokes.length > 0 ? `\ninvokes: ${box.node.invokes.join(", ")}` : "");
  group.append(title);
  return group;
}

function drawEdge(edge: EdgeRoute): SVGGElement {
  const group = svgElement("g", {
    class: "edge",
    "data-event": edge.transition.event,
    "data-source": edge.source.path,
    "data-target": edge.target.path,
  });
  const d = edge.points.map((point, i) => `${i === 0 ? "M" : "L"} ${point.x} ${point.y}`).join(" ");
  group.append(svgElement("path", { d, "marker-end": "url(#arrow)" }));
  const text = labelText("edge-label", edge.text, edge.label);
  const title = svgElement("title", {});
  title.textContent = `${edge.fullText} → ${edge.target.node.id}`;
  text.append(title);
  group.append(text);
  return group;
}

/** A text starting at the left of `box`, vertically centred in it. */
function labelText(className: string, content: string, box: Box): SVGTextElement {
  const text = svgElement("text", {
    class: className,
    x: String(box.x),
    y: String(box.y + box.height / 2),
    "dominant-baseline": "central",
  });
  text.textContent = content;
  return text;
}

/** Measures label text with a canvas in the fonts the page draws it with. */
function textMeasure(): TextMeasure {
  const context = document.createElement("canvas").getContext("2d");
  return (text, kind) => {
    if (!context) return { width: text.length * 8, height: LINE_HEIGHT[kind] };
    context.font = FONTS[kind];
    return { width: Math.ceil(context.measureText(text).width) + 2, height: LINE_HEIGHT[kind] };
  };
}

function rectAttributes(box: StateBox): Record<string, string> {
  return { x: String(box.x), y: String(box.y), width: String(box.width), height: String(box.height) };
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

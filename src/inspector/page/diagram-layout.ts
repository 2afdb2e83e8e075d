import type { ElkExtendedEdge, ElkLabel, ElkNode, LayoutOptions } from "elkjs/lib/elk-api.js";
import type { StateDefinitionRecord, TransitionDefinitionRecord } from "../inspection-record.js";

/**
 * The diagram's geometry, computed by ELK (the Eclipse Layout Kernel, `elkjs`): its layered
 * algorithm with hierarchy handling lays out the whole state tree at once, compound states
 * containing their children, and places every transition label as its own box so that no label
 * covers another label or a state. This module only builds ELK's input and reads its output: pure,
 * no DOM; the ELK instance and the text measure are passed in.
 */

/** An axis-aligned box in diagram coordinates (top-left corner, size). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A positioned state; `path` is the keys from the root joined by `"."` (root: `""`). */
export interface StateBox extends Box {
  node: StateDefinitionRecord;
  path: string;
  /** True for the regions of a parallel state. */
  region: boolean;
  /** Where the state's name is drawn. */
  label: Box;
  children: StateBox[];
}

/** One drawn arrow: a transition of `source` to one of its targets. */
export interface EdgeRoute {
  source: StateBox;
  target: StateBox;
  transition: TransitionDefinitionRecord;
  /** The label as drawn (possibly shortened) and in full. */
  text: string;
  fullText: string;
  /** The polyline from source to target, at least two points. */
  points: Array<{ x: number; y: number }>;
  label: Box;
}

/** A laid-out machine: the root state's box (holding all others), the edges and the overall size. */
export interface DiagramLayout {
  root: StateBox;
  edges: EdgeRoute[];
  width: number;
  height: number;
}

/** What a label's text needs on screen; `kind` selects the font (state names are bold, larger). */
export type TextMeasure = (text: string, kind: "state" | "edge") => { width: number; height: number };

/** The part of an ELK instance the layout uses (`new ELK()` from `elkjs` satisfies it). */
export interface LayoutEngine {
  layout(graph: ElkNode): Promise<ElkNode>;
}

const MAX_LABEL = 30;
const PADDING = 14;
const MIN_ATOMIC = { width: 90, height: 36 };
const GRAPH_ID = "diagram";

/**
 * ELK options of every node that has children: ELK reads most layered options from the parent whose
 * children they arrange (see eclipse.dev/elk/reference/options).
 */
const PARENT_OPTIONS: LayoutOptions = {
  "elk.direction": "RIGHT",
  "elk.edgeRouting": "ORTHOGONAL",
  "elk.edgeLabels.inline": "false",
  "elk.layered.spacing.nodeNodeBetweenLayers": "18",
  "elk.layered.spacing.edgeNodeBetweenLayers": "8",
  "elk.layered.spacing.edgeEdgeBetweenLayers": "8",
  "elk.spacing.nodeNode": "24",
  "elk.spacing.edgeNode": "14",
  "elk.spacing.edgeEdge": "10",
  "elk.spacing.edgeLabel": "4",
  "elk.spacing.labelLabel": "4",
  "elk.spacing.labelNode": "6",
};

/** ELK options of the graph itself: absolute coordinates everywhere, no margin around the root state. */
const GRAPH_OPTIONS: LayoutOptions = {
  ...PARENT_OPTIONS,
  "elk.algorithm": "layered",
  "elk.hierarchyHandling": "INCLUDE_CHILDREN",
  "elk.padding": "[top=0,left=0,bottom=0,right=0]",
  "elk.json.shapeCoords": "ROOT",
  "elk.json.edgeCoords": "ROOT",
};

/** Lays out a machine's state tree with `engine`; rejects if ELK rejects the graph. */
export async function layoutDiagram(
  root: StateDefinitionRecord,
  measure: TextMeasure,
  engine: LayoutEngine,
): Promise<DiagramLayout> {
  return readLayout(root, await engine.layout(diagramGraph(root, measure)));
}

/**
 * ELK's input for a state tree: one node per state (ELK id = state id) nested like the states, a
 * name label on each, and one edge per transition target with a centred label. An edge lives in the
 * innermost state that holds both ends (ELK's containment rule). Targetless transitions and targets
 * that are not states of this tree are left out.
 */
export function diagramGraph(root: StateDefinitionRecord, measure: TextMeasure): ElkNode {
  const nodes = new Map<string, ElkNode>();
  const parents = new Map<string, string>();
  const build = (state: StateDefinitionRecord, initial: boolean): ElkNode => {
    const size = measure(state.key, "state");
    const atomic = state.states.length === 0;
    const node: ElkNode = {
      id: state.id,
      labels: [{ id: `${state.id}#label`, text: state.key, ...size }],
      layoutOptions: atomic
        ? {
            "elk.nodeLabels.placement": "H_CENTER V_CENTER INSIDE",
            "elk.nodeSize.constraints": "NODE_LABELS MINIMUM_SIZE",
            "elk.nodeSize.minimum": `(${MIN_ATOMIC.width}, ${MIN_ATOMIC.height})`,
            "elk.nodeLabels.padding": `[top=8,left=${PADDING},bottom=8,right=${PADDING}]`,
          }
        : {
            ...PARENT_OPTIONS,
            "elk.nodeLabels.placement": "H_LEFT V_TOP INSIDE",
            "elk.nodeSize.constraints": "NODE_LABELS",
            "elk.nodeLabels.padding": "[top=6,left=10,bottom=6,right=10]",
            "elk.padding": `[top=${Math.ceil(size.height) + PADDING + 6},left=${PADDING},bottom=${PADDING},right=${PADDING}]`,
          },
      children: state.states.map((child) => {
        parents.set(child.id, state.id);
        return build(child, child.key === state.initial);
      }),
      edges: [],
    };
    // The initial state in the first column, at its left edge (ELK centres a narrow node in its column).
    if (initial)
      node.layoutOptions = {
        ...node.layoutOptions,
        "elk.layered.layering.layerConstraint": "FIRST",
        "elk.alignment": "LEFT",
      };
    nodes.set(state.id, node);
    return node;
  };
  const graph: ElkNode = {
    id: GRAPH_ID,
    layoutOptions: GRAPH_OPTIONS,
    children: [build(root, false)],
    edges: [],
  };
  nodes.set(GRAPH_ID, graph);

  forEachEdge(root, (state, transition, target, id) => {
    if (!nodes.has(target)) return;
    const text = edgeLabelText(transition).text;
    const edge: ElkExtendedEdge = {
      id,
      sources: [state.id],
      targets: [target],
      labels: [{ id: `${id}#label`, text, ...measure(text, "edge") }],
      layoutOptions: { "elk.edgeLabels.placement": "CENTER" },
    };
    const container = nodes.get(edgeContainer(state.id, target, parents)) ?? graph;
    container.edges?.push(edge);
  });
  return graph;
}

/**
 * Reads ELK's output back into boxes and routes (coordinates are absolute, as the graph asks for).
 * Throws if the output lacks a state or an edge's route, i.e. if it is not the layout of `root`.
 */
export function readLayout(root: StateDefinitionRecord, laidOut: ElkNode): DiagramLayout {
  const elkNodes = new Map<string, ElkNode>();
  const elkEdges = new Map<string, ElkExtendedEdge>();
  const collect = (node: ElkNode) => {
    elkNodes.set(node.id, node);
    for (const edge of node.edges ?? []) elkEdges.set(edge.id, edge);
    for (const child of node.children ?? []) collect(child);
  };
  collect(laidOut);

  const boxes = new Map<string, StateBox>();
  const toBox = (state: StateDefinitionRecord, path: string, region: boolean): StateBox => {
    const node = elkNodes.get(state.id);
    if (!node) throw new Error(`ELK's layout has no node for state ${state.id}`);
    const box: StateBox = {
      node: state,
      path,
      region,
      ...boxOf(node),
      label: boxOf(node.labels?.[0] ?? {}),
      children: state.states.map((child) =>
        toBox(child, path === "" ? child.key : `${path}.${child.key}`, state.type === "parallel"),
      ),
    };
    boxes.set(state.id, box);
    return box;
  };
  const rootBox = toBox(root, "", false);

  const edges: EdgeRoute[] = [];
  forEachEdge(root, (state, transition, targetId, id) => {
    const source = boxes.get(state.id);
    const target = boxes.get(targetId);
    if (!source || !target) return;
    const edge = elkEdges.get(id);
    const section = edge?.sections?.[0];
    if (!edge || !section) throw new Error(`ELK's layout has no route for the transition ${id}`);
    edges.push({
      source,
      target,
      transition,
      ...edgeLabelText(transition),
      points: [section.startPoint, ...(section.bendPoints ?? []), section.endPoint],
      label: boxOf(edge.labels?.[0] ?? {}),
    });
  });
  return { root: rootBox, edges, width: laidOut.width ?? 0, height: laidOut.height ?? 0 };
}

/** Every box of the tree, parents before children. */
export function flattenBoxes(box: StateBox): StateBox[] {
  return [box, ...box.children.flatMap(flattenBoxes)];
}

/**
 * A transition's label: the event in words where XState names it (`stream done` for
 * `xstate.done.actor.stream`, `checkingHook failed` for an error of the invoked actor
 * `0.toolCall.preparing.checkingHook`, `preparing done` for a compound state's end, `after 500 ms`,
 * `always` for eventless ones), `[guard]` when guarded, shortened to 30 characters; `fullText` is
 * the exact event type, for the tooltip.
 */
export function edgeLabelText(transition: TransitionDefinitionRecord): { text: string; fullText: string } {
  const guard = transition.guarded ? " [guard]" : "";
  const fullText = (transition.event === "" ? "always" : transition.event) + guard;
  const readable = readableEventType(transition.event) + guard;
  const text = readable.length > MAX_LABEL ? `${readable.slice(0, MAX_LABEL - 1)}…` : readable;
  return { text, fullText };
}

/**
 * An event type in words where XState names it (see {@link edgeLabelText}); other types unchanged.
 *
 * Contract: pure, never throws.
 *
 * ```ts
 * readableEventType("xstate.done.actor.0.toolCall.executing"); // "executing done"
 * ```
 */
export function readableEventType(event: string): string {
  if (event === "") return "always";
  const lastKey = (id: string) => id.slice(id.lastIndexOf(".") + 1);
  const done = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event);
  if (done) return `${lastKey(done[2] as string)} ${done[1] === "done" ? "done" : "failed"}`;
  const stateDone = /^xstate\.done\.state\.(.+)$/.exec(event);
  if (stateDone) return `${lastKey(stateDone[1] as string)} done`;
  const after = /^xstate\.after\.(\d+)\./.exec(event);
  if (after) return `after ${after[1]} ms`;
  return event;
}

/** Calls `visit` for each (state, transition, target id) of the tree with a stable edge id. */
function forEachEdge(
  state: StateDefinitionRecord,
  visit: (
    state: StateDefinitionRecord,
    transition: TransitionDefinitionRecord,
    target: string,
    id: string,
  ) => void,
): void {
  state.transitions.forEach((transition, t) => {
    transition.targets.forEach((target, n) => {
      visit(state, transition, target, `${state.id}#t${t}.${n}`);
    });
  });
  for (const child of state.states) forEachEdge(child, visit);
}

/**
 * The ELK node an edge belongs to: the source's parent for a self-transition, the ancestor for an
 * edge between a state and one of its descendants, else the innermost common ancestor.
 */
function edgeContainer(source: string, target: string, parents: Map<string, string>): string {
  const ancestors = (id: string): string[] => {
    const chain = [id];
    for (let parent = parents.get(id); parent !== undefined; parent = parents.get(parent)) chain.push(parent);
    return [...chain, GRAPH_ID];
  };
  if (source === target) return parents.get(source) ?? GRAPH_ID;
  const targetChain = new Set(ancestors(target));
  return ancestors(source).find((id) => targetChain.has(id)) ?? GRAPH_ID;
}

function boxOf(shape: ElkNode | ElkLabel): Box {
  return { x: shape.x ?? 0, y: shape.y ?? 0, width: shape.width ?? 0, height: shape.height ?? 0 };
}

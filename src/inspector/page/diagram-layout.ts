import type { StateDefinitionRecord } from "../inspection-record.js";

/**
 * A small layered layout for a state tree: siblings are ranked by their distance from the initial
 * state along transitions and placed in columns; compound states contain their children; parallel
 * regions sit side by side. Pure geometry, no DOM.
 */

/** A positioned state box; `path` is the keys from the root joined by `"."` (root: `""`). */
export interface StateBox {
  node: StateDefinitionRecord;
  path: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** True for the regions of a parallel state. */
  region: boolean;
  children: StateBox[];
}

const CHAR_WIDTH = 7.2;
const ATOMIC_HEIGHT = 40;
const HEADER = 26;
const PADDING = 16;
const ROW_GAP = 34;
const COLUMN_GAP = 110;

/** Lays out the tree rooted at `root` with its top-left corner at (0, 0). */
export function layoutStateTree(root: StateDefinitionRecord): StateBox {
  const box = measure(root, "", false);
  place(box, 0, 0);
  return box;
}

/** Every box of the tree, parents before children. */
export function flattenBoxes(box: StateBox): StateBox[] {
  return [box, ...box.children.flatMap(flattenBoxes)];
}

interface Measured extends StateBox {
  /** Child offsets relative to this box's corner. */
  offsets: Array<{ dx: number; dy: number }>;
}

function measure(node: StateDefinitionRecord, path: string, region: boolean): Measured {
  const childPath = (key: string) => (path === "" ? key : `${path}.${key}`);
  const children = node.states.map((child) => measure(child, childPath(child.key), node.type === "parallel"));
  const labelWidth = node.key.length * CHAR_WIDTH + 2 * PADDING;
  const box: Measured = { node, path, x: 0, y: 0, width: 0, height: 0, region, children, offsets: [] };
  if (children.length === 0) {
    box.width = Math.max(110, labelWidth);
    box.height = ATOMIC_HEIGHT;
    return box;
  }
  if (node.type === "parallel") {
    let x = PADDING;
    for (const child of children) {
      box.offsets.push({ dx: x, dy: HEADER + PADDING });
      x += child.width + PADDING;
    }
    box.width = Math.max(labelWidth, x);
    box.height = HEADER + 2 * PADDING + Math.max(...children.map((child) => child.height));
    return box;
  }
  const columns = rankColumns(node, children);
  let x = PADDING;
  let contentHeight = 0;
  const offsets = new Map<Measured, { dx: number; dy: number }>();
  for (const column of columns) {
    let y = HEADER + PADDING;
    for (const child of column) {
      offsets.set(child, { dx: x, dy: y });
      y += child.height + ROW_GAP;
    }
    contentHeight = Math.max(contentHeight, y - ROW_GAP - HEADER - PADDING);
    x += Math.max(...column.map((child) => child.width)) + COLUMN_GAP;
  }
  box.offsets = children.map((child) => offsets.get(child) ?? { dx: PADDING, dy: HEADER + PADDING });
  box.width = Math.max(labelWidth, x - COLUMN_GAP + PADDING);
  box.height = HEADER + 2 * PADDING + contentHeight;
  return box;
}

/** Groups children into columns by breadth-first distance from the initial child. */
function rankColumns(node: StateDefinitionRecord, children: Measured[]): Measured[][] {
  const byKey = new Map(children.map((child) => [child.node.key, child]));
  const edges = new Map<string, Set<string>>();
  for (const child of children) {
    const targets = new Set<string>();
    for (const state of walk(child.node)) {
      for (const transition of state.transitions) {
        for (const target of transition.targets) {
          const sibling = siblingKeyOf(node, target);
          if (sibling !== undefined && sibling !== child.node.key) targets.add(sibling);
        }
      }
    }
    edges.set(child.node.key, targets);
  }
  const rank = new Map<string, number>();
  const start = node.initial ?? children[0]?.node.key;
  const queue = start === undefined ? [] : [start];
  if (start !== undefined) rank.set(start, 0);
  while (queue.length > 0) {
    const key = queue.shift() as string;
    for (const target of edges.get(key) ?? []) {
      if (!rank.has(target)) {
        rank.set(target, (rank.get(key) ?? 0) + 1);
        queue.push(target);
      }
    }
  }
  const unreachableRank = Math.max(-1, ...rank.values()) + 1;
  const columns: Measured[][] = [];
  for (const [key, child] of byKey) {
    const column = rank.get(key) ?? unreachableRank;
    const members = columns[column] ?? [];
    members.push(child);
    columns[column] = members;
  }
  return columns.filter((column) => column.length > 0);
}

function* walk(node: StateDefinitionRecord): Generator<StateDefinitionRecord> {
  yield node;
  for (const child of node.states) yield* walk(child);
}

/** The key of the child of `parent` that contains the state with id `targetId`, if any. */
function siblingKeyOf(parent: StateDefinitionRecord, targetId: string): string | undefined {
  for (const child of parent.states) {
    if (targetId === child.id || targetId.startsWith(`${child.id}.`)) return child.key;
  }
  return undefined;
}

function place(box: StateBox, x: number, y: number): void {
  box.x = x;
  box.y = y;
  const offsets = (box as Measured).offsets;
  box.children.forEach((child, i) => {
    const offset = offsets[i] ?? { dx: 0, dy: 0 };
    place(child, x + offset.dx, y + offset.dy);
  });
}

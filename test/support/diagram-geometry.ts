/** A rectangle: top-left corner and size. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What a drawn state diagram shows, as boxes: states (with their name's box) and edge labels. */
export interface DiagramBoxes {
  states: Array<{ path: string; rect: Rect; label: Rect; atomic: boolean }>;
  edgeLabels: Array<{ name: string; rect: Rect }>;
}

/** Boxes closer than this (in px) do not count as overlapping: rounding of text metrics. */
const TOLERANCE = 0.5;

function intersects(a: Rect, b: Rect): boolean {
  return (
    a.x + a.width - TOLERANCE > b.x &&
    b.x + b.width - TOLERANCE > a.x &&
    a.y + a.height - TOLERANCE > b.y &&
    b.y + b.height - TOLERANCE > a.y
  );
}

function contains(outer: Rect, inner: Rect): boolean {
  return (
    inner.x >= outer.x - TOLERANCE &&
    inner.y >= outer.y - TOLERANCE &&
    inner.x + inner.width <= outer.x + outer.width + TOLERANCE &&
    inner.y + inner.height <= outer.y + outer.height + TOLERANCE
  );
}

const parentPath = (path: string) => (path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : "");

/**
 * Every readability fault of a diagram, as sentences (empty when it is readable): an edge label
 * over another edge label, over a state's name, over an atomic state, or across a compound state's
 * border; a state outside its parent; two sibling states overlapping.
 */
export function diagramFaults(diagram: DiagramBoxes): string[] {
  const faults: string[] = [];
  const { states, edgeLabels } = diagram;
  edgeLabels.forEach((label, i) => {
    for (const other of edgeLabels.slice(i + 1)) {
      if (intersects(label.rect, other.rect))
        faults.push(`label "${label.name}" overlaps label "${other.name}"`);
    }
    for (const state of states) {
      if (intersects(label.rect, state.label))
        faults.push(`label "${label.name}" overlaps the name of state "${state.path}"`);
      if (!intersects(label.rect, state.rect)) continue;
      if (state.atomic || !contains(state.rect, label.rect))
        faults.push(`label "${label.name}" is drawn over state "${state.path}"`);
    }
  });
  const byPath = new Map(states.map((state) => [state.path, state]));
  for (const state of states) {
    if (state.path === "") continue;
    const parent = byPath.get(parentPath(state.path));
    if (parent && !contains(parent.rect, state.rect))
      faults.push(`state "${state.path}" is outside its parent`);
    for (const sibling of states) {
      if (sibling.path <= state.path || parentPath(sibling.path) !== parentPath(state.path)) continue;
      if (intersects(state.rect, sibling.rect))
        faults.push(`states "${state.path}" and "${sibling.path}" overlap`);
    }
  }
  return faults;
}

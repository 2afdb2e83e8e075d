import {
  type Camera,
  fitCamera,
  panCamera,
  type ScaleLimits,
  viewBoxOf,
  zoomCamera,
} from "./diagram-camera.js";
import type { Box } from "./diagram-layout.js";

/** Zoom and pan of the diagram panel: one per page, showing one drawn `<svg>` at a time. */
export interface DiagramViewport {
  /** Shows `svg` (already in the panel) covering `content`, at the default camera. */
  show(svg: SVGSVGElement, content: Box): void;
  /** The default camera: as large as fits, never below the readable scale. */
  fit(): void;
  /** The whole diagram, however small its text gets. */
  showAll(): void;
  /** Zooms by `factor` around the panel's centre. */
  zoom(factor: number): void;
}

/** Limits of the wheel and the buttons: from a tenth to four times the diagram's own size. */
const ZOOM_LIMITS: ScaleLimits = { min: 0.1, max: 4 };
/** The default camera never enlarges a small diagram beyond this. */
const MAX_DEFAULT_SCALE = 1.5;
/** How much one wheel pixel zooms. */
const WHEEL_ZOOM = 0.0015;

/**
 * Makes `panel` a zoom-and-pan viewport for the diagrams shown in it: the wheel zooms around the
 * pointer, dragging pans, and the panel's size is followed (while the user has not moved the view,
 * a resize fits the diagram again). `readableScale` is the smallest scale at which the diagram's
 * smallest text has the minimum size; the default camera never goes below it. The `<svg>` carries
 * the camera's scale as `data-scale` (screen pixels per diagram unit).
 *
 * Contract: synchronous, never throws; listeners stay attached for the page's lifetime.
 *
 * ```ts
 * type Show = Parameters<DiagramViewport["show"]>;
 * declare const panel: Parameters<typeof createDiagramViewport>[0]; // document.getElementById("diagram")!
 * declare const diagram: { element: Show[0]; drawn: Promise<Show[1]> }; // an ELK drawing
 * const viewport = createDiagramViewport(panel, 11 / 12);
 * viewport.show(diagram.element, await diagram.drawn);
 * ```
 */
export function createDiagramViewport(panel: HTMLElement, readableScale: number): DiagramViewport {
  let shown: { svg: SVGSVGElement; content: Box } | undefined;
  let camera: Camera = { scale: 1, x: 0, y: 0 };
  let moved = false;
  // Fractional, as the `<svg>` is drawn (clientWidth rounds, which would shrink the scale a little).
  const size = () => {
    const { width, height } = panel.getBoundingClientRect();
    return { width, height };
  };
  const apply = (next: Camera) => {
    camera = next;
    if (!shown) return;
    shown.svg.setAttribute("viewBox", viewBoxOf(camera, size()));
    shown.svg.dataset.scale = String(camera.scale);
  };
  const defaultCamera = () =>
    shown ? fitCamera(shown.content, size(), { min: readableScale, max: MAX_DEFAULT_SCALE }) : camera;

  new ResizeObserver(() => apply(moved ? camera : defaultCamera())).observe(panel);

  panel.addEventListener(
    "wheel",
    (event) => {
      if (!shown) return;
      event.preventDefault();
      moved = true;
      const bounds = panel.getBoundingClientRect();
      const anchor = { x: event.clientX - bounds.left, y: event.clientY - bounds.top };
      apply(zoomCamera(camera, Math.exp(-event.deltaY * WHEEL_ZOOM), anchor, ZOOM_LIMITS));
    },
    { passive: false },
  );

  let drag: { pointerId: number; x: number; y: number } | undefined;
  panel.addEventListener("pointerdown", (event) => {
    if (!shown || event.button !== 0) return;
    drag = { pointerId: event.pointerId, x: event.clientX, y: event.clientY };
    panel.setPointerCapture(event.pointerId);
    panel.dataset.dragging = "true";
  });
  panel.addEventListener("pointermove", (event) => {
    if (drag?.pointerId !== event.pointerId) return;
    moved = true;
    apply(panCamera(camera, event.clientX - drag.x, event.clientY - drag.y));
    drag = { ...drag, x: event.clientX, y: event.clientY };
  });
  const endDrag = (event: PointerEvent) => {
    if (drag?.pointerId !== event.pointerId) return;
    drag = undefined;
    delete panel.dataset.dragging;
  };
  panel.addEventListener("pointerup", endDrag);
  panel.addEventListener("pointercancel", endDrag);

  return {
    show(svg, content) {
      shown = { svg, content };
      moved = false;
      apply(defaultCamera());
    },
    fit() {
      moved = false;
      apply(defaultCamera());
    },
    showAll() {
      if (!shown) return;
      moved = true;
      apply(fitCamera(shown.content, size(), { min: ZOOM_LIMITS.min, max: MAX_DEFAULT_SCALE }));
    },
    zoom(factor) {
      if (!shown) return;
      moved = true;
      const { width, height } = size();
      apply(zoomCamera(camera, factor, { x: width / 2, y: height / 2 }, ZOOM_LIMITS));
    },
  };
}

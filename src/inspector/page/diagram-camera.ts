import type { Box } from "./diagram-layout.js";

/**
 * The part of a diagram the panel shows, as data (pure, no DOM): `scale` screen pixels per diagram
 * unit and the diagram point at the panel's top-left corner. The page turns it into the `<svg>`'s
 * `viewBox` ({@link viewBoxOf}); zoom and pan make new cameras.
 */
export interface Camera {
  scale: number;
  x: number;
  y: number;
}

/** A panel's size in screen pixels. */
export interface PanelSize {
  width: number;
  height: number;
}

/** Bounds of a scale: `min` and `max` screen pixels per diagram unit. */
export interface ScaleLimits {
  min: number;
  max: number;
}

/**
 * The camera that shows `content` as large as fits in `panel` in both directions, within `limits`
 * (the page passes the smallest scale at which its smallest text is still readable). An axis that
 * fits is centred; one that does not starts at the content's left or top edge, where a machine's
 * initial state is, and the rest is reached by panning.
 *
 * Contract: pure, never throws; an empty panel or content gives `limits.min`.
 *
 * ```ts
 * fitCamera({ x: 0, y: 0, width: 2000, height: 300 }, { width: 1000, height: 600 }, { min: 0.9, max: 1.5 });
 * // { scale: 0.9, x: 0, y: -183.3 }: too wide to fit readable, so it starts at the left
 * ```
 */
export function fitCamera(content: Box, panel: PanelSize, limits: ScaleLimits): Camera {
  const fit = Math.min(panel.width / content.width, panel.height / content.height);
  const scale = clamp(Number.isFinite(fit) && fit > 0 ? fit : limits.min, limits);
  return {
    scale,
    x: axisStart(content.x, content.width, panel.width / scale),
    y: axisStart(content.y, content.height, panel.height / scale),
  };
}

/**
 * Zooms by `factor` (above 1 enlarges) around `anchor`, a point of the panel in screen pixels that
 * stays over the same diagram point; the scale stays within `limits`.
 *
 * Contract: pure, never throws.
 */
export function zoomCamera(
  camera: Camera,
  factor: number,
  anchor: { x: number; y: number },
  limits: ScaleLimits,
): Camera {
  const scale = clamp(camera.scale * factor, limits);
  return {
    scale,
    x: camera.x + anchor.x / camera.scale - anchor.x / scale,
    y: camera.y + anchor.y / camera.scale - anchor.y / scale,
  };
}

/**
 * Moves the view with a drag of `dx`, `dy` screen pixels (the diagram follows the pointer).
 *
 * Contract: pure, never throws.
 */
export function panCamera(camera: Camera, dx: number, dy: number): Camera {
  return { scale: camera.scale, x: camera.x - dx / camera.scale, y: camera.y - dy / camera.scale };
}

/**
 * The `viewBox` attribute that shows what `camera` sees in `panel`.
 *
 * Contract: pure, never throws.
 */
export function viewBoxOf(camera: Camera, panel: PanelSize): string {
  return `${camera.x} ${camera.y} ${panel.width / camera.scale} ${panel.height / camera.scale}`;
}

function axisStart(start: number, size: number, visible: number): number {
  return visible >= size ? start - (visible - size) / 2 : start;
}

function clamp(scale: number, limits: ScaleLimits): number {
  return Math.min(limits.max, Math.max(limits.min, scale));
}

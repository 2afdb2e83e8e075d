import { describe, expect, it } from "vitest";
import { fitCamera, panCamera, viewBoxOf, zoomCamera } from "../../src/inspector/page/diagram-camera.js";

const limits = { min: 11 / 12, max: 1.5 };
const panel = { width: 1000, height: 500 };

describe("the diagram's camera", () => {
  it("fits content in both directions, centring it on the axis with room to spare", () => {
    const camera = fitCamera({ x: -12, y: -12, width: 1000, height: 400 }, panel, limits);
    expect(camera.scale).toBe(1);
    expect(camera).toEqual({ scale: 1, x: -12, y: -62 });
    const tall = fitCamera({ x: 0, y: 0, width: 500, height: 400 }, panel, limits);
    expect(tall.scale).toBe(1.25);
    expect(tall.x).toBeCloseTo(-150);
  });

  it("never goes below the readable scale nor above the largest: too wide starts at the left edge", () => {
    const wide = fitCamera({ x: -12, y: -12, width: 3000, height: 300 }, panel, limits);
    expect(wide.scale).toBe(11 / 12);
    expect(wide.x).toBe(-12);
    expect(fitCamera({ x: 0, y: 0, width: 10, height: 10 }, panel, limits).scale).toBe(1.5);
    expect(fitCamera({ x: 0, y: 0, width: 0, height: 0 }, panel, limits).scale).toBe(limits.min);
  });

  it("zooms around an anchor that stays over the same diagram point, and pans with the pointer", () => {
    const camera = { scale: 1, x: 100, y: 50 };
    const zoomed = zoomCamera(camera, 2, { x: 200, y: 100 }, { min: 0.1, max: 4 });
    expect(zoomed.scale).toBe(2);
    // The diagram point under the anchor: 100 + 200 / 1 = 300 before, 200 + 200 / 2 = 300 after.
    expect(zoomed.x + 200 / zoomed.scale).toBe(300);
    expect(zoomed.y + 100 / zoomed.scale).toBe(150);
    expect(zoomCamera(camera, 100, { x: 0, y: 0 }, { min: 0.1, max: 4 }).scale).toBe(4);
    expect(panCamera(zoomed, 40, -20)).toEqual({ scale: 2, x: 180, y: 110 });
    expect(viewBoxOf(zoomed, panel)).toBe("200 100 500 250");
  });
});

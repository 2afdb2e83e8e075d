import elkjs from "elkjs/lib/elk.bundled.js";
import type { LayoutEngine, TextMeasure } from "../../src/inspector/page/diagram-layout.js";

/** A fresh ELK engine in Node (elkjs is CommonJS: its class is also its own `default`). */
export function elkEngine(): LayoutEngine {
  return new elkjs.default();
}

/** A fixed-pitch stand-in for the page's canvas text measure: 8 px per character for state names, 6.5 for edges. */
export const fixedPitchMeasure: TextMeasure = (text, kind) => ({
  width: text.length * (kind === "state" ? 8 : 6.5),
  height: kind === "state" ? 18 : 15,
});

// agentchart as users run it: the compiled `dist/` (npm run build), like pi's published JS. Running the
// TypeScript sources through tsx instead costs ~10-15% more (its keepNames wrappers on every closure).
// Set AGENTCHART_BENCH_SOURCES=1 to measure the sources.
import { existsSync } from "node:fs";

type Library = typeof import("../src/index.js") &
  typeof import("../src/machines.js") &
  typeof import("../src/testing.js");
const distEntry = new URL("../dist/index.js", import.meta.url);
const useDist = existsSync(distEntry) && process.env.AGENTCHART_BENCH_SOURCES !== "1";

/** The core, machines and testing entry points of the build the benches measure. */
export const [core, machines, testing] = (await Promise.all(
  useDist
    ? ["index.js", "machines.js", "testing.js"].map(
        (file) => import(new URL(`../dist/${file}`, import.meta.url).href),
      )
    : [import("../src/index.js"), import("../src/machines.js"), import("../src/testing.js")],
)) as [Library, Library, Library];

/** Which build of agentchart the benches use. */
export const AGENTCHART_BUILD = useDist ? "dist (compiled)" : "src via tsx";

import { AgentTestError } from "./agent-test-error.js";
import type { AgentPathExploration, AgentTestCoverage, AgentTestModel } from "./agent-test-model.js";

/**
 * The part of a test runner's `test` (vitest's `test` or `it`, `node:test`'s `test`) the helper
 * uses: a name and an async body that throws to fail.
 */
export type PathTestFunction = (name: string, body: () => Promise<void>) => unknown;

/**
 * Registers one test per generated path, named by its steps
 * (`PROMPT → reply 1 (call_1) → approve call_1 → ABORT while executing tools`), each running the path
 * against the real agent; and, when the exploration hit its bounds, one more test that fails with
 * `AgentTestError` (`path_bound_exceeded`) saying what was left out and the coverage the paths reached.
 * The kit never imports vitest: pass the runner's `test` (or `it`).
 *
 * Contract: synchronous (registers tests); explores the model's paths once.
 *
 * @example
 * ```ts
 * import { describe, test } from "vitest";
 * import { createAgentTestModel } from "agentchart/testing";
 * const model = createAgentTestModel({ agent: {}, script: [{ text: "Hello." }] });
 * describe("my agent", () => testAgentPaths(model, test));
 * ```
 */
export function testAgentPaths(model: AgentTestModel, test: PathTestFunction): void {
  const { paths, exceeded } = model.explore();
  for (const path of paths) test(path.name, () => model.runPath(path));
  if (exceeded)
    test("the exploration stays within its bounds", async () => {
      throw boundExceeded(exceeded, model.coverage());
    });
}

/** The error of an exploration that hit its bounds, with the coverage its paths reached. */
function boundExceeded(exceeded: NonNullable<AgentPathExploration["exceeded"]>, coverage: AgentTestCoverage) {
  const left = [
    exceeded.more ? `more than maxPaths (${exceeded.maxPaths}) paths` : "",
    exceeded.tooLong > 0 ? `${exceeded.tooLong} path(s) longer than maxSteps (${exceeded.maxSteps})` : "",
  ].filter(Boolean);
  return new AgentTestError(
    "path_bound_exceeded",
    `the exploration found ${left.join(" and ")}; ${exceeded.found} paths ran. Coverage reached: ${formatAgentTestCoverage(coverage)}`,
  );
}

/**
 * Coverage as one line per machine: states and transitions reached out of all, then those missed.
 *
 * Contract: pure; never throws.
 *
 * @example
 * ```ts
 * import { createAgentTestModel } from "agentchart/testing";
 * const model = createAgentTestModel({ agent: {}, script: [{ text: "Hello." }] });
 * for (const path of model.explore().paths) await model.runPath(path);
 * console.log(formatAgentTestCoverage(model.coverage()));
 * ```
 */
export function formatAgentTestCoverage(coverage: AgentTestCoverage): string {
  return Object.entries(coverage)
    .map(
      ([name, { states, transitions }]) =>
        `${name} machine: states ${states.reached.length}/${states.total}, transitions ${transitions.taken.length}/${transitions.total}` +
        (states.missed.length ? `; states not reached: ${states.missed.join(", ")}` : ""),
    )
    .join("\n");
}

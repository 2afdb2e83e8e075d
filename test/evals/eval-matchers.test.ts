import { describe, expect, it } from "vitest";
import { z } from "zod";
import { containsText, type EvalAssertions, evalMatchers, exactText, runEvalCase } from "../../src/evals.js";
import { scriptedModel } from "../../src/testing.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { testModel } from "../support/loop-harness.js";

declare module "vitest" {
  interface Assertion<T> extends EvalAssertions<T> {}
}

expect.extend(evalMatchers);

const noop = (name: string) =>
  defineTool({
    name,
    description: name,
    parameters: z.object({}),
    execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
  });

async function run() {
  return runEvalCase(
    () => ({
      model: testModel,
      streamFn: scriptedModel([
        {
          toolCalls: [
            { name: "ls", arguments: {} },
            { name: "read", arguments: {} },
          ],
        },
        { text: "Read it." },
      ]),
      tools: [noop("ls"), noop("read")],
    }),
    { id: "m", input: "go" },
  );
}

describe("vitest matchers", () => {
  it("toMatchTrajectory passes and fails by mode, with .not", async () => {
    const result = await run();
    expect(result).toMatchTrajectory([{ name: "ls" }, { name: "read" }]);
    expect(result).toMatchTrajectory([{ name: "read" }], { mode: "superset" });
    expect(result).not.toMatchTrajectory([{ name: "read" }, { name: "ls" }]);
    expect(() => expect(result).toMatchTrajectory([{ name: "write" }], { mode: "superset" })).toThrow(
      "expected the tool calls to match the trajectory (superset): expected calls not made: [write] (the run called [ls, read])",
    );
  });

  it("toPassScorer runs a scorer, with the case for its expectations", async () => {
    const result = await run();
    await expect(result).toPassScorer(containsText("Read"));
    await expect(result).not.toPassScorer(containsText("Write"));
    await expect(result).toPassScorer(exactText(), { id: "m", input: "go", expectedOutput: "Read it." });
    await expect(expect(result).toPassScorer(exactText("Nope"))).rejects.toThrow(
      'expected the run to pass exactText: score 0, the text "Read it." is not "Nope"',
    );
  });

  it("rejects anything but a run", () => {
    expect(() => expect({ text: 1 }).toMatchTrajectory([])).toThrow("toMatchTrajectory expects an EvalRun");
  });
});

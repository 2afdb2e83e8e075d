import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runEval, trajectoryMatch } from "../../src/evals.js";
import { scriptedModel } from "../../src/testing.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { testModel } from "../support/loop-harness.js";
import { installAsyncContext, memoryTracing, spanTree, treeLines } from "../support/otel-support.js";

installAsyncContext();

const ping = defineTool({
  name: "ping",
  description: "Pings",
  parameters: z.object({}),
  execute: async () => ({ content: [{ type: "text", text: "pong" }] }),
});

describe("OpenTelemetry spans per case", () => {
  it("wraps each case's runs in an eval_case span with its score, the agent's spans inside", async () => {
    const tracing = memoryTracing();
    await runEval({
      cases: [
        { id: "good", input: "x", expectedTrajectory: [{ name: "ping" }] },
        { id: "bad", input: "x", expectedTrajectory: [{ name: "other" }] },
      ],
      agent: () => ({
        model: testModel,
        streamFn: scriptedModel([{ toolCalls: [{ name: "ping", arguments: {} }] }, { text: "done" }]),
        tools: [ping],
      }),
      scorers: [trajectoryMatch()],
      concurrency: 1,
      trace: { tracer: tracing.tracer },
    });
    expect(treeLines(spanTree(tracing.spans()))).toEqual([
      "eval_case good",
      "  invoke_agent agentchart",
      "    chat scripted-1",
      "    execute_tool ping",
      "    chat scripted-1",
      "eval_case bad",
      "  invoke_agent agentchart",
      "    chat scripted-1",
      "    execute_tool ping",
      "    chat scripted-1",
    ]);
    const cases = tracing.spans().filter((span) => span.name.startsWith("eval_case"));
    expect(
      cases.map((span) => [
        span.attributes["agentchart.eval.case_id"],
        span.attributes["agentchart.eval.score"],
        span.attributes["agentchart.eval.passed"],
        span.status.code,
      ]),
    ).toEqual([
      ["good", 1, true, 0],
      ["bad", 0, false, 2],
    ]);
    expect(tracing.openSpans()).toEqual([]);
  });
});

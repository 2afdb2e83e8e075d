/**
 * A run with a budget, traced: its run span carries the usage against the budget at its end, and a
 * limit reached (`budget_exceeded`) or a loop breaker (`loop_detected`) is an event of that span.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { instrument } from "../../src/otel/instrument.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { echoTool, testModel } from "../support/loop-harness.js";
import { installAsyncContext, memoryTracing } from "../support/otel-support.js";

installAsyncContext();

const runSpan = (spans: readonly ReadableSpan[]) =>
  spans.find((span) => span.name.startsWith("invoke_agent"))!;

describe("budgets in OpenTelemetry", () => {
  it("puts the run's usage on its span and each limit reached as a span event", async () => {
    const tracing = memoryTracing();
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        {
          toolCalls: [{ id: "e1", name: "echo", arguments: { text: "a" } }],
          usage: { input: 10, output: 5 },
        },
        { text: "done", usage: { input: 20, output: 3 } },
      ]),
      tools: [echoTool()],
      budget: { maxModelCalls: 1, maxToolCalls: 10 },
    });
    const handle = instrument(agent, { tracer: tracing.tracer });
    agent.subscribe((event) => {
      if (event.type === "budget_exceeded") agent.raiseBudget({ maxModelCalls: 2 });
    });
    await agent.prompt("go");
    handle.dispose();

    const span = runSpan(tracing.spans());
    expect(span.attributes).toMatchObject({
      "agentchart.budget.usage.tokens": 38,
      "agentchart.budget.usage.model_calls": 2,
      "agentchart.budget.usage.tool_calls": 1,
      "agentchart.budget.usage.turns": 2,
    });
    expect(typeof span.attributes["agentchart.budget.usage.wall_ms"]).toBe("number");
    const exceeded = span.events.filter((event) => event.name === "agentchart.budget_exceeded");
    expect(exceeded.map((event) => event.attributes)).toEqual([
      {
        "agentchart.budget.name": "maxModelCalls",
        "agentchart.budget.limit": 1,
        "agentchart.budget.used": 1,
        "agentchart.budget.action": "pause",
      },
    ]);
  });

  it("names the sub-agent whose call the run's ledger held", async () => {
    const tracing = memoryTracing();
    const helper = defineAgentTool({
      name: "helper",
      description: "Helps",
      agent: { streamFn: scriptedModel([{ text: "child done" }]) },
    });
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "h1", name: "helper", arguments: { task: "x" } }] },
        { text: "done" },
      ]),
      tools: [helper],
      budget: { maxModelCalls: 1 },
    });
    const handle = instrument(agent, { tracer: tracing.tracer });
    agent.subscribe((event) => {
      if (event.type === "budget_exceeded" && !event.agentPath) agent.raiseBudget({ maxModelCalls: 3 });
    });
    await agent.prompt("go");
    handle.dispose();
    const exceeded = runSpan(tracing.spans()).events.filter((e) => e.name === "agentchart.budget_exceeded");
    expect(exceeded.map((event) => event.attributes)).toEqual([
      {
        "agentchart.budget.name": "maxModelCalls",
        "agentchart.budget.limit": 1,
        "agentchart.budget.used": 1,
        "agentchart.budget.action": "pause",
        "agentchart.budget.sub_agent_path": "h1",
      },
    ]);
  });

  it("records a loop breaker as agentchart.loop_detected", async () => {
    const tracing = memoryTracing();
    const same = { text: "again", toolCalls: [{ id: "x", name: "echo", arguments: { text: "a" } }] };
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        same,
        { ...same, toolCalls: [{ id: "y", name: "echo", arguments: { text: "a" } }] },
        { text: "ok" },
      ]),
      tools: [echoTool()],
      budget: { onExceeded: "warn" },
    });
    const handle = instrument(agent, { tracer: tracing.tracer });
    await agent.prompt("go");
    handle.dispose();
    const events = runSpan(tracing.spans()).events.filter(
      (event) => event.name === "agentchart.loop_detected",
    );
    expect(events.map((event) => event.attributes?.["agentchart.budget.name"])).toEqual([
      "maxRepeatedReplies",
    ]);
  });

  it("sets no budget attribute on a run without a budget", async () => {
    const tracing = memoryTracing();
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "hi" }]) });
    const handle = instrument(agent, { tracer: tracing.tracer });
    await agent.prompt("go");
    handle.dispose();
    const keys = Object.keys(runSpan(tracing.spans()).attributes);
    expect(keys.filter((key) => key.startsWith("agentchart.budget"))).toEqual([]);
  });
});

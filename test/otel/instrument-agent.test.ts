import { SpanStatusCode, trace } from "@opentelemetry/api";
import { AlwaysOffSampler, BasicTracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { instrument } from "../../src/otel/instrument.js";
import { InstrumentationError } from "../../src/otel/instrumentation-error.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { deferred, echoTool, testModel } from "../support/loop-harness.js";
import {
  installAsyncContext,
  memoryTracing,
  spanTree,
  stateEvents,
  treeLines,
} from "../support/otel-support.js";

installAsyncContext();

const attributesOf = (span: ReadableSpan) => span.attributes;
const eventNames = (span: ReadableSpan) => span.events.map((event) => event.name);
const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name);

/** A tool that opens its own span with the active-context API, as user code would. */
function workTool(tracerName: string) {
  return defineTool({
    name: "work",
    description: "Does traced work",
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      await trace.getTracer(tracerName).startActiveSpan("user work", async (span) => {
        await Promise.resolve();
        span.end();
      });
      return { content: [{ type: "text", text: `worked: ${text}` }] };
    },
  });
}

describe("instrument(agent)", () => {
  it("traces a run of 2 turns and 3 tool calls (one failing, one approved) as a GenAI span tree", async () => {
    const tracing = memoryTracing();
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "work", arguments: { text: "a" }, id: "call-work" },
          { name: "echo", arguments: { wrong: 1 }, id: "call-bad" },
          { name: "danger", arguments: { text: "b" }, id: "call-danger" },
        ],
        usage: { input: 100, output: 20, cacheRead: 40, cacheWrite: 5 },
      },
      { text: "All done, friend.", usage: { input: 150, output: 8 } },
    ]);
    const agent = new Agent({
      model: testModel,
      streamFn,
      tools: [workTool("user-tracer"), echoTool(), { ...echoTool("danger"), requiresApproval: true }],
    });
    // The tool's own span comes from the global API: register the same provider globally.
    trace.setGlobalTracerProvider(tracing.provider);
    const tracingHandle = instrument(agent, { tracer: tracing.tracer, agentName: "helper", agentId: "a-1" });
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request") agent.approveToolCall(event.toolCallId);
    });

    await agent.prompt("go");
    tracingHandle.dispose();
    trace.disable();

    const spans = tracing.spans();
    expect(treeLines(spanTree(spans))).toEqual([
      "invoke_agent helper",
      "  chat scripted-1",
      "  execute_tool work",
      "    user work",
      "  execute_tool echo",
      "  execute_tool danger",
      "  chat scripted-1",
    ]);
    const [run] = named(spans, "invoke_agent helper");
    expect(attributesOf(run!)).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "helper",
      "gen_ai.agent.id": "a-1",
      "agentchart.turns": 2,
    });
    expect(run!.status.code).toBe(SpanStatusCode.UNSET);
    // The agent is back in `idle` when it emits agent_end, which ends the run span.
    expect(stateEvents(run!)).toEqual([
      "running.preparingTurn.deciding",
      "running.preparingTurn.injecting",
      "running.streaming.released",
      "running.executingTools.working",
      "running.executingTools.awaitingHuman",
      "running.executingTools.working",
      "running.preparingTurn.deciding",
      "running.preparingTurn.injecting",
      "running.streaming.released",
      "running.preparingTurn.deciding",
      "idle",
    ]);
    expect(run!.events.find((event) => event.name === "agentchart.state")?.attributes).toMatchObject({
      "agentchart.machine": "agent",
    });

    const [firstChat, secondChat] = named(spans, "chat scripted-1");
    expect(attributesOf(firstChat!)).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "scripted-1",
      "gen_ai.response.model": "scripted-1",
      "gen_ai.response.finish_reasons": ["tool_call"],
      "gen_ai.usage.input_tokens": 100,
      "gen_ai.usage.output_tokens": 20,
      "gen_ai.usage.cache_read.input_tokens": 40,
      "gen_ai.usage.cache_creation.input_tokens": 5,
    });
    expect(typeof attributesOf(firstChat!)["agentchart.usage.cost_usd"]).toBe("number");
    expect(attributesOf(secondChat!)["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    const firstToken = secondChat!.events.filter((event) => event.name === "agentchart.first_token");
    expect(firstToken).toHaveLength(1);
    expect(firstToken[0]!.attributes?.["agentchart.time_to_first_token_ms"]).toBeGreaterThanOrEqual(0);
    // Without captureContent, no content anywhere.
    for (const span of spans) {
      expect(eventNames(span).filter((name) => name.startsWith("gen_ai."))).toEqual([]);
      expect(Object.keys(span.attributes)).not.toContain("gen_ai.tool.call.arguments");
    }

    const [work] = named(spans, "execute_tool work");
    expect(attributesOf(work!)).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "work",
      "gen_ai.tool.call.id": "call-work",
    });
    expect(work!.status.code).toBe(SpanStatusCode.UNSET);
    // Validation is an invoked actor: the call's span is open by the time it is `ready`; with no
    // afterToolCall the call settles straight from `executing`.
    expect(stateEvents(work!)).toEqual(["preparing.ready", "executing", "settled"]);
    expect(work!.events.find((event) => event.name === "agentchart.state")?.attributes).toMatchObject({
      "agentchart.machine": "toolCall",
    });

    const [bad] = named(spans, "execute_tool echo");
    expect(bad!.status.code).toBe(SpanStatusCode.ERROR);
    expect(attributesOf(bad!)["error.type"]).toBe("tool_error");
    expect(bad!.status.message).toMatch(/text/);

    const [danger] = named(spans, "execute_tool danger");
    expect(danger!.status.code).toBe(SpanStatusCode.UNSET);
    expect(eventNames(danger!)).toEqual(
      expect.arrayContaining(["agentchart.tool.approval_requested", "agentchart.tool.approval_granted"]),
    );
    // States after the call's tool_execution_start (its span opens there; validation came first).
    expect(stateEvents(danger!)).toEqual(["preparing.ready", "awaitingApproval", "executing", "settled"]);
    const granted = danger!.events.find((event) => event.name === "agentchart.tool.approval_granted");
    expect(granted!.attributes?.["agentchart.tool.approval_wait_ms"]).toBeGreaterThanOrEqual(0);
  });

  it("records content only with captureContent, as GenAI events", async () => {
    const tracing = memoryTracing();
    const agent = new Agent({
      model: testModel,
      systemPrompt: "Be brief.",
      streamFn: scriptedModel([
        { toolCalls: [{ name: "echo", arguments: { text: "secret" }, id: "c1" }] },
        { text: "bye" },
      ]),
      tools: [echoTool()],
    });
    const handle = instrument(agent, { tracer: tracing.tracer, captureContent: true });
    await agent.prompt("hello there");
    handle.dispose();

    const spans = tracing.spans();
    const [run] = named(spans, "invoke_agent agentchart");
    const runEvents = run!.events.filter((event) => event.name.startsWith("gen_ai."));
    expect(runEvents.map((event) => [event.name, event.attributes?.content])).toEqual([
      ["gen_ai.system.message", "Be brief."],
      ["gen_ai.user.message", JSON.stringify("hello there")],
      ["gen_ai.tool.message", JSON.stringify([{ type: "text", text: "echo: secret" }])],
    ]);
    const [, lastChat] = named(spans, "chat scripted-1");
    const choice = lastChat!.events.find((event) => event.name === "gen_ai.choice");
    expect(JSON.parse(String(choice!.attributes?.message))).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "bye" }],
    });
    const [tool] = named(spans, "execute_tool echo");
    expect(tool!.attributes["gen_ai.tool.call.arguments"]).toBe(JSON.stringify({ text: "secret" }));
    expect(tool!.attributes["gen_ai.tool.call.result"]).toBe(
      JSON.stringify([{ type: "text", text: "echo: secret" }]),
    );
  });

  it("ends every span by agent_end when the run is aborted mid-tool", async () => {
    const tracing = memoryTracing();
    const started = deferred();
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ toolCalls: [{ name: "echo", arguments: { text: "x" }, id: "slow" }] }]),
      tools: [
        echoTool("echo", async () => {
          started.resolve();
          await new Promise(() => {});
        }),
      ],
    });
    const handle = instrument(agent, { tracer: tracing.tracer });
    let openAtEnd: string[] | undefined;
    agent.subscribe((event) => {
      if (event.type === "agent_end") openAtEnd = tracing.openSpans();
    });
    const run = agent.prompt("go");
    await started.promise;
    expect(tracing.openSpans().sort()).toEqual(["execute_tool echo", "invoke_agent agentchart"]);
    agent.abort();
    await run;
    handle.dispose();

    expect(openAtEnd).toEqual([]);
    const spans = tracing.spans();
    const [tool] = named(spans, "execute_tool echo");
    expect(tool!.status.code).toBe(SpanStatusCode.ERROR);
    const [runSpan] = named(spans, "invoke_agent agentchart");
    expect(runSpan!.attributes["error.type"]).toBe("aborted");
    expect(runSpan!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("ends the spans still open when disposed mid-run", async () => {
    const tracing = memoryTracing();
    const started = deferred();
    const release = deferred();
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "ok" }]),
      tools: [
        echoTool("echo", async () => {
          started.resolve();
          await release.promise;
        }),
      ],
    });
    const handle = instrument(agent, { tracer: tracing.tracer });
    const run = agent.prompt("go");
    await started.promise;
    handle.dispose();
    expect(tracing.openSpans()).toEqual([]);
    release.resolve();
    await run;
    expect(tracing.spans().map((span) => span.name)).toEqual([
      "invoke_agent agentchart",
      "chat scripted-1",
      "execute_tool echo",
    ]);
  });

  it("records a throwing tool's exception and class name on its span", async () => {
    const tracing = memoryTracing();
    class DiskFullError extends Error {
      override name = "DiskFullError";
    }
    const boom = defineTool({
      name: "boom",
      description: "Throws",
      parameters: z.object({}),
      execute: async () => {
        throw new DiskFullError("disk is full");
      },
    });
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ name: "boom", arguments: {}, id: "b1" }] },
        { text: "sorry" },
      ]),
      tools: [boom],
    });
    const handle = instrument(agent, { tracer: tracing.tracer });
    await agent.prompt("go");
    handle.dispose();

    const [tool] = named(tracing.spans(), "execute_tool boom");
    expect(tool!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: "disk is full" });
    expect(tool!.attributes["error.type"]).toBe("DiskFullError");
    const exception = tool!.events.find((event) => event.name === "exception");
    expect(exception!.attributes?.["exception.message"]).toBe("disk is full");
  });

  it("marks a failed reply's chat and run spans as errors", async () => {
    const tracing = memoryTracing();
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ error: "500 upstream broke" }]) });
    const handle = instrument(agent, { tracer: tracing.tracer });
    await agent.prompt("go");
    handle.dispose();
    const [chat] = named(tracing.spans(), "chat scripted-1");
    expect(chat!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: "500 upstream broke" });
    expect(chat!.attributes["error.type"]).toBe("provider_error");
    expect(chat!.attributes["gen_ai.response.finish_reasons"]).toEqual(["error"]);
    const [run] = named(tracing.spans(), "invoke_agent agentchart");
    expect(run!.attributes["error.type"]).toBe("provider_error");
  });

  it("records nothing for a run sampled out, and its tools behave as without tracing", async () => {
    const tracing = memoryTracing();
    const sampledOut = new BasicTracerProvider({ sampler: new AlwaysOffSampler() }).getTracer("off");
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ toolCalls: [{ name: "work", arguments: { text: "a" } }] }, { text: "ok" }]),
      tools: [workTool("user-tracer")],
    });
    const handle = instrument(agent, { tracer: sampledOut });
    trace.setGlobalTracerProvider(tracing.provider); // the tool's own span is still recorded
    await agent.prompt("go");
    handle.dispose();
    trace.disable();
    expect(tracing.spans().map((span) => span.name)).toEqual(["user work"]);
    expect(agent.state.messages.map((message) => (message as { role: string }).role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });

  it("gives the agent its own tools back on dispose and refuses to instrument twice", async () => {
    const tracing = memoryTracing();
    const tool = echoTool();
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "hi" }]), tools: [tool] });
    const handle = instrument(agent, { tracer: tracing.tracer });
    expect(agent.state.tools[0]).not.toBe(tool);
    expect(() => instrument(agent)).toThrow(InstrumentationError);
    const other = echoTool("other");
    // The active set given with the tools is kept, inactive tools are wrapped too and come back on dispose.
    agent.setTools([tool, other], ["other"]);
    expect(agent.state.tools.map((candidate) => candidate.name)).toEqual(["other"]);
    expect(agent.tools.every((candidate) => candidate !== tool && candidate !== other)).toBe(true);
    handle.dispose();
    expect(agent.tools).toEqual([tool, other]);
    expect(agent.state.tools).toEqual([other]);
    agent.setTools([tool]);
    expect(agent.state.tools[0]).toBe(tool);
    expect(Object.hasOwn(agent, "setTools")).toBe(false);
    await agent.prompt("after");
    expect(tracing.spans()).toEqual([]);
    expect(() => instrument({} as Agent)).toThrow(expect.objectContaining({ code: "invalid_target" }));
  });
});

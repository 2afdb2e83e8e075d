import { context, propagation, SpanStatusCode, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { lastValueFrom, toArray } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { instrument } from "../../src/otel/instrument.js";
import { extractTraceContext, injectTraceContext } from "../../src/otel/trace-context-carrier.js";
import { tracedAgentLoop } from "../../src/otel/traced-agent-loop.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { deferred, echoTool, emptyContext, testModel, user } from "../support/loop-harness.js";
import {
  installAsyncContext,
  memoryTracing,
  spanTree,
  stateEvents,
  treeLines,
} from "../support/otel-support.js";

installAsyncContext();

describe("tracedAgentLoop", () => {
  it("traces each subscription as a run, under the span active when subscribing", async () => {
    const tracing = memoryTracing();
    const inspected: string[] = [];
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "a" }, id: "t1" }] },
      { text: "done" },
    ]);
    const run = tracedAgentLoop(
      [user("go")],
      emptyContext({ tools: [echoTool()] }),
      { model: testModel, streamFn, inspect: (event) => inspected.push(event.type) },
      { tracer: tracing.tracer, agentName: "fn" },
    );
    const parent = tracing.tracer.startSpan("request");
    const events = await context.with(trace.setSpan(context.active(), parent), () =>
      lastValueFrom(run.pipe(toArray())),
    );
    parent.end();

    expect(events.at(-1)?.type).toBe("agent_end");
    expect(inspected.length).toBeGreaterThan(0);
    const spans = tracing.spans();
    expect(treeLines(spanTree(spans))).toEqual([
      "request",
      "  invoke_agent fn",
      "    chat scripted-1",
      "    execute_tool echo",
      "    chat scripted-1",
    ]);
    expect(stateEvents(spans.find((span) => span.name === "execute_tool echo")!)).toContain("executing");
  });

  it("ends the spans of a run whose subscriber leaves mid-tool", async () => {
    const tracing = memoryTracing();
    const started = deferred();
    const tool = echoTool("echo", async () => {
      started.resolve();
      await new Promise(() => {});
    });
    const run = tracedAgentLoop(
      [user("go")],
      emptyContext({ tools: [tool] }),
      {
        model: testModel,
        streamFn: scriptedModel([{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }]),
      },
      { tracer: tracing.tracer },
    );
    const subscription = run.subscribe();
    await started.promise;
    expect(tracing.openSpans().sort()).toEqual(["execute_tool echo", "invoke_agent agentchart"]);
    subscription.unsubscribe();
    expect(tracing.openSpans()).toEqual([]);
    const aborted = tracing.spans().filter((span) => span.status.code === SpanStatusCode.ERROR);
    expect(aborted.map((span) => span.name)).toContain("execute_tool echo");
  });
});

describe("trace context carriers", () => {
  beforeAll(() => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(() => {
    propagation.disable();
  });

  it("continue a submitted job's trace in the worker that runs it", async () => {
    const tracing = memoryTracing();
    const submit = tracing.tracer.startSpan("submit");
    const stored = JSON.stringify({
      prompt: "hi",
      traceContext: injectTraceContext(trace.setSpan(context.active(), submit)),
    });
    submit.end();

    const job = JSON.parse(stored) as { prompt: string; traceContext: Record<string, string> };
    expect(job.traceContext.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "hello" }]) });
    const handle = instrument(agent, { tracer: tracing.tracer });
    await context.with(extractTraceContext(job.traceContext), () => agent.prompt(job.prompt));
    handle.dispose();

    const spans = tracing.spans();
    const worker = spans.find((span) => span.name === "invoke_agent agentchart")!;
    expect(worker.spanContext().traceId).toBe(submit.spanContext().traceId);
    expect(worker.parentSpanContext?.spanId).toBe(submit.spanContext().spanId);
  });

  it("start a new trace from a missing or malformed carrier", () => {
    expect(trace.getSpan(extractTraceContext(undefined))).toBeUndefined();
    expect(trace.getSpan(extractTraceContext({ traceparent: "garbage" }))).toBeUndefined();
    expect(injectTraceContext()).toEqual({});
  });
});

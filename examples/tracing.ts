/**
 * Tracing with OpenTelemetry: `instrument(agent)` turns a run into GenAI spans — `invoke_agent`, one
 * `chat` per model call, one `execute_tool` per tool call (a span the tool opens nests under it) — with
 * the statecharts' states as `agentchart.state` events. Here the spans go to memory and are printed as a
 * tree; in an app, register an OTLP exporter instead (see docs/observability.md).
 *
 *   npx tsx examples/tracing.ts
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { z } from "zod";
import { Agent, defineTool } from "../src/index.js";
import { instrument } from "../src/otel.js";
import { scriptedModel } from "../src/testing.js";

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up",
  parameters: z.object({ word: z.string() }),
  // The tool's own span: it runs inside execute_tool's context, so it nests there.
  execute: ({ word }) =>
    trace.getTracer("dictionary").startActiveSpan(`query ${word}`, async (span) => {
      span.end();
      return { content: [{ type: "text" as const, text: `${word}: a small example` }] };
    }),
});

const agent = new Agent({
  model: { id: "scripted-1", api: "scripted", provider: "scripted", contextWindow: 8_000, maxTokens: 1_000 },
  streamFn: scriptedModel([
    { toolCalls: [{ name: "lookup", arguments: { word: "span" } }], usage: { input: 40, output: 12 } },
    { text: "A span is a small example.", usage: { input: 60, output: 9 } },
  ]),
  tools: [lookup],
});

const tracing = instrument(agent, { agentName: "dictionary-agent" });
await agent.prompt("What is a span?");
tracing.dispose();

const spans = exporter.getFinishedSpans();
const describe = (span: ReadableSpan) => {
  const a = span.attributes;
  if (span.name.startsWith("chat "))
    return ` tokens ${a["gen_ai.usage.input_tokens"]}/${a["gen_ai.usage.output_tokens"]}`;
  if (span.name.startsWith("invoke_agent ") || span.name.startsWith("execute_tool ")) {
    const states = span.events.filter((event) => event.name === "agentchart.state");
    return ` states ${states.map((event) => event.attributes?.["agentchart.state"]).join(" → ")}`;
  }
  return "";
};
const print = (parentId: string | undefined, depth: number) => {
  // Finished spans arrive in the order they ended: here that is also the order they started.
  const children = spans.filter((span) => span.parentSpanContext?.spanId === parentId);
  for (const span of children) {
    console.log(`${"  ".repeat(depth)}${span.name}${describe(span)}`);
    print(span.spanContext().spanId, depth + 1);
  }
};
print(undefined, 0);

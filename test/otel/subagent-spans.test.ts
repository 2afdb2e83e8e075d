import { SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { instrument } from "../../src/otel/instrument.js";
import { tracedAgentLoop } from "../../src/otel/traced-agent-loop.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import { deferred, echoTool, testModel, user } from "../support/loop-harness.js";
import {
  installAsyncContext,
  memoryTracing,
  spanTree,
  stateEvents,
  treeLines,
} from "../support/otel-support.js";

installAsyncContext();

const childModel = { ...testModel, id: "child-model" };
/** An OTel `HrTime` (`[seconds, nanoseconds]`) as one number to compare (arrays compare as text). */
const nanoseconds = ([seconds, nanos]: readonly [number, number]) =>
  BigInt(seconds) * 1_000_000_000n + BigInt(nanos);
const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const machinesOf = (span: ReadableSpan) =>
  new Set(
    span.events.filter((e) => e.name === "agentchart.state").map((e) => e.attributes?.["agentchart.machine"]),
  );

/** A tool that opens its own span with the active-context API, as user code would. */
const workTool = defineTool({
  name: "work",
  description: "Does traced work",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => {
    await trace.getTracer("user-tracer").startActiveSpan("user work", async (span) => {
      await Promise.resolve();
      span.end();
    });
    return { content: [{ type: "text", text: `worked: ${text}` }] };
  },
});

/** root → `research` (call `c-research`) → `work` (`c-work`) and `danger` (`c-danger`, needs approval). */
function researchTree() {
  const research = defineAgentTool({
    name: "research",
    description: "Researches",
    agent: {
      model: childModel,
      systemPrompt: "You research.",
      streamFn: scriptedModel([
        {
          toolCalls: [
            { id: "c-work", name: "work", arguments: { text: "a" } },
            { id: "c-danger", name: "danger", arguments: { text: "b" } },
          ],
          usage: { input: 10, output: 2 },
        },
        { text: "research: found it", usage: { input: 12, output: 3 } },
      ]),
      tools: [workTool, { ...echoTool("danger"), requiresApproval: true }],
    },
  });
  const rootScript = scriptedModel([
    { toolCalls: [{ id: "c-research", name: "research", arguments: { task: "look it up" } }] },
    { text: "root: done" },
  ]);
  return { research, rootScript };
}

describe("tracing an agent with sub-agents", () => {
  it("nests the child's invoke_agent under the call's execute_tool, its own chat and tool spans under it", async () => {
    const tracing = memoryTracing();
    const { research, rootScript } = researchTree();
    const agent = new Agent({ model: testModel, streamFn: rootScript, tools: [research] });
    trace.setGlobalTracerProvider(tracing.provider);
    const handle = instrument(agent, { tracer: tracing.tracer, agentName: "helper" });
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request")
        agent.approveToolCall(event.toolCallId, { agentPath: event.agentPath ?? [] });
    });

    await agent.prompt("go");
    handle.dispose();
    trace.disable();

    const spans = tracing.spans();
    // The root's last chat is under its run span: the child's agent_end did not end it.
    expect(treeLines(spanTree(spans))).toEqual([
      "invoke_agent helper",
      "  chat scripted-1",
      "  execute_tool research",
      "    invoke_agent research",
      "      chat child-model",
      "      execute_tool work",
      "        user work",
      "      execute_tool danger",
      "      chat child-model",
      "  chat scripted-1",
    ]);
    expect(tracing.openSpans()).toEqual([]);
    const [root, child] = named(spans, "invoke_agent helper").concat(named(spans, "invoke_agent research"));
    expect(child!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "research",
      "agentchart.agent.path": ["c-research"],
      "agentchart.turns": 2,
    });
    expect(root!.attributes["agentchart.turns"]).toBe(2);
    expect(nanoseconds(root!.endTime) >= nanoseconds(child!.endTime)).toBe(true);
    expect(named(spans, "chat child-model")[0]!.attributes["gen_ai.usage.input_tokens"]).toBe(10);
    const [danger] = named(spans, "execute_tool danger");
    expect(danger!.events.map((event) => event.name)).toContain("agentchart.tool.approval_granted");
    // Each agent's machine states are on its own run span, each call's on its own tool span.
    expect(stateEvents(child!)).toContain("running.streaming.released");
    expect(machinesOf(child!)).toEqual(new Set(["agent"]));
    expect(machinesOf(root!)).toEqual(new Set(["agent"]));
    expect(stateEvents(named(spans, "execute_tool research")[0]!)).toEqual(
      expect.arrayContaining(["startingAgent", "delegating", "collecting"]),
    );
    expect(stateEvents(danger!)).toContain("awaitingApproval");
    // The child's states are not also on the root's span: the root streamed twice, the child twice.
    const streamed = (span: ReadableSpan) =>
      stateEvents(span).filter((state) => state.startsWith("running.streaming"));
    expect(streamed(root!)).toHaveLength(2);
    expect(streamed(child!)).toHaveLength(2);
  });

  it("ends every span of the tree on an abort during the child's stream, marked aborted", async () => {
    const tracing = memoryTracing();
    const hanging = defineAgentTool({
      name: "research",
      description: "Researches",
      agent: { streamFn: scriptedModel([{ text: "thinking about it", hang: true }]) },
    });
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ toolCalls: [{ id: "c1", name: "research", arguments: { task: "x" } }] }]),
      tools: [hanging],
    });
    const handle = instrument(agent, { tracer: tracing.tracer });
    const streaming = deferred();
    agent.subscribe((event: AgentEvent) => {
      if (event.type === "message_update" && event.agentPath?.[0] === "c1") streaming.resolve();
    });
    const done = agent.prompt("go");
    await streaming.promise;
    expect(tracing.openSpans()).toEqual([
      "invoke_agent agentchart",
      "execute_tool research",
      "invoke_agent research",
      "chat scripted-1",
    ]);
    agent.abort();
    await done;
    handle.dispose();

    expect(tracing.openSpans()).toEqual([]);
    const spans = tracing.spans();
    expect(treeLines(spanTree(spans))).toEqual([
      "invoke_agent agentchart",
      "  chat scripted-1",
      "  execute_tool research",
      "    invoke_agent research",
      "      chat scripted-1",
    ]);
    // The root's first reply ended normally; everything open when the abort came is marked aborted.
    const [rootRun, rootChat, call, childRun, childChat] = spans;
    expect(rootChat!.status.code).not.toBe(SpanStatusCode.ERROR);
    for (const span of [rootRun!, call!, childRun!, childChat!]) {
      expect(span.status.code, span.name).toBe(SpanStatusCode.ERROR);
      expect(span.attributes["error.type"], span.name).toBe("aborted");
    }
  });

  it("nests three levels in a traced loop (tracedAgentLoop), each sub-agent under its call", async () => {
    const tracing = memoryTracing();
    const leaf = defineAgentTool({
      name: "leaf",
      description: "The deepest",
      agent: {
        streamFn: scriptedModel([
          { toolCalls: [{ id: "e1", name: "echo", arguments: { text: "deep" } }] },
          { text: "leaf done" },
        ]),
        tools: [echoTool()],
      },
    });
    const middle = defineAgentTool({
      name: "middle",
      description: "In between",
      agent: {
        streamFn: scriptedModel([
          { toolCalls: [{ id: "l1", name: "leaf", arguments: { task: "go deeper" } }] },
          { text: "middle done" },
        ]),
        tools: [leaf],
      },
    });
    const events: AgentEvent[] = [];
    await new Promise<void>((resolve, reject) =>
      tracedAgentLoop(
        [user("go")],
        { systemPrompt: "", messages: [], tools: [middle] },
        {
          model: testModel,
          streamFn: scriptedModel([
            { toolCalls: [{ id: "m1", name: "middle", arguments: { task: "delegate" } }] },
            { text: "root done" },
          ]),
        },
        { tracer: tracing.tracer, agentName: "root" },
      ).subscribe({ next: (event) => events.push(event), complete: resolve, error: reject }),
    );

    expect(events.at(-1)).toMatchObject({ type: "agent_end", stopReason: "stop" });
    expect(treeLines(spanTree(tracing.spans()))).toEqual([
      "invoke_agent root",
      "  chat scripted-1",
      "  execute_tool middle",
      "    invoke_agent middle",
      "      chat scripted-1",
      "      execute_tool leaf",
      "        invoke_agent leaf",
      "          chat scripted-1",
      "          execute_tool echo",
      "          chat scripted-1",
      "      chat scripted-1",
      "  chat scripted-1",
    ]);
    const spans = tracing.spans();
    const leafRun = named(spans, "invoke_agent leaf")[0]!;
    expect(leafRun.attributes["agentchart.agent.path"]).toEqual(["m1", "l1"]);
    expect(stateEvents(leafRun)).toContain("running.streaming.released");
    expect(tracing.openSpans()).toEqual([]);
    // Each machine's states are on its own span at every depth: every agent streamed twice on its own
    // run span (none of them on an ancestor's), and the deepest call's states are on its tool span.
    for (const name of ["root", "middle", "leaf"]) {
      const run = named(spans, `invoke_agent ${name}`)[0]!;
      expect(machinesOf(run), name).toEqual(new Set(["agent"]));
      expect(
        stateEvents(run).filter((state) => state.startsWith("running.streaming")),
        name,
      ).toHaveLength(2);
    }
    const deepestCall = named(spans, "execute_tool echo")[0]!;
    expect(machinesOf(deepestCall)).toEqual(new Set(["toolCall"]));
    expect(stateEvents(deepestCall)).toContain("executing");
  });
});

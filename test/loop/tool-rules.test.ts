import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentActor } from "../../src/agent/agent-snapshot.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { ToolResultMessage } from "../../src/types/messages.js";
import {
  echoTool,
  emptyContext,
  runToEnd,
  startLoopActor,
  testModel,
  user,
} from "../support/loop-harness.js";

const toolResults = (events: AgentEvent[]) =>
  events.flatMap((e) =>
    e.type === "message_end" && (e.message as ToolResultMessage).role === "toolResult"
      ? [e.message as ToolResultMessage]
      : [],
  );
const text = (message: ToolResultMessage | undefined) =>
  message?.content.map((c) => (c.type === "text" ? c.text : "")).join("") ?? "";

describe("tool rules", () => {
  it("answers an unknown tool with an error result and asks the model again", async () => {
    const streamFn = scriptedModel([{ toolCalls: [{ name: "nope", arguments: {} }] }, { text: "sorry" }]);
    const events = await runToEnd([user("go")], emptyContext(), { model: testModel, streamFn });
    const [result] = toolResults(events);
    expect(result?.isError).toBe(true);
    expect(text(result)).toBe("Tool nope not found");
    expect(streamFn.calls).toHaveLength(2);
  });

  it("lists every zod issue and the received arguments for invalid arguments", async () => {
    const tool = defineTool({
      name: "move",
      description: "moves",
      parameters: z.object({ x: z.number(), y: z.number(), label: z.string().min(2) }),
      execute: async () => ({ content: [] }),
    });
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "move", arguments: { x: "1", label: "a" } }] },
      { text: "ok" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn,
    });
    const message = text(toolResults(events)[0]);
    expect(message).toContain('Validation failed for tool "move":');
    expect(message).toMatch(/- x: .*number/);
    expect(message).toMatch(/- y: .*number/);
    expect(message).toMatch(/- label: .*2/);
    expect(message).toContain('"x": "1"');
  });

  it("reshapes legacy arguments with prepareArguments before validation", async () => {
    const tool = defineTool({
      name: "greet",
      description: "greets",
      parameters: z.object({ name: z.string() }),
      prepareArguments: (raw) => ({ name: (raw as { who: string }).who }),
      execute: async ({ name }) => ({ content: [{ type: "text", text: `hi ${name}` }] }),
    });
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "greet", arguments: { who: "Ada" } }] },
      { text: "ok" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn,
    });
    expect(text(toolResults(events)[0])).toBe("hi Ada");
  });

  it("blocks a call from beforeToolCall and executes arguments the hook changed", async () => {
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "secret" }, id: "a" },
          { name: "echo", arguments: { text: "plain" }, id: "b" },
        ],
      },
      { text: "ok" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
      beforeToolCall: ({ args, toolCall }) => {
        if (toolCall.id === "a") return { block: true, reason: "not allowed" };
        (args as { text: string }).text = "changed";
        return undefined;
      },
    });
    const [blocked, changed] = toolResults(events);
    expect(blocked?.isError).toBe(true);
    expect(text(blocked)).toBe("not allowed");
    expect(text(changed)).toBe("echo: changed");
  });

  it("turns a throwing tool, a throwing beforeToolCall and a throwing afterToolCall into error results", async () => {
    const boom = defineTool({
      name: "boom",
      description: "throws",
      parameters: z.object({}),
      execute: async () => {
        throw new Error("tool exploded");
      },
    });
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "boom", arguments: {}, id: "t1" },
          { name: "echo", arguments: { text: "x" }, id: "t2" },
          { name: "echo", arguments: { text: "y" }, id: "t3" },
        ],
      },
      { text: "ok" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [boom, echoTool()] }), {
      model: testModel,
      streamFn,
      beforeToolCall: ({ toolCall }) => {
        if (toolCall.id === "t2") throw new Error("before failed");
        return undefined;
      },
      afterToolCall: ({ toolCall }) => {
        if (toolCall.id === "t3") throw new Error("after failed");
        return undefined;
      },
    });
    const results = toolResults(events);
    expect(results.map((r) => [r.toolCallId, r.isError, text(r)])).toEqual([
      ["t1", true, "tool exploded"],
      ["t2", true, "before failed"],
      ["t3", true, "afterToolCall failed: after failed"],
    ]);
    expect(events.at(-1)?.type).toBe("agent_end");
  });

  it("lets afterToolCall replace content, details and isError", async () => {
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "ok" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
      afterToolCall: () => ({
        content: [{ type: "text", text: "patched" }],
        details: { n: 1 },
        isError: true,
      }),
    });
    const [result] = toolResults(events);
    expect([text(result), result?.details, result?.isError]).toEqual(["patched", { n: 1 }, true]);
  });

  it("executes no call of a length-truncated reply and asks the model again", async () => {
    let executed = 0;
    const tool = echoTool("echo", async () => {
      executed++;
    });
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "cut" } }], stopReason: "length" },
      { text: "retry" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn,
    });
    expect(executed).toBe(0);
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end?.type === "tool_execution_end" && end.isError).toBe(true);
    expect(text(toolResults(events)[0])).toContain("output token limit");
    expect(streamFn.calls).toHaveLength(2);
  });

  it("stops after a batch whose every result terminates, but not when only some do", async () => {
    const stopper = defineTool({
      name: "stop",
      description: "terminates",
      parameters: z.object({}),
      execute: async () => ({ content: [{ type: "text", text: "bye" }], terminate: true }),
    });
    const all = scriptedModel([
      {
        toolCalls: [
          { name: "stop", arguments: {} },
          { name: "stop", arguments: {} },
        ],
      },
    ]);
    const allEvents = await runToEnd([user("go")], emptyContext({ tools: [stopper] }), {
      model: testModel,
      streamFn: all,
    });
    expect(all.calls).toHaveLength(1);
    expect(allEvents.filter((e) => e.type === "turn_end")).toHaveLength(1);

    const some = scriptedModel([
      {
        toolCalls: [
          { name: "stop", arguments: {} },
          { name: "echo", arguments: { text: "x" } },
        ],
      },
      { text: "continued" },
    ]);
    await runToEnd([user("go")], emptyContext({ tools: [stopper, echoTool()] }), {
      model: testModel,
      streamFn: some,
    });
    expect(some.calls).toHaveLength(2);
  });

  it("terminates from afterToolCall", async () => {
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "never" },
    ]);
    await runToEnd([user("go")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
      afterToolCall: () => ({ terminate: true }),
    });
    expect(streamFn.calls).toHaveLength(1);
  });

  it("ignores progress updates after a tool settled and forwards those before", async () => {
    let lateUpdate!: (value: unknown) => void;
    const tool = defineTool({
      name: "progress",
      description: "reports",
      parameters: z.object({}),
      execute: async (_args, { update }) => {
        update({ step: 1 });
        lateUpdate = update;
        return { content: [] };
      },
    });
    const streamFn = scriptedModel([{ toolCalls: [{ name: "progress", arguments: {} }] }, { text: "ok" }]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn,
      afterToolCall: () => {
        lateUpdate({ step: 2 });
        return undefined;
      },
    });
    const updates = events.filter((e) => e.type === "tool_execution_update");
    expect(updates.map((e) => e.type === "tool_execution_update" && e.partialResult)).toEqual([{ step: 1 }]);
  });

  it("passes the tool context and a live signal to execute", async () => {
    let seen: unknown;
    const tool = defineTool({
      name: "ctx",
      description: "reads context",
      parameters: z.object({}),
      execute: async (_args, { context, signal, toolCallId }) => {
        seen = { context, aborted: signal.aborted, toolCallId };
        return { content: [] };
      },
    });
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "ctx", arguments: {}, id: "c-9" }] },
      { text: "ok" },
    ]);
    await runToEnd([user("go")], emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn,
      toolContext: { cwd: "/tmp" },
    });
    expect(seen).toEqual({ context: { cwd: "/tmp" }, aborted: false, toolCallId: "c-9" });
  });

  it("gives each tool call a child actor whose id is the tool call id", async () => {
    let childIds: string[] = [];
    let actor!: AgentActor;
    const tool = echoTool("echo", async () => {
      childIds = Object.keys(actor.getSnapshot().children);
    });
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" }, id: "call_42" }] },
      { text: "ok" },
    ]);
    const run = startLoopActor([user("go")], emptyContext({ tools: [tool] }), { model: testModel, streamFn });
    actor = run.actor;
    run.prompt();
    const messages = await run.ended;
    expect(childIds).toEqual(["call_42"]);
    expect(Object.keys(actor.getSnapshot().children)).toEqual([]);
    expect(messages.map((m) => (m as { role: string }).role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });
});

describe("malformed replies", () => {
  it("runs no call of a reply that uses one tool call id twice, answers each, and asks the model again", async () => {
    let executed = 0;
    const tool = echoTool("echo", async () => {
      executed++;
    });
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "a" }, id: "same" },
          { name: "echo", arguments: { text: "b" }, id: "same" },
        ],
      },
      { text: "sorry" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn,
    });
    expect(executed).toBe(0);
    expect(events.filter((e) => e.type === "tool_execution_start")).toHaveLength(2);
    expect(events.filter((e) => e.type === "tool_execution_end")).toHaveLength(2);
    const results = toolResults(events);
    expect(results).toHaveLength(2);
    expect(results.every((r) => r.isError && text(r).includes('"same" more than once'))).toBe(true);
    expect(streamFn.calls).toHaveLength(2);
  });
});

import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { agentLoopContinue } from "../../src/agent/agent-loop.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentMessage } from "../../src/types/messages.js";
import {
  describeEvents,
  echoTool,
  emptyContext,
  runToEnd,
  testModel,
  user,
} from "../support/loop-harness.js";

describe("event order", () => {
  it("emits the pi sequence for a text reply, with one update per delta", async () => {
    const streamFn = scriptedModel([{ text: "Hello there", deltas: 3 }]);
    const events = await runToEnd([user("hi")], emptyContext(), { model: testModel, streamFn });
    expect(describeEvents(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start(user)",
      "message_end(user)",
      "message_start(assistant)",
      "message_end(assistant)",
      "turn_end",
      "agent_end",
    ]);
    const updates = events.filter((e) => e.type === "message_update");
    // text_start, 3 × text_delta, text_end
    expect(updates.map((e) => e.type === "message_update" && e.assistantMessageEvent.type)).toEqual([
      "text_start",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_end",
    ]);
    const end = events.at(-1);
    expect(end?.type === "agent_end" && end.messages.map((m) => (m as { role: string }).role)).toEqual([
      "user",
      "assistant",
    ]);
  });

  it("runs parallel tools: starts in source order, ends in completion order, results in source order", async () => {
    let releaseFirst!: () => void;
    const firstGate = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const slow = echoTool("slow", () => firstGate);
    const fast = echoTool("fast");
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "slow", arguments: { text: "1" }, id: "tool-1" },
          { name: "fast", arguments: { text: "2" }, id: "tool-2" },
        ],
      },
      { text: "done" },
    ]);
    const context = emptyContext({ tools: [slow, fast] });
    const run = runToEnd([user("go")], context, {
      model: testModel,
      streamFn,
      afterToolCall: async ({ toolCall }) => {
        if (toolCall.id === "tool-2") releaseFirst();
        return undefined;
      },
    });
    const events = await run;
    const ends = events
      .filter((e) => e.type === "tool_execution_end")
      .map((e) => e.type === "tool_execution_end" && e.toolCallId);
    expect(ends).toEqual(["tool-2", "tool-1"]);
    const turnEnd = events.find((e) => e.type === "turn_end");
    expect(turnEnd?.type === "turn_end" && turnEnd.toolResults.map((r) => r.toolCallId)).toEqual([
      "tool-1",
      "tool-2",
    ]);
    expect(describeEvents(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start(user)",
      "message_end(user)",
      "message_start(assistant)",
      "message_end(assistant)",
      "tool_execution_start(tool-1)",
      "tool_execution_start(tool-2)",
      "tool_execution_end(tool-2)",
      "tool_execution_end(tool-1)",
      "message_start(toolResult)",
      "message_end(toolResult)",
      "message_start(toolResult)",
      "message_end(toolResult)",
      "turn_end",
      "turn_start",
      "message_start(assistant)",
      "message_end(assistant)",
      "turn_end",
      "agent_end",
    ]);
    // The second model call saw both results.
    expect(streamFn.calls[1]?.context.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
    ]);
  });

  it("runs sequentially when configured: each call ends with its result before the next starts", async () => {
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "1" }, id: "a" },
          { name: "echo", arguments: { text: "2" }, id: "b" },
        ],
      },
      { text: "ok" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
      toolExecution: "sequential",
    });
    expect(describeEvents(events).slice(6, 14)).toEqual([
      "tool_execution_start(a)",
      "tool_execution_end(a)",
      "message_start(toolResult)",
      "message_end(toolResult)",
      "tool_execution_start(b)",
      "tool_execution_end(b)",
      "message_start(toolResult)",
      "message_end(toolResult)",
    ]);
  });

  it("makes the whole batch sequential when one called tool asks for it", async () => {
    let running = 0;
    let maxRunning = 0;
    const tracked = (name: string, mode?: "sequential") => {
      const tool = echoTool(name, async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await Promise.resolve();
        running--;
      });
      return { ...tool, executionMode: mode };
    };
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "a", arguments: { text: "1" } },
          { name: "b", arguments: { text: "2" } },
          { name: "c", arguments: { text: "3" } },
        ],
      },
      { text: "ok" },
    ]);
    await runToEnd(
      [user("go")],
      emptyContext({ tools: [tracked("a"), tracked("b", "sequential"), tracked("c")] }),
      {
        model: testModel,
        streamFn,
      },
    );
    expect(maxRunning).toBe(1);
  });

  it("overlaps executions in parallel mode", async () => {
    let running = 0;
    let maxRunning = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tool = echoTool("echo", async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      if (running === 3) release();
      await gate;
      running--;
    });
    const streamFn = scriptedModel([
      {
        toolCalls: [1, 2, 3].map((n) => ({ name: "echo", arguments: { text: String(n) } })),
      },
      { text: "ok" },
    ]);
    await runToEnd([user("go")], emptyContext({ tools: [tool] }), { model: testModel, streamFn });
    expect(maxRunning).toBe(3);
  });

  it("continues without prompt events and returns only the new messages", async () => {
    const streamFn = scriptedModel([{ text: "continued" }]);
    const context = emptyContext({ messages: [user("earlier")] });
    const events = await lastValueFrom(
      agentLoopContinue(context, { model: testModel, streamFn }).pipe(toArray()),
    );
    expect(describeEvents(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start(assistant)",
      "message_end(assistant)",
      "turn_end",
      "agent_end",
    ]);
    const end = events.at(-1);
    expect(end?.type === "agent_end" && end.messages).toHaveLength(1);
    expect(context.messages).toHaveLength(1);
  });

  it("refuses to continue from nothing or from an assistant message", () => {
    const streamFn = scriptedModel([]);
    expect(() => agentLoopContinue(emptyContext(), { model: testModel, streamFn })).toThrow(
      "Cannot continue: no messages in context",
    );
    const assistant = {
      role: "assistant",
      content: [],
      api: "x",
      provider: "x",
      model: "x",
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "stop",
      timestamp: 0,
    } satisfies AgentMessage;
    expect(() =>
      agentLoopContinue(emptyContext({ messages: [assistant] }), { model: testModel, streamFn }),
    ).toThrow("Cannot continue from message role: assistant");
  });

  it("lets convertToLlm filter custom messages and transformContext prune before it", async () => {
    const streamFn = scriptedModel([{ text: "ok" }]);
    const note = { role: "note", text: "ui only", timestamp: 0 } as unknown as AgentMessage;
    const seenByConvert: number[] = [];
    await runToEnd([user("a"), note, user("b"), user("c")], emptyContext(), {
      model: testModel,
      streamFn,
      transformContext: async (messages) => messages.slice(-3),
      convertToLlm: (messages) => {
        seenByConvert.push(messages.length);
        return messages.filter((m) => (m as { role: string }).role === "user") as never;
      },
    });
    expect(seenByConvert).toEqual([3]);
    expect(streamFn.calls[0]?.context.messages).toHaveLength(2);
  });

  it("passes thinking level, system prompt and tool schemas to the StreamFn", async () => {
    const streamFn = scriptedModel([{ text: "ok" }]);
    await runToEnd([user("a")], emptyContext({ systemPrompt: "sys", tools: [echoTool()] }), {
      model: testModel,
      streamFn,
      thinkingLevel: "high",
      sessionId: "s-1",
    });
    const call = streamFn.calls[0]!;
    expect(call.options.reasoning).toBe("high");
    expect(call.options.sessionId).toBe("s-1");
    expect(call.options.signal).toBeInstanceOf(AbortSignal);
    expect(call.context.systemPrompt).toBe("sys");
    expect(call.context.tools[0]).toMatchObject({
      name: "echo",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    });
  });
});

import { Observable, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentLoopConfig } from "../../src/types/loop.js";
import type { AssistantMessage } from "../../src/types/messages.js";
import type { AssistantMessageEvent, StreamFn } from "../../src/types/stream.js";
import {
  describeEvents,
  echoTool,
  emptyContext,
  runToEnd,
  testModel,
  user,
} from "../support/loop-harness.js";
import { watchProcessFaults } from "../support/process-faults.js";

const processFaults = watchProcessFaults();

const lastAssistant = (events: AgentEvent[]) => {
  const end = events.at(-1);
  if (end?.type !== "agent_end") throw new Error("run did not end with agent_end");
  return end.messages.findLast((m) => (m as AssistantMessage).role === "assistant") as AssistantMessage;
};

const failingConfigs: [string, Partial<AgentLoopConfig>, string][] = [
  [
    "a StreamFn that throws",
    { streamFn: scriptedModel([{ throws: "provider exploded" }]) },
    "provider exploded",
  ],
  [
    "a StreamFn whose promise rejects",
    { streamFn: (async () => Promise.reject(new Error("rejected"))) as StreamFn },
    "rejected",
  ],
  [
    "a stream that errors",
    { streamFn: () => throwError(() => new Error("socket closed")) },
    "Provider stream failed: socket closed",
  ],
  [
    "a stream that completes without a final event",
    { streamFn: () => new Observable<AssistantMessageEvent>((s) => s.complete()) },
    "Provider stream ended without a final event",
  ],
  [
    "a stream of garbage",
    { streamFn: () => new Observable<AssistantMessageEvent>((s) => s.next(null as never)) },
    "without a type",
  ],
  [
    "a provider error event",
    { streamFn: scriptedModel([{ text: "partial", error: "rate limited" }]) },
    "rate limited",
  ],
  [
    "a throwing convertToLlm",
    {
      convertToLlm: () => {
        throw new Error("convert failed");
      },
    },
    "convert failed",
  ],
  [
    "a throwing transformContext",
    {
      transformContext: async () => {
        throw new Error("transform failed");
      },
    },
    "transform failed",
  ],
  [
    "a throwing steering poll",
    {
      getSteeringMessages: () => {
        throw new Error("queue broke");
      },
    },
    "queue broke",
  ],
];

describe("faults", () => {
  it.each(failingConfigs)(
    "ends the run with an assistant error message for %s",
    async (_name, patch, message) => {
      const config = {
        model: testModel,
        streamFn: scriptedModel([{ text: "unused" }]),
        ...patch,
      } as AgentLoopConfig;
      const events = await runToEnd([user("go")], emptyContext(), config);
      const reply = lastAssistant(events);
      expect(reply.stopReason).toBe("error");
      expect(reply.errorMessage).toContain(message);
      expect(events.filter((e) => e.type === "agent_end")).toHaveLength(1);
      expect(describeEvents(events).slice(-4)).toEqual([
        "message_start(assistant)",
        "message_end(assistant)",
        "turn_end",
        "agent_end",
      ]);
    },
  );

  it("ends with an error message when prepareNextTurn throws after a turn", async () => {
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "never" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
      prepareNextTurn: () => {
        throw new Error("prepare failed");
      },
    });
    expect(streamFn.calls).toHaveLength(1);
    expect(lastAssistant(events).errorMessage).toBe("Agent loop callback failed: prepare failed");
    expect(describeEvents(events).slice(-6)).toEqual([
      "turn_end",
      "turn_start",
      "message_start(assistant)",
      "message_end(assistant)",
      "turn_end",
      "agent_end",
    ]);
  });

  it("ignores events a provider sends after its final event", async () => {
    const streamFn = scriptedModel([{ text: "done", eventsAfterDone: 3 }]);
    const events = await runToEnd([user("go")], emptyContext(), { model: testModel, streamFn });
    expect(lastAssistant(events).content).toEqual([{ type: "text", text: "done" }]);
    expect(events.at(-1)?.type).toBe("agent_end");
  });

  it("accepts a StreamFn that returns a promise of an async iterable", async () => {
    const inner = scriptedModel([{ text: "async ok" }]);
    const streamFn: StreamFn = async (model, context, options) => inner(model, context, options);
    const events = await runToEnd([user("go")], emptyContext(), { model: testModel, streamFn });
    expect(lastAssistant(events).content).toEqual([{ type: "text", text: "async ok" }]);
  });

  it("survives a tool that ignores its abort signal: the result is dropped, the run ends", async () => {
    const controller = new AbortController();
    let finishLate!: () => void;
    const stubborn = echoTool("stubborn", () => {
      controller.abort();
      return new Promise<void>((resolve) => {
        finishLate = resolve;
      });
    });
    const streamFn = scriptedModel([{ toolCalls: [{ name: "stubborn", arguments: { text: "x" } }] }]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [stubborn] }), {
      model: testModel,
      streamFn,
      signal: controller.signal,
    });
    finishLate();
    await Promise.resolve();
    const ends = events.filter((e) => e.type === "tool_execution_end");
    expect(ends).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("agent_end");
  });

  it("saw no unhandled rejection or uncaught exception in this file", () => {
    expect(processFaults).toEqual([]);
  });
});

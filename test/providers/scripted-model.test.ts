import { describe, expect, it } from "vitest";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AssistantMessage, ToolCall } from "../../src/types/messages.js";
import type { AssistantMessageEvent, LlmContext } from "../../src/types/stream.js";
import {
  argumentsArePlainData,
  argumentsAtEachDelta,
  collectEvents,
  eventTypes,
} from "../support/collect-events.js";
import { testModel } from "../support/loop-harness.js";

const context: LlmContext = { systemPrompt: "", messages: [], tools: [] };

describe("scripted model: tool-call arguments", () => {
  it("streams the arguments JSON in deltas that show the arguments parsed so far", async () => {
    const args = { path: "notes.txt", lines: [1, 2] };
    const model = scriptedModel([{ toolCalls: [{ name: "read", arguments: args, id: "c1" }], deltas: 4 }]);
    const seen: [number, unknown][] = [];
    const { events, message } = await collectEvents(
      model(testModel, context, {}),
      argumentsAtEachDelta(seen),
    );
    expect(eventTypes(events)).toEqual([
      "start",
      "toolcall_start",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_end",
      "done",
    ]);
    expect(seen).toEqual([
      [0, { path: "" }], // {"path":"
      [0, { path: "notes.txt" }], // notes.txt
      [0, { path: "notes.txt" }], // ","lines"
      [0, { path: "notes.txt", lines: [1, 2] }], // :[1,2]}
    ]);
    expect((message.content[0] as ToolCall).arguments).toBe(args);
    expect(argumentsArePlainData(message)).toBe(true);
  });

  it("ends a call scripted with malformed rawArguments marked as invalid, and the reply as toolUse", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "read", rawArguments: '{"path": notes}', id: "c1" }] },
    ]);
    const { events, message, final } = await collectEvents(model(testModel, context, {}));
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    const end = events.find((event) => event.type === "toolcall_end");
    expect(end?.type === "toolcall_end" && end.toolCall).toMatchObject({
      id: "c1",
      arguments: {},
      invalidArguments: { raw: '{"path": notes}', error: expect.stringMatching(/JSON/) },
    });
    expect(argumentsArePlainData(message)).toBe(true);
  });

  it("leaves the arguments shown so far, as plain data, when the consumer stops reading while the arguments stream", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "read", arguments: { path: "a/b/c.txt" } }], deltas: 2 },
    ]);
    let partial: AssistantMessage | undefined;
    for await (const event of model(testModel, context, {}) as AsyncIterable<AssistantMessageEvent>) {
      if (event.type === "toolcall_delta") {
        partial = event.partial;
        break;
      }
    }
    expect(partial?.content).toEqual([
      { type: "toolCall", id: expect.any(String), name: "read", arguments: { path: "a" } }, // {"path":"a
    ]);
    expect(argumentsArePlainData(partial!)).toBe(true);
  });

  it("leaves the arguments shown so far, as plain data, when aborted while the arguments stream", async () => {
    const controller = new AbortController();
    const model = scriptedModel([
      { toolCalls: [{ name: "read", arguments: { path: "a/b/c.txt" } }], deltas: 2 },
    ]);
    const { events, message, final } = await collectEvents(
      model(testModel, context, { signal: controller.signal }),
      (event) => {
        if (event.type === "toolcall_delta") controller.abort();
      },
    );
    expect(eventTypes(events).slice(-2)).toEqual(["toolcall_delta", "error"]);
    expect(final).toMatchObject({ type: "error", reason: "aborted" });
    expect(message.content).toEqual([
      { type: "toolCall", id: expect.any(String), name: "read", arguments: { path: "a" } }, // {"path":"a
    ]);
    expect(argumentsArePlainData(message)).toBe(true);
  });
});

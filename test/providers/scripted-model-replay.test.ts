import { describe, expect, it } from "vitest";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ToolCall } from "../../src/types/messages.js";
import type { AssistantMessageEvent, LlmContext } from "../../src/types/stream.js";
import { collectEvents, eventTypes } from "../support/collect-events.js";
import { testModel } from "../support/loop-harness.js";

const context: LlmContext = { systemPrompt: "", messages: [], tools: [] };

/** The deltas of each kind, in order. */
const deltas = (events: AssistantMessageEvent[]) =>
  events.flatMap((event) =>
    event.type === "text_delta" || event.type === "thinking_delta" || event.type === "toolcall_delta"
      ? [event.delta]
      : [],
  );

describe("scripted model: the script", () => {
  it("consumes one turn per call, records each request, and answers with an error once the script is used up", async () => {
    const model = scriptedModel([{ text: "one" }, (ctx) => ({ text: `saw ${ctx.systemPrompt}` })]);
    expect(model.remaining()).toBe(2);
    const first = await collectEvents(model(testModel, context, {}));
    expect(first.message.content).toEqual([{ type: "text", text: "one" }]);
    const options = { maxTokens: 10 };
    const second = await collectEvents(model(testModel, { ...context, systemPrompt: "prompt" }, options));
    expect(second.message.content).toEqual([{ type: "text", text: "saw prompt" }]);
    expect(model.remaining()).toBe(0);
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]).toEqual({
      model: testModel,
      context: { ...context, systemPrompt: "prompt" },
      options,
    });
    const third = await collectEvents(model(testModel, context, {}));
    expect(third.final).toMatchObject({ type: "error", reason: "error" });
    expect(third.message.errorMessage).toBe("Scripted model has no reply left for call 3");
  });

  it("throws from the call itself for a turn that says so", () => {
    const model = scriptedModel([{ throws: "broken provider" }]);
    expect(() => model(testModel, context, {})).toThrow("broken provider");
  });

  it("streams content blocks first, then thinking, text and tool calls, in that order", async () => {
    const model = scriptedModel([
      {
        content: ["first", { type: "thinking", thinking: "deep" }, { type: "text", text: "second" }],
        thinking: "why",
        text: "answer",
        toolCalls: [{ name: "ls", arguments: {}, id: "given" }],
      },
    ]);
    const { message, final } = await collectEvents(model(testModel, context, {}));
    expect(message.content).toEqual([
      { type: "text", text: "first" },
      { type: "thinking", thinking: "deep" },
      { type: "text", text: "second" },
      { type: "thinking", thinking: "why" },
      { type: "text", text: "answer" },
      { type: "toolCall", id: "given", name: "ls", arguments: {} },
    ]);
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    expect(message).toMatchObject({
      api: "scripted",
      provider: "scripted",
      model: "scripted-1",
      stopReason: "toolUse",
    });
  });

  it("splits text into one delta per 4 characters by default, or into the given number", async () => {
    const model = scriptedModel([
      { text: "abcdefghij" },
      { text: "abcdefghij", deltas: 2 },
      { text: "" },
      { thinking: "abc", deltas: 9 },
    ]);
    expect(deltas((await collectEvents(model(testModel, context, {}))).events)).toEqual([
      "abcd",
      "efgh",
      "ij",
    ]);
    expect(deltas((await collectEvents(model(testModel, context, {}))).events)).toEqual(["abcde", "fghij"]);
    const empty = await collectEvents(model(testModel, context, {}));
    expect(eventTypes(empty.events)).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
    expect(deltas(empty.events)).toEqual([""]);
    const thinking = await collectEvents(model(testModel, context, {}));
    expect(deltas(thinking.events)).toEqual(["a", "b", "c"]);
    expect(thinking.events.find((event) => event.type === "thinking_end")).toMatchObject({ content: "abc" });
  });

  it("numbers tool calls without an id, and ends a cut call without toolcall_end", async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "a", arguments: {} },
          { name: "b", arguments: {} },
        ],
      },
      { toolCalls: [{ name: "w", rawArguments: '{"path":"a' }], stopReason: "length" },
      { toolCalls: [{ name: "w", rawArguments: '{"path":"a"}' }], stopReason: "length" },
    ]);
    const { message } = await collectEvents(model(testModel, context, {}));
    const [a, b] = message.content as ToolCall[];
    const number = (id: string | undefined) => Number(id?.replace(/^call_/, ""));
    expect(a?.id).toMatch(/^call_\d+$/);
    expect(number(b?.id)).toBe(number(a?.id) + 1);

    const cut = await collectEvents(model(testModel, context, {}));
    expect(eventTypes(cut.events)).not.toContain("toolcall_end");
    expect(cut.final).toMatchObject({ type: "done", reason: "length" });
    expect(cut.message.content).toEqual([
      { type: "toolCall", id: expect.any(String), name: "w", arguments: {} },
    ]);
    const whole = await collectEvents(model(testModel, context, {}));
    expect(eventTypes(whole.events)).toContain("toolcall_end");
    expect((whole.message.content[0] as ToolCall).arguments).toEqual({ path: "a" });
  });

  it("reports the scripted usage, summing the total unless it is given", async () => {
    const model = scriptedModel([
      { text: "a", usage: { input: 10, output: 5, cacheRead: 3, cacheWrite: 2 } },
      { text: "b", usage: { input: 10, totalTokens: 99 } },
    ]);
    expect((await collectEvents(model(testModel, context, {}))).message.usage).toMatchObject({
      input: 10,
      output: 5,
      cacheRead: 3,
      cacheWrite: 2,
      totalTokens: 20,
    });
    expect((await collectEvents(model(testModel, context, {}))).message.usage).toMatchObject({
      totalTokens: 99,
    });
  });

  it("ends with the scripted error after the content, or with the scripted stop reason", async () => {
    const model = scriptedModel([
      { text: "partial", error: "HTTP 500" },
      { text: "cut", stopReason: "length" },
    ]);
    const failed = await collectEvents(model(testModel, context, {}));
    expect(failed.final).toMatchObject({ type: "error", reason: "error" });
    expect(failed.message).toMatchObject({
      stopReason: "error",
      errorMessage: "HTTP 500",
      content: [{ text: "partial" }],
    });
    const cut = await collectEvents(model(testModel, context, {}));
    expect(cut.final).toMatchObject({ type: "done", reason: "length" });
  });

  it("sends the scripted number of events after the final one", async () => {
    const model = scriptedModel([{ text: "x", eventsAfterDone: 2 }]);
    const events: string[] = [];
    for await (const event of model(testModel, context, {}) as AsyncIterable<AssistantMessageEvent>) {
      events.push(event.type === "text_delta" ? `text_delta ${event.delta}` : event.type);
    }
    expect(events.slice(-3)).toEqual(["done", "text_delta late", "text_delta late"]);
  });
});

describe("scripted model: abort", () => {
  it("ends aborted before anything when the signal is already aborted", async () => {
    const model = scriptedModel([{ text: "never" }]);
    const { events, message } = await collectEvents(
      model(testModel, context, { signal: AbortSignal.abort() }),
    );
    expect(eventTypes(events)).toEqual(["error"]);
    expect(message).toMatchObject({
      stopReason: "aborted",
      errorMessage: "Request was aborted",
      content: [],
    });
  });

  it("stops at the next event after an abort, keeping the text so far", async () => {
    const controller = new AbortController();
    const model = scriptedModel([{ text: "abcdefgh", deltas: 4 }]);
    const { events, message } = await collectEvents(
      model(testModel, context, { signal: controller.signal }),
      (event) => {
        if (event.type === "text_delta") controller.abort();
      },
    );
    expect(eventTypes(events)).toEqual(["start", "text_start", "text_delta", "error"]);
    expect(message.content).toEqual([{ type: "text", text: "ab" }]);
  });

  it("waits with delayMs before each event, and a hanging reply until the abort", async () => {
    const controller = new AbortController();
    const model = scriptedModel([{ text: "slow", delayMs: 1, hang: true }]);
    const { events, message } = await collectEvents(
      model(testModel, context, { signal: controller.signal }),
      (event) => {
        if (event.type === "text_end") controller.abort();
      },
    );
    expect(eventTypes(events)).toEqual(["start", "text_start", "text_delta", "text_end", "error"]);
    expect(message).toMatchObject({ stopReason: "aborted", content: [{ type: "text", text: "slow" }] });
  });
});

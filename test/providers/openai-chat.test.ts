import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openai } from "../../src/openai.js";
import { emptyUsage } from "../../src/types/messages.js";
import type { StreamFn } from "../../src/types/stream.js";
import {
  argumentsArePlainData,
  argumentsAtEachDelta,
  collectEvents,
  eventTypes,
} from "../support/collect-events.js";
import {
  chatModel,
  chunk,
  context,
  llamaCppReasoningChunks,
  ollamaReasoningChunks,
  openAiToolCallChunks,
  usageChunk,
  vllmToolCallChunks,
} from "../support/openai-fixtures.js";
import { OpenAITestServer, streamReply } from "../support/openai-server.js";

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start();
});
afterAll(() => server.close());

describe("openai chat completions: streamed replies", () => {
  it("streams text, assembles interleaved tool calls and prices usage", async () => {
    server.enqueue(streamReply(openAiToolCallChunks()));
    const streamFn = openai({ baseURL: server.baseURL, apiKey: "sk-test" });
    const { events, final, message } = await collectEvents(streamFn(chatModel(), context(), {}));

    expect(eventTypes(events)).toEqual([
      "start",
      "text_start",
      "text_delta",
      "text_delta",
      "text_end",
      "toolcall_start",
      "toolcall_delta",
      "toolcall_start",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_end",
      "toolcall_end",
      "done",
    ]);
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    expect(message.content).toEqual([
      { type: "text", text: "Checking both cities." },
      { type: "toolCall", id: "call_paris", name: "weather", arguments: { city: "Paris" } },
      { type: "toolCall", id: "call_rome", name: "weather", arguments: { city: "Rome", unit: "C" } },
    ]);
    expect(message).toMatchObject({
      api: "openai-chat",
      provider: "openai",
      model: "gpt-test",
      stopReason: "toolUse",
    });
    expect(message.usage).toMatchObject({
      input: 200,
      cacheRead: 1000,
      output: 40,
      cacheWrite: 0,
      totalTokens: 1240,
    });
    expect(message.usage.cost.input).toBeCloseTo((200 * 2) / 1e6);
    expect(message.usage.cost.cacheRead).toBeCloseTo((1000 * 0.5) / 1e6);
    expect(message.usage.cost.output).toBeCloseTo((40 * 8) / 1e6);
    expect(message.usage.cost.total).toBeCloseTo((400 + 500 + 320) / 1e6);

    const deltas = events.filter((event) => event.type === "toolcall_delta");
    expect(deltas.map((event) => [event.contentIndex, event.delta])).toEqual([
      [1, '{"city":'],
      [2, '{"ci'],
      [1, '"Paris"}'],
      [2, 'ty":"Rome","unit":"C"}'],
    ]);
    const ends = events.filter((event) => event.type === "toolcall_end");
    expect(ends.map((event) => event.toolCall.id)).toEqual(["call_paris", "call_rome"]);
    for (const event of events.slice(0, -1)) expect("partial" in event && event.partial).toBe(message);
  });

  it("shows the arguments parsed so far at each toolcall_delta, and plain data once the call ends", async () => {
    const argumentsDelta = (index: number, text: string) =>
      chunk({ tool_calls: [{ index, function: { arguments: text } }] });
    server.enqueue(
      streamReply([
        chunk({ role: "assistant", content: null }),
        chunk({
          tool_calls: [
            { index: 0, id: "call_r", type: "function", function: { name: "read", arguments: "" } },
          ],
        }),
        argumentsDelta(0, '{"pa'),
        argumentsDelta(0, 'th":"src/'),
        argumentsDelta(0, 'main.ts","lim'),
        argumentsDelta(0, 'it":20'),
        argumentsDelta(0, '0,"tags":["a",'),
        argumentsDelta(0, '"b"]}'),
        chunk({}, "tool_calls"),
      ]),
    );
    const seen: [number, unknown][] = [];
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL })(chatModel(), context(), {}),
      argumentsAtEachDelta(seen),
    );
    expect(seen).toEqual([
      [0, {}],
      [0, { path: "src/" }],
      [0, { path: "src/main.ts" }],
      [0, { path: "src/main.ts", limit: 20 }],
      [0, { path: "src/main.ts", limit: 200, tags: ["a"] }],
      [0, { path: "src/main.ts", limit: 200, tags: ["a", "b"] }],
    ]);
    expect(message.content).toEqual([
      {
        type: "toolCall",
        id: "call_r",
        name: "read",
        arguments: { path: "src/main.ts", limit: 200, tags: ["a", "b"] },
      },
    ]);
    expect(argumentsArePlainData(message)).toBe(true);
  });

  it("streams Ollama `reasoning` deltas as thinking before the text", async () => {
    server.enqueue(streamReply(ollamaReasoningChunks()));
    const streamFn = openai({ baseURL: server.baseURL });
    const { events, message } = await collectEvents(
      streamFn(chatModel({ provider: "ollama" }), context(), {}),
    );
    expect(eventTypes(events)).toEqual([
      "start",
      "thinking_start",
      "thinking_delta",
      "thinking_delta",
      "thinking_end",
      "text_start",
      "text_delta",
      "text_delta",
      "text_end",
      "done",
    ]);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "The user wants a greeting.", thinkingSignature: "reasoning" },
      { type: "text", text: "Hello there!" },
    ]);
    expect(message).toMatchObject({ stopReason: "stop", provider: "ollama" });
    expect(message.usage.input).toBe(30);
    expect(events.find((event) => event.type === "thinking_end")).toMatchObject({
      content: "The user wants a greeting.",
    });
  });

  it("decodes llama.cpp `reasoning_content` and multi-byte text split mid-character", async () => {
    server.enqueue(streamReply(llamaCppReasoningChunks(), { sizes: [1, 2, 3, 5] }));
    const streamFn = openai({ baseURL: server.baseURL });
    const { message } = await collectEvents(streamFn(chatModel({ cost: undefined }), context(), {}));
    expect(message.content).toEqual([
      {
        type: "thinking",
        thinking: "Think about café ☕ and 日本語.",
        thinkingSignature: "reasoning_content",
      },
      { type: "text", text: "Naïve answer: 日本語 ☕ ok" },
    ]);
    expect(message.stopReason).toBe("stop");
    expect(message.usage).toEqual(emptyUsage());
  });

  it("keeps the id and name sent only in a tool call's first chunk (vLLM)", async () => {
    server.enqueue(streamReply(vllmToolCallChunks()));
    const streamFn = openai({ baseURL: server.baseURL });
    const { message, final } = await collectEvents(streamFn(chatModel(), context(), {}));
    expect(final.type).toBe("done");
    expect(message.content).toEqual([
      { type: "toolCall", id: "chatcmpl-tool-1", name: "read_file", arguments: { path: "src/é.ts" } },
    ]);
  });

  it("generates an id for a tool call that has none and reads empty arguments as {}", async () => {
    server.enqueue(
      streamReply([
        chunk({ tool_calls: [{ index: 0, type: "function", function: { name: "now", arguments: "" } }] }),
        chunk({}, "stop"),
      ]),
    );
    const { message } = await collectEvents(openai({ baseURL: server.baseURL })(chatModel(), context(), {}));
    const call = message.content[0];
    expect(call).toMatchObject({ type: "toolCall", name: "now", arguments: {} });
    expect(call?.type === "toolCall" && call.id).toMatch(/^call_/);
    // "stop" with tool calls (some servers) still means the model wants the tools run.
    expect(message.stopReason).toBe("toolUse");
  });

  it.each([
    ["stop", "stop", "done"],
    ["length", "length", "done"],
    ["tool_calls", "toolUse", "done"],
    ["function_call", "toolUse", "done"],
    ["content_filter", "error", "error"],
  ])("maps finish_reason %s to stopReason %s", async (finishReason, stopReason, finalType) => {
    server.enqueue(streamReply([chunk({ content: "x" }), chunk({}, finishReason), usageChunk(1, 1)]));
    const { message, final } = await collectEvents(
      openai({ baseURL: server.baseURL })(chatModel(), context(), {}),
    );
    expect(message.stopReason).toBe(stopReason);
    expect(final.type).toBe(finalType);
    if (finishReason === "content_filter") expect(message.errorMessage).toMatch(/content filter/);
  });
});

describe("openai(): type contract", () => {
  it("is assignable to StreamFn", () => {
    const streamFn: StreamFn = openai({ baseURL: server.baseURL });
    expect(typeof streamFn).toBe("function");
  });
});

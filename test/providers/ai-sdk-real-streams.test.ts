import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isContextOverflow, isRetryableError } from "../../src/harness/retry-policy.js";
import type { AssistantMessage, Message, ToolCall } from "../../src/types/messages.js";
import { getModel } from "../../src/types/model-catalogue.js";
import { askContext, loopbackAnthropic, loopbackGoogle, weatherTool } from "../support/ai-sdk-models.js";
import { collectEvents } from "../support/collect-events.js";
import { OpenAITestServer } from "../support/openai-server.js";
import { deliveries, recordedBody, recordedReply } from "../support/provider-streams.js";

// Anthropic Messages API and Gemini API streams recorded from the real services (sources:
// test/fixtures/README.md), replayed from a loopback server through the real @ai-sdk/anthropic and
// @ai-sdk/google packages, once in one write and once cut into small writes.

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start({ anyPath: true });
});
afterAll(() => server.close());

const user = (content: string): Message => ({ role: "user", content, timestamp: 1 });

async function replayAnthropic(
  fixture: string,
  delivery: (typeof deliveries)[number],
  context = askContext(),
) {
  server.enqueue(recordedReply(fixture, delivery, { "content-type": "text/event-stream" }));
  const { model, streamFn } = loopbackAnthropic(server.baseURL);
  return collectEvents(streamFn(model, context));
}

async function replayGoogle(fixture: string, delivery: (typeof deliveries)[number], context = askContext()) {
  server.enqueue(recordedReply(fixture, delivery, { "content-type": "text/event-stream" }));
  const { model, streamFn } = loopbackGoogle(server.baseURL);
  return collectEvents(streamFn(model, context));
}

describe.each(deliveries)("Anthropic Messages API streams through @ai-sdk/anthropic (%s)", (delivery) => {
  it("text: one text block, its deltas as they came, usage and catalogue prices", async () => {
    const { events, message, final } = await replayAnthropic("anthropic-text.sse", delivery);
    expect(final).toMatchObject({ type: "done", reason: "stop" });
    expect(events.map((event) => event.type)).toEqual([
      "start",
      "text_start",
      ...Array(6).fill("text_delta"),
      "text_end",
      "done",
    ]);
    expect(message.content).toEqual([
      {
        type: "text",
        text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
      },
    ]);
    expect(message).toMatchObject({
      api: "anthropic.messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
    });
    expect(message.usage).toMatchObject({
      input: 12,
      output: 30,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 42,
    });
    expect(message.usage.cost.total).toBeCloseTo((12 * 3 + 30 * 15) / 1_000_000, 12);
  });

  it("thinking with signature: the signed thinking block is kept and sent back on the next request", async () => {
    const { message } = await replayAnthropic("anthropic-thinking-signature.sse", delivery);
    const [thinking, text] = message.content;
    expect(thinking).toMatchObject({
      type: "thinking",
      thinking: "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
    });
    expect((thinking as { thinkingSignature?: string }).thinkingSignature).toMatch(
      /^EvQBCkYICxgCKkAx.*17BgB$/,
    );
    expect(text).toEqual({ type: "text", text: "925 ÷ 5 = 185" });

    const next = await replayAnthropic(
      "anthropic-text.sse",
      delivery,
      askContext([user("925 / 5?"), message, user("thanks")]),
    );
    expect(next.final.type).toBe("done");
    const sent = server.requests.at(-1)!.body as { messages: { role: string; content: unknown[] }[] };
    expect(sent.messages[1]!.content[0]).toEqual({
      type: "thinking",
      thinking: (thinking as { thinking: string }).thinking,
      signature: (thinking as { thinkingSignature: string }).thinkingSignature,
    });
  });

  it("a tool call: its JSON arguments stream delta by delta and parse so far on each", async () => {
    const seen: unknown[] = [];
    server.enqueue(recordedReply("anthropic-tool-use.sse", delivery));
    const { model, streamFn } = loopbackAnthropic(server.baseURL);
    const { message, final } = await collectEvents(
      streamFn(model, { ...askContext(), tools: [weatherTool] }),
      (event) => {
        if (event.type === "toolcall_delta") {
          seen.push({ ...(event.partial.content[event.contentIndex] as ToolCall).arguments });
        }
      },
    );
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    expect(seen).toEqual([{}, { location: "P" }, { location: "Par" }, { location: "Paris" }]);
    expect(message.content[1]).toEqual({
      type: "toolCall",
      id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
      name: "get_weather",
      arguments: { location: "Paris" },
    });
  });

  it("parallel tool calls and a prompt cache read and written: both calls, usage split by the cache", async () => {
    const { message, final } = await replayAnthropic("anthropic-parallel-tool-calls-cache.sse", delivery);
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    expect(message.content.filter((block) => block.type === "toolCall")).toEqual([
      {
        type: "toolCall",
        id: "toolu_01Ni1uw4HXYxUhc4iFMqx7yY",
        name: "get_weather",
        arguments: { city: "San Francisco" },
      },
      {
        type: "toolCall",
        id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        name: "get_weather",
        arguments: { location: "Paris" },
      },
    ]);
    expect(message.usage).toMatchObject({ input: 6, cacheRead: 6289, cacheWrite: 3337, output: 198 });
    expect(message.usage.totalTokens).toBe(6 + 6289 + 3337 + 198);
    const price = getModel("claude-sonnet-4-5").cost!;
    expect(message.usage.cost.cacheWrite).toBeCloseTo((3337 * price.cacheWrite) / 1_000_000, 12);
    expect(message.usage.cost.cacheRead).toBeCloseTo((6289 * price.cacheRead) / 1_000_000, 12);
  });

  it("an overload mid-stream: a retryable error reply that keeps the text so far, not re-sent", async () => {
    const before = server.requests.length;
    const { message, final } = await replayAnthropic("anthropic-overloaded-mid-stream.sse", delivery);
    expect(final).toMatchObject({ type: "error", reason: "error" });
    expect(message.content).toEqual([{ type: "text", text: "Hello! I" }]);
    expect(message.errorMessage).toBe(
      "anthropic stream error overloaded_error (throttled: rate limited, retry later): Overloaded",
    );
    expect(isRetryableError(message)).toBe(true);
    expect(server.requests.length - before).toBe(1);
  });
});

describe("Anthropic failures before the stream", () => {
  it("an overload before the first part is retried by the StreamFn, then the reply streams", async () => {
    server.enqueue(
      recordedReply("anthropic-overloaded-at-start.sse", "whole"),
      recordedReply("anthropic-text.sse", "whole"),
    );
    const before = server.requests.length;
    const { model, streamFn } = loopbackAnthropic(server.baseURL, "claude-sonnet-4-5", { maxRetries: 1 });
    const { final } = await collectEvents(streamFn(model, askContext(), { maxRetries: 1 }));
    expect(final.type).toBe("done");
    expect(server.requests.length - before).toBe(2);
  });

  it("without retries left, an overload before the first part is a retryable 529 error reply", async () => {
    server.enqueue(recordedReply("anthropic-overloaded-at-start.sse", "whole"));
    const { model, streamFn } = loopbackAnthropic(server.baseURL);
    const { message } = await collectEvents(streamFn(model, askContext()));
    expect(message.errorMessage).toBe("anthropic API error 529 Overloaded");
    expect(isRetryableError(message)).toBe(true);
  });

  it("a prompt over the window (HTTP 400) is a context overflow, not retried", async () => {
    server.enqueue({
      kind: "json",
      status: 400,
      body: {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "prompt is too long: 208310 tokens > 200000 maximum",
        },
      },
    });
    const before = server.requests.length;
    const { model, streamFn } = loopbackAnthropic(server.baseURL, "claude-sonnet-4-5", { maxRetries: 2 });
    const { message } = await collectEvents(streamFn(model, askContext()));
    expect(message.errorMessage).toBe(
      "anthropic API error 400 prompt is too long: 208310 tokens > 200000 maximum",
    );
    expect(isContextOverflow(message)).toBe(true);
    expect(isRetryableError(message)).toBe(false);
    expect(server.requests.length - before).toBe(1);
  });
});

describe.each(deliveries)("Gemini API streams through @ai-sdk/google (%s)", (delivery) => {
  it("text with a thought signature: kept on the text block and sent back as thoughtSignature", async () => {
    const { message, final } = await replayGoogle("gemini-3-text-thought-signature.sse", delivery);
    expect(final).toMatchObject({ type: "done", reason: "stop" });
    expect(message.content).toHaveLength(1);
    const text = message.content[0] as { text: string; textSignature?: string };
    expect(text.text).toBe('There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y');
    expect(text.textSignature).toMatch(/^EpAICo0IAb4\+9vuku3oD.*G9i114=$/);
    expect(message).toMatchObject({ api: "google.generative-ai", provider: "google" });
    // promptTokenCount 9, candidatesTokenCount 23 + thoughtsTokenCount 302.
    expect(message.usage).toMatchObject({ input: 9, output: 325, cacheRead: 0 });

    await replayGoogle(
      "gemini-3-text-thought-signature.sse",
      delivery,
      askContext([user("r?"), message, user("ok")]),
    );
    const sent = server.requests.at(-1)!.body as { contents: { role: string; parts: unknown[] }[] };
    expect(sent.contents[1]).toEqual({
      role: "model",
      parts: [{ text: text.text, thoughtSignature: text.textSignature }],
    });
  });

  it("a whole function call with its thought signature: a tool call whose signature goes back with it", async () => {
    const { message, final } = await replayGoogle("gemini-3-tool-call-thought-signature.sse", delivery);
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    const call = message.content.find((block) => block.type === "toolCall") as ToolCall;
    expect(call).toMatchObject({ name: "weather", arguments: { location: "San Francisco" } });
    expect(call.thoughtSignature).toMatch(/^EqUCCqICAb4\+9vsh8Pd5/);

    const result: Message = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: "weather",
      content: [{ type: "text", text: "18°C" }],
      isError: false,
      timestamp: 2,
    };
    await replayGoogle(
      "gemini-3-text-thought-signature.sse",
      delivery,
      askContext([user("weather?"), message, result]),
    );
    const sent = server.requests.at(-1)!.body as {
      contents: { role: string; parts: Record<string, unknown>[] }[];
    };
    expect(sent.contents[1]!.parts[0]).toMatchObject({
      functionCall: { name: "weather", args: { location: "San Francisco" } },
      thoughtSignature: call.thoughtSignature,
    });
    expect(sent.contents[2]!.parts[0]).toMatchObject({ functionResponse: { name: "weather" } });
  });
});

describe("what an Anthropic request carries", () => {
  it("cache points on the system prompt, the last tool and the last message; the thinking budget of the level", async () => {
    server.enqueue(recordedReply("anthropic-text.sse", "whole"));
    const { model, streamFn } = loopbackAnthropic(server.baseURL);
    await collectEvents(
      streamFn(
        model,
        { ...askContext([user("first"), user("second")]), tools: [weatherTool] },
        { reasoning: "medium" },
      ),
    );
    const body = server.requests.at(-1)!.body as Record<string, any>;
    expect(body.system).toEqual([{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }]);
    expect(body.tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
  });

  it("no cache points with cacheRetention none; the 1-hour lifetime with long", async () => {
    const { model, streamFn } = loopbackAnthropic(server.baseURL);
    server.enqueue(
      recordedReply("anthropic-text.sse", "whole"),
      recordedReply("anthropic-text.sse", "whole"),
    );
    await collectEvents(streamFn(model, askContext(), { cacheRetention: "none" }));
    expect(JSON.stringify(server.requests.at(-1)!.body)).not.toContain("cache_control");
    await collectEvents(streamFn(model, askContext(), { cacheRetention: "long" }));
    expect(server.requests.at(-1)!.body.system[0].cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
  });

  it("images in user messages and in tool results go as image blocks", async () => {
    server.enqueue(recordedReply("anthropic-text.sse", "whole"));
    const { model, streamFn } = loopbackAnthropic(server.baseURL);
    const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };
    const call: AssistantMessage = {
      role: "assistant",
      content: [{ type: "toolCall", id: "toolu_1", name: "screenshot", arguments: {} }],
      api: "anthropic.messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "toolUse",
      timestamp: 2,
    };
    await collectEvents(
      streamFn(
        model,
        askContext([
          { role: "user", content: [{ type: "text", text: "what is this?" }, image], timestamp: 1 },
          call,
          {
            role: "toolResult",
            toolCallId: "toolu_1",
            toolName: "screenshot",
            content: [{ type: "text", text: "the screen" }, image],
            isError: false,
            timestamp: 3,
          },
        ]),
      ),
    );
    const messages = server.requests.at(-1)!.body.messages as { content: Record<string, any>[] }[];
    const source = { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" };
    expect(messages[0]!.content[1]).toMatchObject({ type: "image", source });
    expect(messages[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
    expect(messages[2]!.content[0]!.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "image", source })]),
    );
  });

  it("an abort cancels the request: the connection closes and the reply ends aborted with its text", async () => {
    const controller = new AbortController();
    server.enqueue({ kind: "stream", pieces: [firstEvents()], ending: "hang" });
    const { model, streamFn } = loopbackAnthropic(server.baseURL);
    const reply = collectEvents(streamFn(model, askContext(), { signal: controller.signal }), (event) => {
      if (event.type === "text_delta") controller.abort();
    });
    const { message, final } = await reply;
    expect(final).toMatchObject({ type: "error", reason: "aborted" });
    expect(message.content[0]).toMatchObject({ type: "text" });
    await server.requests.at(-1)!.closed;
  });
});

/** The overload fixture without its error event: message_start, a text block start and two deltas. */
function firstEvents(): string {
  const body = recordedBody("anthropic-overloaded-mid-stream.sse");
  return body.slice(0, body.indexOf("event: error"));
}

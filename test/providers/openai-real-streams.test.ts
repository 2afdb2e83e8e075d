import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRetryableError } from "../../src/harness/retry-policy.js";
import { openai } from "../../src/openai.js";
import { toChatMessages } from "../../src/providers/openai/convert-messages.js";
import type { ToolCall } from "../../src/types/messages.js";
import { collectEvents } from "../support/collect-events.js";
import { chatModel, context } from "../support/openai-fixtures.js";
import { OpenAITestServer } from "../support/openai-server.js";
import { deliveries, recordedReply } from "../support/provider-streams.js";

// Streams recorded from real servers (sources: test/fixtures/README.md), replayed byte for byte from a
// loopback server, once in one write and once cut into small writes.

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start();
});
afterAll(() => server.close());

const model = chatModel({ cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 } });
const replay = async (
  fixture: string,
  delivery: (typeof deliveries)[number],
  headers?: Record<string, string>,
) => {
  server.enqueue(recordedReply(fixture, delivery, headers));
  return collectEvents(openai({ baseURL: server.baseURL, maxRetries: 0 })(model, context()));
};

describe.each(deliveries)("recorded real-server streams (%s)", (delivery) => {
  it("OpenAI: a refusal becomes the reply's text, marked as a refusal, and is resent in history", async () => {
    const { message, final } = await replay("openai-refusal.sse", delivery);
    expect(final).toMatchObject({ type: "done", reason: "stop" });
    expect(message.content).toEqual([
      { type: "text", text: "I'm sorry, I can't assist with that request.", textSignature: "refusal" },
    ]);
    const history = toChatMessages(model, context([{ role: "user", content: "hi", timestamp: 1 }, message]));
    expect(history.at(-1)).toEqual({
      role: "assistant",
      content: "I'm sorry, I can't assist with that request.",
    });
  });

  it("OpenAI n=3: only the first choice (index 0) is read", async () => {
    const { message, final } = await replay("openai-three-choices.sse", delivery);
    expect(final.type).toBe("done");
    expect(message.content).toEqual([
      { type: "text", text: '{"city":"San Francisco","temperature":65,"units":"f"}' },
    ]);
  });

  it("xAI: reasoning tokens reported apart from completion_tokens are counted and priced", async () => {
    const { message } = await replay("xai-reasoning-usage.chunks.txt", delivery);
    // prompt 12 (11 cached), completion_tokens 2, reasoning_tokens 340, total_tokens 354.
    expect(message.usage).toMatchObject({ input: 1, cacheRead: 11, output: 342, totalTokens: 354 });
    expect(message.usage.cost.output).toBeCloseTo((342 * 8) / 1_000_000, 12);
    expect(message.usage.cost.total).toBeCloseTo((1 * 2 + 11 * 0.5 + 342 * 8) / 1_000_000, 12);
  });

  it('Alibaba: later tool-call chunks with id "" continue the same call', async () => {
    const { message, final } = await replay("alibaba-tool-call.chunks.txt", delivery);
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    expect(message.content).toEqual([
      {
        type: "toolCall",
        id: "call_eee11723464a4b9eb8cee71d",
        name: "weather",
        arguments: { location: "San Francisco" },
      },
    ]);
  });

  it("Gemini: tool calls without index stay apart (by id), an indexless continuation joins the last call", async () => {
    const { message, final } = await replay("gemini-tool-calls-without-index.sse", delivery);
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    const calls = message.content as ToolCall[];
    expect(calls.map(({ id, name, arguments: args }) => ({ id, name, args }))).toEqual([
      { id: "function-call-1", name: "get_weather", args: { city: "Paris" } },
      { id: "function-call-2", name: "get_weather", args: { city: "Rome" } },
      { id: "function-call-3", name: "get_time", args: { tz: "UTC" } },
    ]);
  });

  it("OpenAI: an error object inside the stream keeps the server's message", async () => {
    const { message } = await replay("openai-server-error.sse", delivery);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("The server had an error processing your request");
    expect(message.errorMessage).toContain("server_error");
  });

  it("llama.cpp (2025 builds): an `error:` SSE field ends the reply with the server's message and code", async () => {
    const { message } = await replay("llamacpp-error-field.sse", delivery);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("400");
    expect(message.errorMessage).toContain("the request exceeds the available context size");
  });

  it("a proxy in front of llama-server: a bare JSON error body without SSE framing is reported", async () => {
    const { message } = await replay("llamacpp-proxy-bare-json.txt", delivery, {
      "content-type": "application/json",
    });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("400");
    expect(message.errorMessage).toContain("the request exceeds the available context size");
  });

  it("DashScope: an `event: error` throttling frame is an error retryable like a 429", async () => {
    const { message } = await replay("dashscope-throttling.sse", delivery);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("Throttling.AllocationQuota");
    expect(message.errorMessage).toContain("Allocated quota exceeded, please increase your quota limit.");
    expect(isRetryableError(message)).toBe(true);
  });

  it("vLLM: an {object: error} chunk ends the reply with its message and code, keeping the text so far", async () => {
    const { message } = await replay("vllm-object-error.sse", delivery);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "text", text: "Sure" }]);
    expect(message.errorMessage).toContain("400");
    expect(message.errorMessage).toContain("Extra inputs are not permitted");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openai } from "../../src/openai.js";
import type { Message } from "../../src/types/messages.js";
import { emptyUsage } from "../../src/types/messages.js";
import type { LlmContext } from "../../src/types/stream.js";
import {
  argumentsArePlainData,
  argumentsAtEachDelta,
  collectEvents,
  eventTypes,
} from "../support/collect-events.js";
import { chatModel, responsesEvents, responsesIncompleteEvents } from "../support/openai-fixtures.js";
import { OpenAITestServer, type ScriptedReply, streamReply } from "../support/openai-server.js";

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start();
});
afterAll(() => server.close());

const model = chatModel({ api: "openai-responses", reasoning: true });
const context = (messages: Message[] = [{ role: "user", content: "2+3?", timestamp: 1 }]): LlmContext => ({
  systemPrompt: "Be exact.",
  messages,
  tools: [
    {
      name: "add",
      description: "Adds",
      parameters: { type: "object", properties: { a: { type: "number" } } },
    },
  ],
});
const responsesReply = (events: Record<string, unknown>[], ending?: "reset" | "hang"): ScriptedReply =>
  streamReply(events, { named: true, done: false, ...(ending ? { ending } : {}) });

describe("openai responses API: streamed replies", () => {
  it("streams reasoning summaries as thinking, text, and a function call with usage", async () => {
    server.enqueue(responsesReply(responsesEvents()));
    const streamFn = openai({ baseURL: server.baseURL, api: "responses" });
    const { events, final, message } = await collectEvents(streamFn(model, context(), { reasoning: "high" }));
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
      "toolcall_start",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_end",
      "done",
    ]);
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Adding numbers.\n\nUse the tool." },
      { type: "text", text: "Let me add them — ✓" },
      { type: "toolCall", id: "call_sum", name: "add", arguments: { a: 2, b: 3 } },
    ]);
    expect(message).toMatchObject({ api: "openai-responses", provider: "openai", model: "gpt-test" });
    expect(message.usage).toMatchObject({ input: 400, cacheRead: 100, output: 60, totalTokens: 560 });
    expect(message.usage.cost.total).toBeCloseTo((400 * 2 + 100 * 0.5 + 60 * 8) / 1e6);
  });

  it("shows the arguments parsed so far at each toolcall_delta", async () => {
    server.enqueue(responsesReply(responsesEvents()));
    const seen: [number, unknown][] = [];
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL, api: "responses" })(model, context()),
      argumentsAtEachDelta(seen),
    );
    expect(seen).toEqual([
      [2, { a: 2 }],
      [2, { a: 2, b: 3 }],
    ]);
    expect(argumentsArePlainData(message)).toBe(true);
  });

  it("marks a function call whose final arguments are malformed JSON, and ends the reply normally", async () => {
    const malformed = responsesEvents().map((event) => {
      const item = event.item as { type?: string } | undefined;
      if (event.type === "response.function_call_arguments.delta" && event.delta === '"b":3}') {
        return { ...event, delta: '"b":}' };
      }
      if (event.type === "response.output_item.done" && item?.type === "function_call") {
        return { ...event, item: { ...item, arguments: '{"a":2,"b":}' } };
      }
      return event;
    });
    server.enqueue(responsesReply(malformed));
    const { message, final } = await collectEvents(
      openai({ baseURL: server.baseURL, api: "responses" })(model, context()),
    );
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    expect(message.content.at(-1)).toMatchObject({
      type: "toolCall",
      id: "call_sum",
      arguments: {},
      invalidArguments: { raw: '{"a":2,"b":}', error: expect.stringMatching(/JSON/) },
    });
  });

  it("maps status incomplete (max_output_tokens) to stopReason length", async () => {
    server.enqueue(responsesReply(responsesIncompleteEvents()));
    const { final, message } = await collectEvents(
      openai({ baseURL: server.baseURL, api: "responses" })(model, context()),
    );
    expect(final).toMatchObject({ type: "done", reason: "length" });
    expect(message.content).toEqual([{ type: "text", text: "Once upon" }]);
  });

  it("reports response.failed with the server's error", async () => {
    server.enqueue(
      responsesReply([
        {
          type: "response.output_text.delta",
          item_id: "m",
          output_index: 0,
          content_index: 0,
          delta: "Hm",
          sequence_number: 1,
        },
        {
          type: "response.failed",
          sequence_number: 2,
          response: {
            id: "r",
            status: "failed",
            output: [],
            error: { code: "server_error", message: "shard lost" },
          },
        },
      ]),
    );
    const { final, message } = await collectEvents(
      openai({ baseURL: server.baseURL, api: "responses" })(model, context()),
    );
    expect(final).toMatchObject({ type: "error", reason: "error" });
    expect(message.errorMessage).toBe("openai response failed (server_error: shard lost)");
    expect(message.content).toEqual([{ type: "text", text: "Hm" }]);
  });

  it('marks a refusal like Chat Completions does: text with textSignature "refusal"', async () => {
    const created = {
      type: "response.created",
      sequence_number: 1,
      response: { id: "r", status: "in_progress", output: [] },
    };
    const refusal = (delta: string, sequence: number) => ({
      type: "response.refusal.delta",
      item_id: "msg_r",
      output_index: 0,
      content_index: 0,
      delta,
      sequence_number: sequence,
    });
    const completed = {
      type: "response.completed",
      sequence_number: 4,
      response: { id: "r", status: "completed", output: [] },
    };
    server.enqueue(
      responsesReply([created, refusal("I can't help", 2), refusal(" with that.", 3), completed]),
    );
    const { message, final } = await collectEvents(
      openai({ baseURL: server.baseURL, api: "responses" })(model, context()),
    );
    expect(final).toMatchObject({ type: "done", reason: "stop" });
    expect(message.content).toEqual([
      { type: "text", text: "I can't help with that.", textSignature: "refusal" },
    ]);
  });

  it("reports an `error` stream event", async () => {
    server.enqueue(
      responsesReply([
        { type: "error", code: "rate_limit_exceeded", message: "too fast", param: null, sequence_number: 1 },
      ]),
    );
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL, api: "responses" })(model, context()),
    );
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(
      "openai stream error rate_limit_exceeded (throttled: rate limited, retry later): too fast",
    );
  });

  it("treats a stream cut before response.completed as an error", async () => {
    server.enqueue(responsesReply(responsesEvents().slice(0, 8), "reset"));
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL, api: "responses", maxRetries: 0 })(model, context()),
    );
    expect(message.stopReason).toBe("error");
    expect(message.content[0]).toEqual({ type: "thinking", thinking: "Adding numbers.\n\nUse the tool." });
  });
});

describe("openai responses API: request payload", () => {
  it("sends instructions, input items, tools, reasoning and tool results with images", async () => {
    server.enqueue(responsesReply(responsesIncompleteEvents()));
    const before = server.requests.length;
    const history: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "Look" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
        timestamp: 1,
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "private" },
          { type: "text", text: "Calling." },
          { type: "toolCall", id: "call_1", name: "add", arguments: { a: 1 } },
        ],
        api: "openai-responses",
        provider: "openai",
        model: "gpt-test",
        usage: emptyUsage(),
        stopReason: "toolUse",
        timestamp: 2,
      },
      {
        role: "toolResult",
        toolCallId: "call_1",
        toolName: "add",
        content: [
          { type: "text", text: "plot" },
          { type: "image", data: "BBBB", mimeType: "image/webp" },
        ],
        isError: false,
        timestamp: 3,
      },
      {
        role: "toolResult",
        toolCallId: "call_2",
        toolName: "add",
        content: [{ type: "text", text: "3" }],
        isError: false,
        timestamp: 4,
      },
    ];
    await collectEvents(
      openai({ baseURL: server.baseURL, api: "responses" })(model, context(history), {
        reasoning: "xhigh",
        maxTokens: 99,
        temperature: 1,
      }),
    );
    const request = server.requests[before]!;
    expect(request.path).toBe("/v1/responses");
    expect(request.body).toMatchObject({
      model: "gpt-test",
      stream: true,
      store: false,
      instructions: "Be exact.",
      max_output_tokens: 99,
      temperature: 1,
      reasoning: { effort: "high", summary: "auto" },
      tools: [
        {
          type: "function",
          name: "add",
          description: "Adds",
          parameters: { type: "object", properties: { a: { type: "number" } } },
          strict: false,
        },
      ],
    });
    expect(request.body.input).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "Look" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" },
        ],
      },
      { role: "assistant", content: "Calling." },
      { type: "function_call", call_id: "call_1", name: "add", arguments: '{"a":1}' },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [
          { type: "input_text", text: "plot" },
          { type: "input_image", image_url: "data:image/webp;base64,BBBB", detail: "auto" },
        ],
      },
      { type: "function_call_output", call_id: "call_2", output: "3" },
    ]);
    expect(JSON.stringify(request.body)).not.toContain("private");
  });
});

describe("openai responses API: abort", () => {
  it("cancels the request and keeps the streamed thinking and text", async () => {
    server.enqueue(responsesReply(responsesEvents().slice(0, 9), "hang"));
    const index = server.requests.length;
    const controller = new AbortController();
    const events = [];
    const streamFn = openai({ baseURL: server.baseURL, api: "responses" });
    for await (const event of streamFn(model, context(), { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text_delta" && event.delta === "them — ✓") controller.abort();
    }
    expect(events.at(-1)).toMatchObject({
      type: "error",
      reason: "aborted",
      error: {
        stopReason: "aborted",
        content: [
          { type: "thinking", thinking: "Adding numbers.\n\nUse the tool." },
          { type: "text", text: "Let me add them — ✓" },
        ],
      },
    });
    await (await server.request(index)).closed;
  });
});

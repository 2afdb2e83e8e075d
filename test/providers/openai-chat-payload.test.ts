import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { openai } from "../../src/openai.js";
import { defineTool, toToolSpec } from "../../src/tools/define-tool.js";
import type { AssistantMessage, Message } from "../../src/types/messages.js";
import { emptyUsage } from "../../src/types/messages.js";
import { collectEvents } from "../support/collect-events.js";
import { chatModel, chunk, context } from "../support/openai-fixtures.js";
import { OpenAITestServer, streamReply } from "../support/openai-server.js";

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start();
});
afterAll(() => server.close());

describe("openai chat completions: request payload", () => {
  const history: Message[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in this picture?" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      timestamp: 1,
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "secret plan", thinkingSignature: "reasoning_content" },
        { type: "text", text: "Let me zoom." },
        { type: "toolCall", id: "call_1", name: "zoom", arguments: { factor: 2 } },
        { type: "toolCall", id: "call_2", name: "crop", arguments: {} },
      ],
      api: "openai-chat",
      provider: "openai",
      model: "gpt-test",
      usage: emptyUsage(),
      stopReason: "toolUse",
      timestamp: 2,
    } satisfies AssistantMessage,
    {
      role: "toolResult",
      toolCallId: "call_1",
      toolName: "zoom",
      content: [
        { type: "text", text: "zoomed" },
        { type: "image", data: "BBBB", mimeType: "image/jpeg" },
      ],
      isError: false,
      timestamp: 3,
    },
    {
      role: "toolResult",
      toolCallId: "call_2",
      toolName: "crop",
      content: [{ type: "image", data: "CCCC", mimeType: "image/png" }],
      isError: false,
      timestamp: 4,
    },
    { role: "user", content: "Thanks", timestamp: 5 },
  ];
  const tools = [
    {
      name: "zoom",
      description: "Zooms the picture",
      parameters: { type: "object", properties: { factor: { type: "number" } }, required: ["factor"] },
    },
  ];

  it("sends messages, tools, images, tool results and stream options", async () => {
    server.enqueue(streamReply([chunk({ content: "ok" }, "stop")]));
    const before = server.requests.length;
    const streamFn = openai({
      baseURL: server.baseURL,
      apiKey: "sk-factory",
      defaultHeaders: { "x-app": "agentchart" },
    });
    await collectEvents(
      streamFn(chatModel(), context(history, { tools }), {
        maxTokens: 321,
        temperature: 0.2,
        headers: { "x-trace": "t-1" },
      }),
    );
    const request = server.requests[before]!;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-factory");
    expect(request.headers["x-app"]).toBe("agentchart");
    expect(request.headers["x-trace"]).toBe("t-1");
    expect(request.body).toMatchObject({
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 321,
      temperature: 0.2,
    });
    expect(request.body.reasoning_effort).toBeUndefined();
    expect(request.body.tools).toEqual([{ type: "function", function: tools[0] }]);
    expect(request.body.messages).toEqual([
      { role: "system", content: "You are terse." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this picture?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
      {
        role: "assistant",
        content: "Let me zoom.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "zoom", arguments: '{"factor":2}' } },
          { id: "call_2", type: "function", function: { name: "crop", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "zoomed" },
      { role: "tool", tool_call_id: "call_2", content: "(see attached image)" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by the tool calls above:" },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,BBBB" } },
          { type: "image_url", image_url: { url: "data:image/png;base64,CCCC" } },
        ],
      },
      { role: "user", content: "Thanks" },
    ]);
    expect(JSON.stringify(request.body)).not.toContain("secret plan");
  });

  it("replaces images with a note for text-only models and omits empty tools", async () => {
    server.enqueue(streamReply([chunk({ content: "ok" }, "stop")]));
    const before = server.requests.length;
    await collectEvents(
      openai({ baseURL: server.baseURL })(chatModel({ input: ["text"] }), context(history), {}),
    );
    const body = server.requests[before]!.body;
    expect(body.tools).toBeUndefined();
    expect(body.messages[1].content[1]).toEqual({
      type: "text",
      text: "(image omitted: this model does not accept images)",
    });
    expect(JSON.stringify(body)).not.toContain("base64");
  });

  it.each([
    ["minimal", "minimal"],
    ["medium", "medium"],
    ["xhigh", "high"],
  ] as const)(
    "sends reasoning %s as reasoning_effort %s and a developer prompt to OpenAI reasoning models",
    async (level, effort) => {
      server.enqueue(streamReply([chunk({ content: "ok" }, "stop")]));
      const before = server.requests.length;
      await collectEvents(
        openai({ baseURL: server.baseURL })(chatModel({ reasoning: true }), context(), { reasoning: level }),
      );
      const body = server.requests[before]!.body;
      expect(body.reasoning_effort).toBe(effort);
      expect(body.messages[0]).toEqual({ role: "developer", content: "You are terse." });
    },
  );

  it("sends no reasoning_effort to non-reasoning models and a system prompt to other providers", async () => {
    server.enqueue(streamReply([chunk({ content: "ok" }, "stop")]));
    const before = server.requests.length;
    await collectEvents(
      openai({ baseURL: server.baseURL })(chatModel({ provider: "vllm", reasoning: false }), context(), {
        reasoning: "high",
      }),
    );
    const body = server.requests[before]!.body;
    expect(body.reasoning_effort).toBeUndefined();
    expect(body.messages[0].role).toBe("system");
  });

  it("uses the per-call API key over the factory's", async () => {
    server.enqueue(streamReply([chunk({ content: "ok" }, "stop")]));
    const before = server.requests.length;
    await collectEvents(
      openai({ baseURL: server.baseURL, apiKey: "sk-factory" })(chatModel(), context(), {
        apiKey: "sk-call",
      }),
    );
    expect(server.requests[before]!.headers.authorization).toBe("Bearer sk-call");
  });

  it("falls back to model.baseUrl and a placeholder key when nothing else is configured", async () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
    try {
      server.enqueue(streamReply([chunk({ content: "ok" }, "stop")]));
      const before = server.requests.length;
      const { final } = await collectEvents(openai()(chatModel({ baseUrl: server.baseURL }), context(), {}));
      expect(final.type).toBe("done");
      expect(server.requests[before]!.headers.authorization).toBe("Bearer not-needed");
    } finally {
      if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
      if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
    }
  });
});

describe("openai chat completions: tools from defineTool", () => {
  it("sends the zod-derived JSON Schema of each tool", async () => {
    const weather = defineTool({
      name: "weather",
      description: "Current weather in a city",
      parameters: z.object({ city: z.string(), unit: z.enum(["C", "F"]).optional() }),
      execute: async () => ({ content: [] }),
    });
    server.enqueue(streamReply([chunk({ content: "ok" }, "stop")]));
    const before = server.requests.length;
    await collectEvents(
      openai({ baseURL: server.baseURL })(chatModel(), context(undefined, { tools: [toToolSpec(weather)] })),
    );
    expect(server.requests[before]!.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "weather",
          description: "Current weather in a city",
          parameters: {
            type: "object",
            properties: { city: { type: "string" }, unit: { type: "string", enum: ["C", "F"] } },
            required: ["city"],
          },
        },
      },
    ]);
  });
});

import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRetryableError } from "../../src/harness/retry-policy.js";
import { openai } from "../../src/openai.js";
import { UNREACHABLE_RETRY_MS } from "../../src/providers/openai/request-retry.js";
import type { AssistantMessage, Message, ToolCall } from "../../src/types/messages.js";
import type { AssistantMessageEvent, LlmContext } from "../../src/types/stream.js";
import { argumentsArePlainData, collectEvents, eventTypes } from "../support/collect-events.js";
import { chatModel, chunk, usageChunk } from "../support/openai-fixtures.js";
import { OpenAITestServer, sseBody, streamReply } from "../support/openai-server.js";

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start();
});
afterAll(() => server.close());

const messages: Message[] = [{ role: "user", content: "hi", timestamp: 1 }];
const context: LlmContext = { systemPrompt: "", messages, tools: [] };
const model = chatModel();

describe("openai provider: HTTP errors and retries", () => {
  it("ends with an error event carrying the status and the server's message", async () => {
    server.enqueue({
      kind: "json",
      status: 400,
      body: { error: { message: "model 'gpt-x' not found", type: "invalid_request_error" } },
    });
    const before = server.requests.length;
    const { events, message } = await collectEvents(openai({ baseURL: server.baseURL })(model, context, {}));
    expect(eventTypes(events)).toEqual(["error"]);
    expect(message).toMatchObject({ stopReason: "error", content: [], api: "openai-chat" });
    expect(message.errorMessage).toContain("400");
    expect(message.errorMessage).toContain("model 'gpt-x' not found");
    expect(server.requests.length - before).toBe(1);
  });

  it("retries 429 (retry-after: 0) through the SDK and then streams the reply", async () => {
    server.enqueue(
      {
        kind: "json",
        status: 429,
        headers: { "retry-after": "0" },
        body: { error: { message: "slow down" } },
      },
      streamReply([chunk({ content: "finally" }, "stop")]),
    );
    const before = server.requests.length;
    const { final, message } = await collectEvents(
      openai({ baseURL: server.baseURL, maxRetries: 2 })(model, context, {}),
    );
    expect(final.type).toBe("done");
    expect(message.content).toEqual([{ type: "text", text: "finally" }]);
    expect(server.requests.length - before).toBe(2);
  });

  it("gives up after maxRetries 5xx answers and reports the last one", async () => {
    const failure = {
      kind: "json",
      status: 503,
      headers: { "retry-after-ms": "1" },
      body: { error: { message: "overloaded" } },
    } as const;
    server.enqueue(failure, failure);
    const before = server.requests.length;
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL, maxRetries: 1 })(model, context, {}),
    );
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/503.*overloaded/);
    expect(server.requests.length - before).toBe(2);
  });

  it("lets options.maxRetries override the factory's", async () => {
    server.enqueue({
      kind: "json",
      status: 500,
      headers: { "retry-after-ms": "1" },
      body: { error: { message: "boom" } },
    });
    const before = server.requests.length;
    const streamFn = openai({ baseURL: server.baseURL, maxRetries: 5 });
    const { message } = await collectEvents(streamFn(model, context, { maxRetries: 0 }));
    expect(message.errorMessage).toMatch(/500.*boom/);
    expect(server.requests.length - before).toBe(1);
  });
});

describe("openai provider: broken streams", () => {
  it("keeps the partial text when the connection is reset mid-stream", async () => {
    server.enqueue(
      streamReply([chunk({ content: "Half a sen" }), chunk({ content: "tence" })], {
        done: false,
        ending: "reset",
      }),
    );
    const { message, final } = await collectEvents(
      openai({ baseURL: server.baseURL, maxRetries: 0 })(model, context, {}),
    );
    expect(final).toMatchObject({ type: "error", reason: "error" });
    expect(message.content).toEqual([{ type: "text", text: "Half a sentence" }]);
    expect(message.errorMessage).toMatch(/connection|terminated|closed/i);
  });

  it("reports garbage SSE data as a malformed stream", async () => {
    server.enqueue({
      kind: "stream",
      pieces: [sseBody([chunk({ content: "ok so far" })], { done: false }), "data: {this is not json\n\n"],
    });
    const { message } = await collectEvents(openai({ baseURL: server.baseURL })(model, context, {}));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/malformed stream event/);
    expect(message.content).toEqual([{ type: "text", text: "ok so far" }]);
  });

  it("reports an error object sent inside the stream", async () => {
    server.enqueue({
      kind: "stream",
      pieces: [
        sseBody([chunk({ content: "a" }), { error: { message: "GPU fell over", code: 503 } }], {
          done: false,
        }),
      ],
    });
    const { message } = await collectEvents(openai({ baseURL: server.baseURL })(model, context, {}));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("GPU fell over");
  });

  it.each([
    ['{"choices":[null]}', "choices[0] is null"],
    ['{"choices":{"index":0}}', "`choices` is not a list"],
    ['{"choices":[{"index":0,"delta":"hi"}]}', "`delta` is not an object"],
    ['{"choices":[{"index":0,"delta":{"tool_calls":[7]}}]}', "tool_calls[0] is 7"],
    ["null", 'expected a JSON object, got "null"'],
  ])("reports the malformed chunk %s in plain words, not as a TypeError", async (data, problem) => {
    server.enqueue({
      kind: "stream",
      pieces: [sseBody([chunk({ content: "so far" })], { done: false }), `data: ${data}\n\n`],
    });
    const { message } = await collectEvents(openai({ baseURL: server.baseURL })(model, context, {}));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain(`openai sent a malformed stream event: ${problem}`);
    expect(message.errorMessage).not.toMatch(/TypeError|Cannot read|undefined/);
    expect(message.content).toEqual([{ type: "text", text: "so far" }]);
  });

  it("says what the body was when a reply held no stream events", async () => {
    const page = `<html><head><title>502 Bad Gateway</title></head><body>${"nginx ".repeat(100)}</body></html>`;
    server.enqueue({ kind: "stream", headers: { "content-type": "text/html" }, pieces: [page] });
    const { message } = await collectEvents(openai({ baseURL: server.baseURL })(model, context, {}));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(
      `openai sent a reply without stream events; it began: ${JSON.stringify(`${page.slice(0, 300)}…`)}`,
    );
  });

  it("keeps the old message for an empty body", async () => {
    server.enqueue({ kind: "stream", pieces: [] });
    const { message } = await collectEvents(openai({ baseURL: server.baseURL })(model, context, {}));
    expect(message.errorMessage).toMatch(/ended before the server sent a finish reason/);
  });

  it("treats a stream that ends without a finish reason as an error", async () => {
    server.enqueue(streamReply([chunk({ content: "cut" })]));
    const { message } = await collectEvents(openai({ baseURL: server.baseURL })(model, context, {}));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/ended before the server sent a finish reason/);
  });

  it("ends a tool call with malformed JSON arguments marked as invalid, and the reply normally", async () => {
    server.enqueue(
      streamReply([
        chunk({ tool_calls: [{ index: 0, id: "call_ok", function: { name: "a", arguments: '{"x":1}' } }] }),
        chunk({
          tool_calls: [{ index: 1, id: "call_bad", function: { name: "b", arguments: '{"x": tru' } }],
        }),
        chunk({ tool_calls: [{ index: 2, id: "call_list", function: { name: "c", arguments: "[1]" } }] }),
        chunk({}, "tool_calls"),
      ]),
    );
    const { events, message, final } = await collectEvents(
      openai({ baseURL: server.baseURL })(model, context, {}),
    );
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    expect(message.errorMessage).toBeUndefined();
    const ended = events.filter((event) => event.type === "toolcall_end").map((event) => event.toolCall.id);
    expect(ended).toEqual(["call_ok", "call_bad", "call_list"]);
    const [ok, bad, list] = message.content as ToolCall[];
    expect(ok).toEqual({ type: "toolCall", id: "call_ok", name: "a", arguments: { x: 1 } });
    expect(bad).toMatchObject({ id: "call_bad", arguments: {}, invalidArguments: { raw: '{"x": tru' } });
    expect(bad!.invalidArguments!.error).toMatch(/JSON/);
    expect(list).toMatchObject({
      arguments: {},
      invalidArguments: { raw: "[1]", error: "arguments must be a JSON object" },
    });
  });

  it("accepts truncated tool-call JSON when the reply stopped at length", async () => {
    server.enqueue(
      streamReply([
        chunk({
          tool_calls: [{ index: 0, id: "call_long", function: { name: "write", arguments: '{"text":"lor' } }],
        }),
        chunk({}, "length"),
        usageChunk(5, 100),
      ]),
    );
    const { message, final } = await collectEvents(openai({ baseURL: server.baseURL })(model, context, {}));
    expect(final).toMatchObject({ type: "done", reason: "length" });
    expect(message.content).toEqual([{ type: "toolCall", id: "call_long", name: "write", arguments: {} }]);
  });
});

describe("openai provider: abort and timeouts", () => {
  it("cancels the HTTP request on abort and keeps the partial content", async () => {
    server.enqueue(
      streamReply([chunk({ content: "Streaming for" }), chunk({ content: "ever" })], {
        done: false,
        ending: "hang",
      }),
    );
    const index = server.requests.length;
    const controller = new AbortController();
    const events: AssistantMessageEvent[] = [];
    for await (const event of openai({ baseURL: server.baseURL })(model, context, {
      signal: controller.signal,
    })) {
      events.push(event);
      if (event.type === "text_delta" && event.delta === "ever") controller.abort();
    }
    const final = events.at(-1);
    expect(final).toMatchObject({ type: "error", reason: "aborted" });
    const message = final?.type === "error" ? final.error : undefined;
    expect(message).toMatchObject({
      stopReason: "aborted",
      content: [{ type: "text", text: "Streaming forever" }],
    });
    await server.request(index).then((request) => request.closed);
  });

  it("leaves tool calls of plain data behind when aborted, or when the consumer stops, mid-arguments", async () => {
    const cutMidArguments = () =>
      streamReply(
        [
          chunk({
            tool_calls: [{ index: 0, id: "call_r", function: { name: "read", arguments: '{"path":"src/' } }],
          }),
        ],
        { done: false, ending: "hang" },
      );
    server.enqueue(cutMidArguments(), cutMidArguments());
    const controller = new AbortController();
    let shown: unknown;
    const aborted = await collectEvents(
      openai({ baseURL: server.baseURL })(model, context, { signal: controller.signal }),
      (event) => {
        if (event.type !== "toolcall_delta") return;
        shown = structuredClone((event.partial.content[0] as ToolCall).arguments);
        controller.abort();
      },
    );
    expect(shown).toEqual({ path: "src/" });
    expect(aborted.final).toMatchObject({ type: "error", reason: "aborted" });
    expect(aborted.message.content).toEqual([
      { type: "toolCall", id: "call_r", name: "read", arguments: { path: "src/" } },
    ]);
    expect(argumentsArePlainData(aborted.message)).toBe(true);

    let partial: AssistantMessage | undefined;
    for await (const event of openai({ baseURL: server.baseURL })(model, context, {})) {
      if (event.type === "toolcall_delta") {
        partial = event.partial;
        break;
      }
    }
    expect(partial?.content).toEqual([
      { type: "toolCall", id: "call_r", name: "read", arguments: { path: "src/" } },
    ]);
    expect(argumentsArePlainData(partial!)).toBe(true);
  });

  it("aborts while waiting for the response headers", async () => {
    server.enqueue({ kind: "stream", pieces: [], ending: "hang" });
    const index = server.requests.length;
    const controller = new AbortController();
    const reply = collectEvents(
      openai({ baseURL: server.baseURL })(model, context, { signal: controller.signal }),
    );
    const request = await server.request(index);
    controller.abort();
    const { events, message } = await reply;
    expect(eventTypes(events)).toEqual(["error"]);
    expect(message.stopReason).toBe("aborted");
    await request.closed;
  });

  it("aborts promptly while waiting out a long retry-after", async () => {
    server.enqueue({
      kind: "json",
      status: 429,
      headers: { "retry-after": "30" },
      body: { error: { message: "later" } },
    });
    let resolveConsumed: () => void = () => {};
    const consumed = new Promise<void>((resolve) => {
      resolveConsumed = resolve;
    });
    // The provider reads the 429's body for its message, then waits `retry-after`; this fetch wrapper
    // reports the moment the body has been read to its end.
    const client = new OpenAI({
      baseURL: server.baseURL,
      apiKey: "sk-test",
      maxRetries: 1,
      logLevel: "off",
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (response.status !== 429) return response;
        const bytes = new TextEncoder().encode(await response.text());
        let sent = false;
        const body = new ReadableStream({
          pull: (controller) => {
            if (sent) {
              controller.close();
              resolveConsumed();
              return;
            }
            sent = true;
            controller.enqueue(bytes);
          },
        });
        return new Response(body, { status: response.status, headers: response.headers });
      },
    });
    const controller = new AbortController();
    const before = server.requests.length;
    const started = Date.now();
    const reply = collectEvents(openai({ client })(model, context, { signal: controller.signal }));
    await consumed;
    // One macrotask lets the pending microtasks run up to the 30 s wait.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const { message } = await reply;
    expect(message.stopReason).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests.length - before).toBe(1);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const before = server.requests.length;
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL })(model, context, { signal: AbortSignal.abort() }),
    );
    expect(message.stopReason).toBe("aborted");
    expect(server.requests.length).toBe(before);
  });

  it("times out when the response headers never come (timeoutMs)", async () => {
    server.enqueue({ kind: "stream", pieces: [], ending: "hang" });
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL, timeoutMs: 150, maxRetries: 0 })(model, context, {}),
    );
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/timed out/);
  });

  it("cancels a stream that goes silent for timeoutMs and keeps what arrived", async () => {
    server.enqueue(streamReply([chunk({ content: "then silence" })], { done: false, ending: "hang" }));
    const index = server.requests.length;
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL })(model, context, { timeoutMs: 150 }),
    );
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/no data for 150 ms/);
    expect(message.content).toEqual([{ type: "text", text: "then silence" }]);
    await (await server.request(index)).closed;
  });

  it("cancels the request when the consumer stops iterating early", async () => {
    server.enqueue(
      streamReply([chunk({ content: "one" }), chunk({ content: "two" })], { done: false, ending: "hang" }),
    );
    const index = server.requests.length;
    for await (const event of openai({ baseURL: server.baseURL })(model, context, {})) {
      if (event.type === "text_delta") break;
    }
    await (await server.request(index)).closed;
  });
});

describe("openai provider: hooks", () => {
  it("lets an async onPayload replace the request body and reports the response to onResponse", async () => {
    server.enqueue({
      kind: "stream",
      headers: { "x-request-id": "req_42" },
      pieces: [sseBody([chunk({ content: "hooked" }, "stop")])],
    });
    const before = server.requests.length;
    const seen: unknown[] = [];
    const responses: { status: number; headers: Record<string, string> }[] = [];
    const { final } = await collectEvents(
      openai({ baseURL: server.baseURL })(model, context, {
        onPayload: async (payload, hookModel) => {
          seen.push(payload, hookModel.id);
          return { ...(payload as object), max_tokens: 7, custom_field: "yes" };
        },
        onResponse: (response) => {
          responses.push(response);
        },
      }),
    );
    expect(final.type).toBe("done");
    expect(seen[0]).toMatchObject({ model: "gpt-test", stream: true });
    expect(seen[1]).toBe("gpt-test");
    expect(server.requests[before]!.body).toMatchObject({
      max_tokens: 7,
      custom_field: "yes",
      model: "gpt-test",
    });
    expect(responses).toHaveLength(1);
    expect(responses[0]!.status).toBe(200);
    expect(responses[0]!.headers["x-request-id"]).toBe("req_42");
    expect(responses[0]!.headers["content-type"]).toBe("text/event-stream");
  });

  it("keeps the body when onPayload returns undefined", async () => {
    server.enqueue(streamReply([chunk({ content: "same" }, "stop")]));
    const before = server.requests.length;
    await collectEvents(openai({ baseURL: server.baseURL })(model, context, { onPayload: () => undefined }));
    expect(server.requests[before]!.body.stream_options).toEqual({ include_usage: true });
  });

  it("turns a throwing hook into an error event", async () => {
    const before = server.requests.length;
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL })(model, context, {
        onPayload: () => {
          throw new Error("payload rejected by policy");
        },
      }),
    );
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("payload rejected by policy");
    expect(server.requests.length).toBe(before);
  });
});

describe("openai provider: failure paths leave no unhandled rejection", () => {
  it("settles every failure scenario without an unhandledRejection", async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", record);
    try {
      const streamFn = openai({ baseURL: server.baseURL, maxRetries: 0 });
      server.enqueue(
        { kind: "json", status: 500, body: { error: { message: "down" } } },
        streamReply([chunk({ content: "x" })], { done: false, ending: "reset" }),
        { kind: "stream", pieces: ["data: nope\n\n"] },
        streamReply([chunk({ content: "y" })], { done: false, ending: "hang" }),
      );
      const controller = new AbortController();
      const results = await Promise.all([
        collectEvents(streamFn(model, context, {})),
        collectEvents(streamFn(model, context, {})),
        collectEvents(streamFn(model, context, {})),
        collectEvents(
          streamFn(model, context, {
            signal: controller.signal,
            onResponse: () => {
              controller.abort();
            },
          }),
        ),
        collectEvents(
          streamFn(model, context, { onResponse: () => Promise.reject(new Error("observer failed")) }),
        ),
      ]);
      for (const { final } of results) expect(final.type).toBe("error");
      // unhandledRejection is emitted after the microtask queue drains; let two macrotasks pass.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", record);
    }
  });
});

describe("openai provider: unreachable server", () => {
  it("fails after one quick retry with a hint naming the URL, and the harness does not retry it", async () => {
    const closed = await OpenAITestServer.start();
    const baseURL = closed.baseURL;
    await closed.close();
    let attempts = 0;
    const client = new OpenAI({
      baseURL,
      apiKey: "sk-test",
      logLevel: "off",
      fetch: (url, init) => {
        attempts++;
        return fetch(url, init);
      },
    });
    const started = Date.now();
    // The SDK's default of 2 retries applies, yet a refused connection is retried only once.
    const { message, events } = await collectEvents(openai({ client })(model, context));
    const elapsed = Date.now() - started;
    expect(eventTypes(events)).toEqual(["error"]);
    expect(message.errorMessage).toBe(
      `openai could not connect to ${baseURL} (fetch failed: connect ECONNREFUSED ${new URL(baseURL).host}): is the server running?`,
    );
    expect(attempts).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(UNREACHABLE_RETRY_MS);
    expect(elapsed).toBeLessThan(1_500);
    expect(isRetryableError(message)).toBe(false);
  });

  it("does not retry a refused connection when maxRetries is 0", async () => {
    const closed = await OpenAITestServer.start();
    const baseURL = closed.baseURL;
    await closed.close();
    const { message } = await collectEvents(openai({ baseURL, maxRetries: 0 })(model, context));
    expect(message.errorMessage).toMatch(/could not connect to .*ECONNREFUSED.*is the server running\?/);
  });

  it("names an unknown host (DNS failure) the same way", async () => {
    // No DNS lookup leaves the machine: the fetch fails the way undici reports getaddrinfo's ENOTFOUND.
    const baseURL = "http://model-server.internal:8080/v1";
    let attempts = 0;
    const client = new OpenAI({
      baseURL,
      apiKey: "sk-test",
      logLevel: "off",
      fetch: async () => {
        attempts++;
        const cause = Object.assign(new Error("getaddrinfo ENOTFOUND model-server.internal"), {
          code: "ENOTFOUND",
        });
        throw new TypeError("fetch failed", { cause });
      },
    });
    const { message } = await collectEvents(openai({ client, maxRetries: 3 })(model, context));
    expect(message.errorMessage).toBe(
      "openai could not connect to http://model-server.internal:8080/v1 (fetch failed: getaddrinfo ENOTFOUND model-server.internal): is the server running?",
    );
    expect(attempts).toBe(2);
    expect(isRetryableError(message)).toBe(false);
  });
});

describe("openai provider: client setup failures", () => {
  it("reports a failing client setup as an error event instead of throwing", async () => {
    const client = new OpenAI({ apiKey: "sk-base", baseURL: server.baseURL });
    client.withOptions = () => {
      throw new Error("cannot derive a client");
    };
    const streamFn = openai({ client });
    const source = streamFn(model, context, { apiKey: "sk-other" });
    const { events, message } = await collectEvents(source);
    expect(eventTypes(events)).toEqual(["error"]);
    expect(message.errorMessage).toContain("cannot derive a client");
  });
});

import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fromAiSdk } from "../../src/ai-sdk.js";
import type { StreamOptions } from "../../src/types/stream.js";
import { askContext } from "../support/ai-sdk-models.js";
import { collectEvents } from "../support/collect-events.js";

// `runAiSdkStream` through `fromAiSdk` on a hand-written V3 model: the request hooks, aborts at
// each stage, what is cleaned up after a reply, and the retries of a first request.

const URL = "http://127.0.0.1:9/v1/messages";
const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } } as LanguageModelV3Usage;
const textParts: LanguageModelV3StreamPart[] = [
  { type: "text-start", id: "0" },
  { type: "text-delta", id: "0", delta: "Hi." },
  { type: "text-end", id: "0" },
  { type: "finish", finishReason: { unified: "stop", raw: "end_turn" }, usage },
];

function partsStream(parts: LanguageModelV3StreamPart[]): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/** A V3 model whose `doStream` is `reply`, recording the call options of every call. */
function modelOf(
  reply: (options: LanguageModelV3CallOptions, call: number) => Promise<LanguageModelV3StreamResult>,
) {
  const calls: LanguageModelV3CallOptions[] = [];
  const languageModel: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: "anthropic.messages",
    modelId: "test-model",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: (options) => {
      calls.push(options);
      return reply(options, calls.length);
    },
  };
  return { languageModel, calls };
}

function run(
  languageModel: LanguageModelV3,
  options: StreamOptions = {},
  maxRetries = 0,
  onEvent?: Parameters<typeof collectEvents>[1],
) {
  const { model, streamFn } = fromAiSdk(languageModel, { maxRetries });
  return collectEvents(streamFn(model, askContext(), options), onEvent);
}

/** A stream that sends one text delta, then closes (or fails, with `failOnAbort`) once `signal` aborts. */
function cutByAbort(
  signal: AbortSignal | undefined,
  failOnAbort: boolean,
): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue({ type: "text-start", id: "0" });
      controller.enqueue({ type: "text-delta", id: "0", delta: "partial" });
      signal?.addEventListener("abort", () => {
        if (failOnAbort) controller.error(new Error("socket closed"));
        else controller.close();
      });
    },
  });
}

const unreachable = () =>
  new APICallError({
    message: "Cannot connect to API",
    url: URL,
    requestBodyValues: {},
    cause: new Error("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }),
    }),
  });
const badRequest = () =>
  new APICallError({
    message: "Bad request",
    url: URL,
    requestBodyValues: {},
    statusCode: 400,
    isRetryable: false,
  });
const overloaded = () =>
  new APICallError({
    message: "Overloaded",
    url: URL,
    requestBodyValues: {},
    statusCode: 529,
    isRetryable: true,
    responseHeaders: { "retry-after-ms": "30000" },
  });

afterEach(() => {
  vi.useRealTimers();
});

describe("runAiSdkStream: request hooks", () => {
  it("an onPayload that returns nothing leaves the call options as they were", async () => {
    const { languageModel, calls } = modelOf(async () => ({ stream: partsStream(textParts) }));
    const { final } = await run(languageModel, { onPayload: () => undefined });
    expect(final.type).toBe("done");
    expect(calls[0]?.prompt.at(-1)).toMatchObject({ role: "user", content: [{ type: "text", text: "hi" }] });
  });

  it("onResponse sees status 200 and the response headers, or none when the model reports no response", async () => {
    const seen: { status: number; headers: Record<string, string> }[] = [];
    const onResponse = (response: { status: number; headers: Record<string, string> }) => {
      seen.push(response);
    };
    const withHeaders = modelOf(async () => ({
      stream: partsStream(textParts),
      response: { headers: { "request-id": "req_1" } },
    }));
    expect((await run(withHeaders.languageModel, { onResponse })).final.type).toBe("done");
    const without = modelOf(async () => ({ stream: partsStream(textParts) }));
    expect((await run(without.languageModel, { onResponse })).final.type).toBe("done");
    expect(seen).toEqual([
      { status: 200, headers: { "request-id": "req_1" } },
      { status: 200, headers: {} },
    ]);
  });

  it("a finished reply has no error message", async () => {
    const { languageModel } = modelOf(async () => ({ stream: partsStream(textParts) }));
    const { final, message } = await run(languageModel);
    expect(final.type).toBe("done");
    expect(message.errorMessage).toBeUndefined();
  });
});

describe("runAiSdkStream: aborts and clean-up", () => {
  it("a signal aborted before the call ends the reply as aborted", async () => {
    const { languageModel } = modelOf(async () => ({ stream: partsStream(textParts) }));
    const user = new AbortController();
    user.abort();
    const { final, message } = await run(languageModel, { signal: user.signal });
    expect(final).toMatchObject({ type: "error", reason: "aborted" });
    expect(message.errorMessage).toBe("Request was aborted");
  });

  for (const failOnAbort of [false, true]) {
    it(`an abort mid-reply whose stream then ${failOnAbort ? "fails" : "just ends"} keeps the partial text`, async () => {
      const { languageModel } = modelOf(async (options) => ({
        stream: cutByAbort(options.abortSignal, failOnAbort),
      }));
      const user = new AbortController();
      const { final, message } = await run(languageModel, { signal: user.signal }, 0, (event) => {
        if (event.type === "text_delta") user.abort();
      });
      expect(final).toMatchObject({ type: "error", reason: "aborted" });
      expect(message.errorMessage).toBe("Request was aborted");
      expect(message.content).toEqual([{ type: "text", text: "partial" }]);
    });
  }

  it("after a reply, the model's request signal is aborted and the caller's signal holds no listener", async () => {
    const { languageModel, calls } = modelOf(async () => ({ stream: partsStream(textParts) }));
    const user = new AbortController();
    const added: unknown[] = [];
    const removed: unknown[] = [];
    const add = user.signal.addEventListener.bind(user.signal);
    const remove = user.signal.removeEventListener.bind(user.signal);
    vi.spyOn(user.signal, "addEventListener").mockImplementation((type, listener, options) => {
      added.push(listener);
      add(type, listener, options);
    });
    vi.spyOn(user.signal, "removeEventListener").mockImplementation((type, listener, options) => {
      if (type === "abort") removed.push(listener);
      remove(type, listener, options);
    });
    const { final } = await run(languageModel, { signal: user.signal });
    expect(final.type).toBe("done");
    expect(calls[0]?.abortSignal?.aborted).toBe(true);
    expect(added).toHaveLength(1);
    expect(removed).toEqual(added);
  });
});

describe("runAiSdkStream: retries of the first request", () => {
  /** Unreachable `unreachableCalls` times, then a 400 (so that a run that keeps retrying ends). */
  const failing = (unreachableCalls: number) =>
    modelOf(async (_options, call) => {
      throw call <= unreachableCalls ? unreachable() : badRequest();
    });

  it("an unreachable server without retries is one call, reported as unreachable", async () => {
    const { languageModel, calls } = failing(3);
    const { message } = await run(languageModel, {}, 0);
    expect(calls).toHaveLength(1);
    expect(message.errorMessage).toBe(
      `anthropic could not connect to ${URL} (fetch failed: connect ECONNREFUSED 127.0.0.1:9): is the server running?`,
    );
  });

  it("an unreachable server is retried once, however many retries are allowed", async () => {
    const { languageModel, calls } = failing(3);
    const { message } = await run(languageModel, {}, 3);
    expect(calls).toHaveLength(2);
    expect(message.errorMessage).toMatch(/^anthropic could not connect to /);
  });

  it("waits as the server's retry-after-ms asks before retrying", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { languageModel, calls } = modelOf(async (_options, call) => {
      if (call === 1) throw overloaded();
      return { stream: partsStream(textParts) };
    });
    const reply = run(languageModel, {}, 2);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await reply).final.type).toBe("done");
    expect(calls).toHaveLength(2);
  });

  it("a retryable error without response headers is retried after the backoff", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { languageModel, calls } = modelOf(async (_options, call) => {
      if (call === 1) {
        throw new APICallError({
          message: "Overloaded",
          url: URL,
          requestBodyValues: {},
          statusCode: 529,
          isRetryable: true,
        });
      }
      return { stream: partsStream(textParts) };
    });
    const reply = run(languageModel, {}, 2);
    // the first backoff is at most half a second
    await vi.advanceTimersByTimeAsync(500);
    expect((await reply).final.type).toBe("done");
    expect(calls).toHaveLength(2);
  });

  it("an abort during the wait ends the reply as aborted without another call", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { languageModel, calls } = modelOf(async (_options, call) => {
      if (call === 1) throw overloaded();
      return { stream: partsStream(textParts) };
    });
    const user = new AbortController();
    const reply = run(languageModel, { signal: user.signal }, 2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toHaveLength(1);
    user.abort();
    const { final } = await reply;
    expect(final).toMatchObject({ type: "error", reason: "aborted" });
    expect(calls).toHaveLength(1);
  });
});

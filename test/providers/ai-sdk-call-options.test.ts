import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { fromAiSdk } from "../../src/ai-sdk.js";
import { askContext, recordingV3Model } from "../support/ai-sdk-models.js";
import { collectEvents, eventTypes } from "../support/collect-events.js";

const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };
const finish = (
  unified: "stop" | "length" | "content-filter" = "stop",
  raw?: string,
): LanguageModelV3StreamPart =>
  ({ type: "finish", finishReason: { unified, raw }, usage }) as LanguageModelV3StreamPart;

/** A V3 model that records its call options and streams `parts` (or fails with `failure` every time). */
const recordingV3 = (provider: string, parts: LanguageModelV3StreamPart[], failure?: unknown) =>
  recordingV3Model(provider, () => parts, failure);

describe("fromAiSdk: the call options of a request", () => {
  it("passes maxTokens, temperature and headers only when given, and tools only when there are some", async () => {
    const { model, calls } = recordingV3("mistral.chat", [finish()]);
    const { model: record, streamFn } = fromAiSdk(model, { maxRetries: 0 });
    await collectEvents(streamFn(record, askContext()));
    expect(Object.keys(calls[0]!).sort()).toEqual(["abortSignal", "prompt"]);
    const tool = { name: "ls", description: "List", parameters: { type: "object" } };
    await collectEvents(
      streamFn(
        record,
        { ...askContext(), tools: [tool] },
        { maxTokens: 50, temperature: 0, headers: { "x-a": "1" } },
      ),
    );
    expect(calls[1]).toMatchObject({ maxOutputTokens: 50, temperature: 0, headers: { "x-a": "1" } });
    expect(calls[1]?.tools).toEqual([
      { type: "function", name: "ls", description: "List", inputSchema: tool.parameters },
    ]);
  });

  it("merges the factory's provider options with the thinking options, per provider", async () => {
    const { model, calls } = recordingV3("anthropic.messages", [finish()]);
    const { streamFn } = fromAiSdk(model, {
      maxRetries: 0,
      cacheRetention: "none",
      providerOptions: { anthropic: { disableParallelToolUse: true }, other: { x: 1 } },
      model: { reasoning: true },
    });
    const record = { id: "test-model", reasoning: true };
    await collectEvents(streamFn(record, askContext(), { reasoning: "low" }));
    expect(calls[0]?.providerOptions).toEqual({
      anthropic: { disableParallelToolUse: true, thinking: { type: "enabled", budgetTokens: 2048 } },
      other: { x: 1 },
    });
    await collectEvents(streamFn(record, askContext()));
    expect(calls[1]?.providerOptions).toEqual({
      anthropic: { disableParallelToolUse: true },
      other: { x: 1 },
    });
    const plain = recordingV3("anthropic.messages", [finish()]);
    await collectEvents(
      fromAiSdk(plain.model, { maxRetries: 0 }).streamFn(record, askContext(), { reasoning: "low" }),
    );
    expect(plain.calls[0]?.providerOptions).toEqual({
      anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } },
    });
  });

  it("caches Anthropic prompts by default, other providers' not, and follows cacheRetention", async () => {
    const system = (calls: LanguageModelV3CallOptions[]) => calls[0]?.prompt[0]?.providerOptions;
    const anthropic = recordingV3("anthropic.messages", [finish()]);
    await collectEvents(fromAiSdk(anthropic.model, { maxRetries: 0 }).streamFn("test-model", askContext()));
    expect(system(anthropic.calls)).toEqual({ anthropic: { cacheControl: { type: "ephemeral" } } });
    const off = recordingV3("anthropic.messages", [finish()]);
    await collectEvents(
      fromAiSdk(off.model, { maxRetries: 0, cacheRetention: "none" }).streamFn("test-model", askContext()),
    );
    expect(system(off.calls)).toBeUndefined();
    const google = recordingV3("google.generative-ai", [finish()]);
    await collectEvents(fromAiSdk(google.model, { maxRetries: 0 }).streamFn("test-model", askContext()));
    expect(system(google.calls)).toBeUndefined();
  });

  it("retries a retryable first request twice unless told otherwise", async () => {
    const overloaded = () =>
      new APICallError({
        message: "Overloaded",
        url: "http://127.0.0.1:9/v1/messages",
        requestBodyValues: {},
        statusCode: 529,
        responseHeaders: { "retry-after-ms": "0" },
        isRetryable: true,
      });
    const { model, calls } = recordingV3("anthropic.messages", [], overloaded());
    const { message } = await collectEvents(fromAiSdk(model).streamFn("test-model", askContext()));
    expect(message.errorMessage).toBe("anthropic API error 529 Overloaded");
    expect(calls).toHaveLength(3);
  });
});

describe("StreamPartHandler: parts that end or sign blocks", () => {
  const stream = async (parts: LanguageModelV3StreamPart[]) => {
    const { model } = recordingV3("anthropic.messages", parts);
    return collectEvents(fromAiSdk(model, { maxRetries: 0 }).streamFn("test-model", askContext()));
  };

  it("ends a text or reasoning block at its end part, so the same id starts a new block", async () => {
    const { message } = await stream([
      { type: "text-start", id: "1" },
      { type: "text-delta", id: "1", delta: "a" },
      { type: "text-end", id: "1" },
      { type: "text-start", id: "1" },
      { type: "text-delta", id: "1", delta: "b" },
      { type: "text-end", id: "1" },
      { type: "reasoning-start", id: "2" },
      { type: "reasoning-delta", id: "2", delta: "c" },
      { type: "reasoning-end", id: "2" },
      { type: "reasoning-start", id: "2" },
      { type: "reasoning-delta", id: "2", delta: "d" },
      { type: "reasoning-end", id: "2" },
      finish(),
    ]);
    expect(message.content).toStrictEqual([
      { type: "text", text: "a" },
      { type: "text", text: "b" },
      { type: "thinking", thinking: "c" },
      { type: "thinking", thinking: "d" },
    ]);
  });

  it("opens no block for reasoning without text or signature, and sets no signature it did not get", async () => {
    const { message, events } = await stream([
      { type: "reasoning-start", id: "0" },
      { type: "reasoning-end", id: "0" },
      { type: "text-start", id: "1" },
      { type: "text-delta", id: "1", delta: "Hi" },
      { type: "text-end", id: "1" },
      { type: "tool-call", toolCallId: "c1", toolName: "ls", input: "{}" },
      finish(),
    ]);
    expect(message.content).toStrictEqual([
      { type: "text", text: "Hi" },
      { type: "toolCall", id: "c1", name: "ls", arguments: {} },
    ]);
    expect(eventTypes(events)).not.toContain("thinking_start");
  });

  it("leaves out a whole call the provider ran itself", async () => {
    const { message } = await stream([
      { type: "tool-call", toolCallId: "srv_1", toolName: "web_search", input: "{}", providerExecuted: true },
      { type: "text-start", id: "1" },
      { type: "text-delta", id: "1", delta: "Found it." },
      finish(),
    ]);
    expect(message.content).toStrictEqual([{ type: "text", text: "Found it." }]);
  });

  it("ends with length for a cut reply, and names the content filter without a raw reason", async () => {
    const cut = await stream([
      { type: "text-start", id: "1" },
      { type: "text-delta", id: "1", delta: "x" },
      finish("length"),
    ]);
    expect(cut.final).toMatchObject({ type: "done", reason: "length" });
    const filtered = await stream([finish("content-filter")]);
    expect(filtered.message.errorMessage).toBe("anthropic the provider's content filter stopped the reply");
  });
});

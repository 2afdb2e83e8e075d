import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { fromAiSdk } from "../../src/ai-sdk.js";
import { isRetryableError } from "../../src/harness/retry-policy.js";
import type { Message } from "../../src/types/messages.js";
import { askContext, recordingV3Model } from "../support/ai-sdk-models.js";
import { collectEvents } from "../support/collect-events.js";

// The part-by-part mapping, on a hand-written V3 model that streams the given parts and records
// the call options it was given (the recorded-stream tests cover the real provider packages).

const scriptedV3 = (provider: string, ...replies: LanguageModelV3StreamPart[][]) =>
  recordingV3Model(provider, (call) => replies[call] ?? []);

const usage = {
  inputTokens: { total: 100, noCache: 60, cacheRead: 30, cacheWrite: 10 },
  outputTokens: { total: 20, text: 15, reasoning: 5 },
};
const finish = (
  unified: "stop" | "tool-calls" | "content-filter" | "length" = "stop",
): LanguageModelV3StreamPart => ({
  type: "finish",
  finishReason: { unified, raw: unified === "content-filter" ? "refusal" : undefined },
  usage,
});

describe("AI SDK stream parts as agentchart events", () => {
  it("redacted reasoning becomes a redacted thinking block, and goes back as redactedData", async () => {
    const { model: languageModel, calls } = scriptedV3(
      "anthropic.messages",
      [
        { type: "reasoning-start", id: "0", providerMetadata: { anthropic: { redactedData: "EmwKAhgB" } } },
        { type: "reasoning-end", id: "0" },
        { type: "text-start", id: "1" },
        { type: "text-delta", id: "1", delta: "Done." },
        { type: "text-end", id: "1" },
        finish(),
      ],
      [finish()],
    );
    const { model, streamFn } = fromAiSdk(languageModel, { maxRetries: 0 });
    const { message } = await collectEvents(streamFn(model, askContext()));
    expect(message.content).toEqual([
      { type: "thinking", thinking: "", thinkingSignature: "EmwKAhgB", redacted: true },
      { type: "text", text: "Done." },
    ]);
    expect(message.usage).toMatchObject({
      input: 60,
      cacheRead: 30,
      cacheWrite: 10,
      output: 20,
      totalTokens: 120,
    });

    const next: Message[] = [
      ...askContext().messages,
      message,
      { role: "user", content: "go on", timestamp: 3 },
    ];
    await collectEvents(streamFn(model, askContext(next)));
    const assistant = calls[1]!.prompt.find((entry) => entry.role === "assistant")!;
    expect(assistant.content[0]).toEqual({
      type: "reasoning",
      text: "",
      providerOptions: { anthropic: { redactedData: "EmwKAhgB" } },
    });
  });

  it("reasoning metadata other than a bare signature is kept whole and sent back as provider options", async () => {
    const metadata = { openai: { itemId: "rs_1", reasoningEncryptedContent: "gAAAA" } };
    const { model: languageModel, calls } = scriptedV3(
      "openai.responses",
      [
        { type: "reasoning-start", id: "r", providerMetadata: metadata },
        { type: "reasoning-delta", id: "r", delta: "Thinking." },
        { type: "reasoning-end", id: "r", providerMetadata: metadata },
        finish(),
      ],
      [finish()],
    );
    const { model, streamFn } = fromAiSdk(languageModel);
    const { message } = await collectEvents(streamFn(model, askContext()));
    expect(message.content[0]).toEqual({
      type: "thinking",
      thinking: "Thinking.",
      thinkingSignature: JSON.stringify(metadata),
    });
    await collectEvents(streamFn(model, askContext([...askContext().messages, message])));
    const assistant = calls[1]!.prompt.find((entry) => entry.role === "assistant")!;
    expect(assistant.content[0]).toEqual({ type: "reasoning", text: "Thinking.", providerOptions: metadata });
  });

  it("calls the provider ran itself are not the agent's to run; streamed arguments of its own are", async () => {
    const { model: languageModel } = scriptedV3("anthropic.messages", [
      { type: "tool-input-start", id: "srv_1", toolName: "web_search", providerExecuted: true },
      { type: "tool-input-delta", id: "srv_1", delta: '{"query":"x"}' },
      {
        type: "tool-call",
        toolCallId: "srv_1",
        toolName: "web_search",
        input: '{"query":"x"}',
        providerExecuted: true,
      },
      { type: "tool-input-start", id: "call_1", toolName: "read" },
      { type: "tool-input-delta", id: "call_1", delta: '{"path":' },
      { type: "tool-input-delta", id: "call_1", delta: '"a.txt"}' },
      { type: "tool-input-end", id: "call_1" },
      { type: "tool-call", toolCallId: "call_1", toolName: "read", input: '{"path":"a.txt"}' },
      finish("tool-calls"),
    ]);
    const { model, streamFn } = fromAiSdk(languageModel);
    const { message, events, final } = await collectEvents(streamFn(model, askContext()));
    expect(final).toMatchObject({ type: "done", reason: "toolUse" });
    expect(message.content).toEqual([
      { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } },
    ]);
    expect(events.filter((event) => event.type === "toolcall_delta")).toHaveLength(2);
  });

  it("a reply the content filter stopped, and a stream that ends without finish, are error replies", async () => {
    const { model: filtered } = scriptedV3("anthropic.messages", [
      { type: "text-start", id: "0" },
      { type: "text-delta", id: "0", delta: "I" },
      finish("content-filter"),
    ]);
    const stopped = fromAiSdk(filtered);
    const refused = await collectEvents(stopped.streamFn(stopped.model, askContext()));
    expect(refused.message.errorMessage).toBe(
      "anthropic the provider's content filter stopped the reply (refusal)",
    );
    expect(isRetryableError(refused.message)).toBe(false);

    const { model: cut } = scriptedV3("mistral.chat", [
      { type: "text-start", id: "0" },
      { type: "text-delta", id: "0", delta: "Hal" },
    ]);
    const cutShort = fromAiSdk(cut);
    const { message } = await collectEvents(cutShort.streamFn(cutShort.model, askContext()));
    expect(message).toMatchObject({
      stopReason: "error",
      provider: "mistral",
      content: [{ type: "text", text: "Hal" }],
    });
    expect(message.errorMessage).toBe("mistral stream ended before the reply finished (no finish part)");
    expect(isRetryableError(message)).toBe(true);
  });

  it("onPayload sees the call options and may replace them; typed output asks for JSON with the schema", async () => {
    const { model: languageModel, calls } = scriptedV3("google.generative-ai", [finish()]);
    const { model, streamFn } = fromAiSdk(languageModel);
    const schema = { type: "object", properties: { city: { type: "string" } } };
    await collectEvents(
      streamFn(
        model,
        { ...askContext(), output: { name: "weather", schema, strict: false } },
        { onPayload: (payload) => ({ ...(payload as object), temperature: 0.25 }) },
      ),
    );
    expect(calls[0]).toMatchObject({
      temperature: 0.25,
      responseFormat: { type: "json", schema, name: "weather" },
    });
  });

  it("thinking levels ask each family for its own options, only for reasoning models", async () => {
    const google = scriptedV3("google.generative-ai", [finish()], [finish()]);
    const asGoogle = fromAiSdk(google.model, { model: { reasoning: true } });
    await collectEvents(asGoogle.streamFn(asGoogle.model, askContext(), { reasoning: "high" }));
    expect(google.calls[0]!.providerOptions).toEqual({
      google: { thinkingConfig: { thinkingBudget: 16_384, includeThoughts: true } },
    });
    await collectEvents(
      asGoogle.streamFn({ ...asGoogle.model, reasoning: false }, askContext(), { reasoning: "high" }),
    );
    expect(google.calls[1]!.providerOptions).toBeUndefined();
  });
});

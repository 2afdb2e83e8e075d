import type { LanguageModelV3, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { fromAiSdk } from "../../src/ai-sdk.js";
import { askContext } from "../support/ai-sdk-models.js";
import { collectEvents } from "../support/collect-events.js";

// Stream parts the other AI SDK tests do not send: each finish reason, a signature on `text-start`,
// and the input deltas of a tool the provider runs itself.

const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } } as LanguageModelV3Usage;

function reply(provider: string, parts: LanguageModelV3StreamPart[]) {
  const languageModel: LanguageModelV3 = {
    specificationVersion: "v3",
    provider,
    modelId: "test-model",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    }),
  };
  const { model, streamFn } = fromAiSdk(languageModel, { maxRetries: 0 });
  return collectEvents(streamFn(model, askContext()));
}

const text: LanguageModelV3StreamPart[] = [
  { type: "text-start", id: "0" },
  { type: "text-delta", id: "0", delta: "Hi." },
  { type: "text-end", id: "0" },
];
const finish = (
  unified: "stop" | "tool-calls" | "error" | "other",
  raw?: string,
): LanguageModelV3StreamPart => ({ type: "finish", finishReason: { unified, raw }, usage });

describe("AI SDK finish reasons", () => {
  it("an error finish ends the reply with an error naming the raw reason", async () => {
    const { final, message } = await reply("anthropic.messages", [...text, finish("error", "server_fault")]);
    expect(final).toMatchObject({ type: "error", reason: "error" });
    expect(message.errorMessage).toBe("anthropic the provider ended the reply with an error (server_fault)");
    expect(message.content).toEqual([{ type: "text", text: "Hi." }]);
  });

  it("an error finish without a raw reason says just that", async () => {
    const { message } = await reply("anthropic.messages", [...text, finish("error")]);
    expect(message.errorMessage).toBe("anthropic the provider ended the reply with an error");
  });

  it("a tool-calls finish is a toolUse stop even when no call came through; other reasons are a stop", async () => {
    expect((await reply("anthropic.messages", [...text, finish("tool-calls")])).message.stopReason).toBe(
      "toolUse",
    );
    const other = await reply("anthropic.messages", [...text, finish("other", "pause_turn")]);
    expect(other.final.type).toBe("done");
    expect(other.message.stopReason).toBe("stop");
  });
});

describe("AI SDK parts", () => {
  it("a signature on text-start is kept on the text block", async () => {
    const { message } = await reply("google.generative-ai", [
      { type: "text-start", id: "0", providerMetadata: { google: { thoughtSignature: "sig-start" } } },
      { type: "text-delta", id: "0", delta: "Hi." },
      { type: "text-end", id: "0" },
      finish("stop"),
    ]);
    expect(message.content).toEqual([{ type: "text", text: "Hi.", textSignature: "sig-start" }]);
  });

  it("the input deltas of a tool the provider runs itself make no tool call", async () => {
    const { message, events } = await reply("anthropic.messages", [
      { type: "tool-input-start", id: "srv_1", toolName: "web_search", providerExecuted: true },
      { type: "tool-input-delta", id: "srv_1", delta: '{"query":"x"}' },
      { type: "tool-input-end", id: "srv_1" },
      {
        type: "tool-call",
        toolCallId: "srv_1",
        toolName: "web_search",
        input: '{"query":"x"}',
        providerExecuted: true,
      },
      ...text,
      finish("stop"),
    ]);
    expect(message.content).toEqual([{ type: "text", text: "Hi." }]);
    expect(events.some((event) => event.type.startsWith("toolcall"))).toBe(false);
  });
});

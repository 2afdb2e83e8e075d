import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { IMAGE_OMITTED } from "../../src/providers/message-content.js";
import { TOOL_IMAGES_NOTE, toChatMessages } from "../../src/providers/openai/convert-messages.js";
import { toResponsesInput } from "../../src/providers/openai/convert-responses-input.js";
import { isOutputFormatRejection } from "../../src/providers/openai/structured-output.js";
import { usageFromTokens } from "../../src/providers/openai/usage.js";
import type { AssistantMessage, Message } from "../../src/types/messages.js";
import { emptyUsage } from "../../src/types/messages.js";
import type { LlmContext } from "../../src/types/stream.js";
import { chatModel } from "../support/openai-fixtures.js";

const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
const textOnly = chatModel({ input: ["text"] });
const reply = (content: AssistantMessage["content"]): AssistantMessage => ({
  role: "assistant",
  content,
  api: "openai-chat",
  provider: "openai",
  model: "gpt-test",
  usage: emptyUsage(),
  stopReason: "stop",
  timestamp: 1,
});
const toolResult = (content: (typeof image | { type: "text"; text: string })[]): Message => ({
  role: "toolResult",
  toolCallId: "c1",
  toolName: "screenshot",
  content,
  isError: false,
  timestamp: 1,
});
const context = (messages: Message[], systemPrompt = ""): LlmContext => ({
  systemPrompt,
  messages,
  tools: [],
});

describe("toChatMessages", () => {
  it("sends no system message for an empty prompt, and 'developer' only for OpenAI's own reasoning models", () => {
    expect(toChatMessages(chatModel(), context([]))).toEqual([]);
    expect(toChatMessages(chatModel(), context([], "Be brief."))).toEqual([
      { role: "system", content: "Be brief." },
    ]);
    expect(toChatMessages(chatModel({ reasoning: true }), context([], "Be brief."))[0]?.role).toBe(
      "developer",
    );
    expect(
      toChatMessages(chatModel({ reasoning: true, provider: "xai" }), context([], "Be brief."))[0]?.role,
    ).toBe("system");
  });

  it("skips replies with neither text nor calls, and sends a reply of calls only with null content", () => {
    const call = { type: "toolCall" as const, id: "c1", name: "ls", arguments: { path: "." } };
    const messages = toChatMessages(
      chatModel(),
      context([
        reply([{ type: "thinking", thinking: "hmm" }]),
        reply([call]),
        reply([{ type: "text", text: "Hi" }]),
      ]),
    );
    expect(messages).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }],
      },
      { role: "assistant", content: "Hi" },
    ]);
  });

  it("replaces tool result images with a note for a model that cannot see them", () => {
    const messages = toChatMessages(textOnly, context([toolResult([{ type: "text", text: "shot" }, image])]));
    expect(messages).toEqual([
      { role: "tool", tool_call_id: "c1", content: expect.any(String) },
      {
        role: "user",
        content: [
          { type: "text", text: TOOL_IMAGES_NOTE },
          { type: "text", text: IMAGE_OMITTED },
        ],
      },
    ]);
  });
});

describe("toResponsesInput", () => {
  it("sends a plain user text as one input_text part", () => {
    expect(toResponsesInput(chatModel(), [{ role: "user", content: "Hello", timestamp: 1 }])).toEqual([
      { role: "user", content: [{ type: "input_text", text: "Hello" }] },
    ]);
  });

  it("replaces images with a note for a model that cannot see them, in user messages and tool results", () => {
    const input = toResponsesInput(textOnly, [
      { role: "user", content: [{ type: "text", text: "look" }, image], timestamp: 1 },
      toolResult([{ type: "text", text: "shot" }, image]),
    ]);
    expect(input).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "look" },
          { type: "input_text", text: IMAGE_OMITTED },
        ],
      },
      {
        type: "function_call_output",
        call_id: "c1",
        output: [
          { type: "input_text", text: "shot" },
          { type: "input_text", text: IMAGE_OMITTED },
        ],
      },
    ]);
  });

  it("sends a reply of calls only as its calls, without an empty assistant message", () => {
    const input = toResponsesInput(chatModel(), [
      reply([{ type: "toolCall", id: "c1", name: "ls", arguments: {} }]),
    ]);
    expect(input).toEqual([{ type: "function_call", call_id: "c1", name: "ls", arguments: "{}" }]);
  });
});

describe("isOutputFormatRejection", () => {
  const message =
    "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.";

  it("is true only for an HTTP 400 or 500 APIError", () => {
    expect(isOutputFormatRejection(new APIError(400, undefined, message, new Headers()))).toBe(true);
    expect(isOutputFormatRejection(new APIError(undefined, undefined, message, undefined))).toBe(false);
    expect(isOutputFormatRejection(Object.assign(new Error(message), { status: 400 }))).toBe(false);
  });
});

describe("usageFromTokens", () => {
  it("adds reasoning reported apart only when it exceeds the output, and never counts more cached than prompt tokens", () => {
    const model = chatModel();
    const usage = (tokens: Parameters<typeof usageFromTokens>[0]) => {
      const { input, output, cacheRead } = usageFromTokens(tokens, model);
      return { input, output, cacheRead };
    };
    expect(usage({ promptTokens: 12, cachedTokens: 0, outputTokens: 5, reasoningTokens: 5 })).toEqual({
      input: 12,
      output: 5,
      cacheRead: 0,
    });
    expect(usage({ promptTokens: 12, cachedTokens: 0, outputTokens: 2, reasoningTokens: 340 })).toEqual({
      input: 12,
      output: 342,
      cacheRead: 0,
    });
    expect(usage({ promptTokens: 10, cachedTokens: 15, outputTokens: 1 })).toEqual({
      input: 0,
      output: 1,
      cacheRead: 10,
    });
    expect(usage({ promptTokens: 10, cachedTokens: -3, outputTokens: 1, totalTokens: 20 })).toEqual({
      input: 10,
      output: 10,
      cacheRead: 0,
    });
  });
});

import { describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/index.js";
import { toAiSdkPrompt } from "../../src/providers/ai-sdk/convert-prompt.js";
import { IMAGE_OMITTED } from "../../src/providers/message-content.js";
import type {
  AssistantMessage,
  ImageContent,
  Message,
  TextContent,
  ToolResultMessage,
} from "../../src/types/messages.js";
import type { Model } from "../../src/types/model.js";
import type { LlmContext } from "../../src/types/stream.js";

// `toAiSdkPrompt` directly: the prompt an agent context becomes, message by message, for a model
// that sees images and for one that does not (the provider tests cover the same path end to end).

const target = { api: "anthropic.messages", provider: "anthropic", model: "claude-sonnet-4-5" };
const seeing: Model = {
  id: target.model,
  api: target.api,
  provider: target.provider,
  input: ["text", "image"],
  contextWindow: 200_000,
  maxTokens: 8_000,
};
const blind: Model = { ...seeing, input: ["text"] };
const image: ImageContent = { type: "image", data: "aGk=", mimeType: "image/png" };

function prompt(messages: Message[], model: Model = seeing, systemPrompt = "") {
  const context: LlmContext = { systemPrompt, messages, tools: [] };
  return toAiSdkPrompt(model, context, target, "anthropic");
}

function reply(content: AssistantMessage["content"]): AssistantMessage {
  return { role: "assistant", content, ...target, usage: emptyUsage(), stopReason: "stop", timestamp: 2 };
}

function result(
  toolCallId: string,
  content: (TextContent | ImageContent)[],
  isError = false,
): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName: "look", content, isError, timestamp: 3 };
}

const call = (id: string) => ({ type: "toolCall" as const, id, name: "look", arguments: { at: id } });

describe("toAiSdkPrompt", () => {
  it("a system prompt is the first message; an empty one is left out", () => {
    const user: Message = { role: "user", content: "hi", timestamp: 1 };
    expect(prompt([user], seeing, "Be brief.")).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "hi" }] },
    ]);
    expect(prompt([user])).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  });

  it("a user message without parts is left out", () => {
    expect(
      prompt([
        { role: "user", content: [], timestamp: 1 },
        { role: "user", content: "next", timestamp: 1 },
      ]),
    ).toEqual([{ role: "user", content: [{ type: "text", text: "next" }] }]);
  });

  it("user images are file parts, or the placeholder text for a model that cannot see them", () => {
    const user: Message = { role: "user", content: [{ type: "text", text: "see" }, image], timestamp: 1 };
    expect(prompt([user])).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "see" },
          { type: "file", mediaType: "image/png", data: "aGk=" },
        ],
      },
    ]);
    expect(prompt([user], blind)).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "see" },
          { type: "text", text: IMAGE_OMITTED },
        ],
      },
    ]);
  });

  it("consecutive tool results are one tool message; a result after a user message starts a new one", () => {
    const messages: Message[] = [
      { role: "user", content: "go", timestamp: 1 },
      reply([call("a"), call("b")]),
      result("a", [{ type: "text", text: "A" }]),
      result("b", [{ type: "text", text: "B" }]),
      { role: "user", content: "again", timestamp: 4 },
      reply([call("c")]),
      result("c", [{ type: "text", text: "C" }]),
    ];
    const toolResult = (id: string, value: string) => ({
      type: "tool-result",
      toolCallId: id,
      toolName: "look",
      output: { type: "text", value },
    });
    const toolCall = (id: string) => ({
      type: "tool-call",
      toolCallId: id,
      toolName: "look",
      input: { at: id },
    });
    expect(prompt(messages)).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [toolCall("a"), toolCall("b")] },
      { role: "tool", content: [toolResult("a", "A"), toolResult("b", "B")] },
      { role: "user", content: [{ type: "text", text: "again" }] },
      { role: "assistant", content: [toolCall("c")] },
      { role: "tool", content: [toolResult("c", "C")] },
    ]);
  });

  it("a transcript that opens with a tool result (its call compacted away) starts with a tool message", () => {
    expect(prompt([result("old", [{ type: "text", text: "kept" }])]).map((message) => message.role)).toEqual([
      "tool",
    ]);
  });

  it("a message after a tool message is never merged into it", () => {
    const messages: Message[] = [
      reply([call("a")]),
      result("a", [{ type: "text", text: "A" }]),
      { role: "user", content: "thanks", timestamp: 4 },
    ];
    const roles = prompt(messages).map((message) => message.role);
    expect(roles).toEqual(["assistant", "tool", "user"]);
  });

  it("empty text and empty unsigned thinking are left out of a reply; signed empty thinking stays", () => {
    expect(
      prompt([
        reply([
          { type: "text", text: "" },
          { type: "thinking", thinking: "" },
          { type: "thinking", thinking: "", thinkingSignature: "sig-1" },
          { type: "thinking", thinking: "why", thinkingSignature: "sig-2" },
          { type: "text", text: "answer", textSignature: "sig-3" },
        ]),
      ]),
    ).toEqual([
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "", providerOptions: { anthropic: { signature: "sig-1" } } },
          { type: "reasoning", text: "why", providerOptions: { anthropic: { signature: "sig-2" } } },
          { type: "text", text: "answer", providerOptions: { anthropic: { signature: "sig-3" } } },
        ],
      },
    ]);
  });

  it("unsigned thinking with text is a reasoning part without provider options", () => {
    expect(prompt([reply([{ type: "thinking", thinking: "hmm" }])])).toEqual([
      { role: "assistant", content: [{ type: "reasoning", text: "hmm" }] },
    ]);
  });

  it("a reply left with nothing to send is left out", () => {
    expect(
      prompt([
        { role: "user", content: "hi", timestamp: 1 },
        reply([
          { type: "text", text: "" },
          { type: "thinking", thinking: "" },
        ]),
        { role: "user", content: "hello?", timestamp: 3 },
      ]),
    ).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "user", content: [{ type: "text", text: "hello?" }] },
    ]);
  });

  describe("tool result output", () => {
    const output = (content: (TextContent | ImageContent)[], isError: boolean, model: Model = seeing) => {
      const [assistant, tool] = prompt([reply([call("t")]), result("t", content, isError)], model);
      expect(assistant?.role).toBe("assistant");
      if (tool?.role !== "tool") throw new Error(`expected a tool message, got ${tool?.role}`);
      const [part] = tool.content;
      if (part?.type !== "tool-result") throw new Error(`expected a tool result, got ${part?.type}`);
      return part.output;
    };

    it("text only is a text output", () => {
      expect(output([{ type: "text", text: "sunny" }], false)).toEqual({ type: "text", value: "sunny" });
    });

    it("an error is an error-text output, its images left as the text placeholder", () => {
      expect(output([{ type: "text", text: "boom" }], true)).toEqual({ type: "error-text", value: "boom" });
      expect(output([image], true)).toEqual({ type: "error-text", value: "(see attached image)" });
    });

    it("text and images for a model that sees them are a content output, in order", () => {
      expect(output([{ type: "text", text: "here" }, image], false)).toEqual({
        type: "content",
        value: [
          { type: "text", text: "here" },
          { type: "image-data", data: "aGk=", mediaType: "image/png" },
        ],
      });
    });

    it("for a model that cannot see images, each image is the placeholder line", () => {
      expect(output([{ type: "text", text: "here" }, image], false, blind)).toEqual({
        type: "text",
        value: `here\n${IMAGE_OMITTED}`,
      });
      expect(output([image], true, blind)).toEqual({ type: "error-text", value: IMAGE_OMITTED });
    });
  });
});

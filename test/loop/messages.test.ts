import { describe, expect, it } from "vitest";
import {
  contentText,
  defaultConvertToLlm,
  errorToolResult,
  failedAssistantMessage,
  messagesText,
  messageText,
  toMessage,
  toolCallsOf,
  toolResultMessage,
  userMessage,
} from "../../src/loop/messages.js";
import { appendMessages } from "../../src/loop/transcript-growth.js";
import {
  type AgentMessage,
  type AssistantMessage,
  emptyUsage,
  type ImageContent,
  type ToolCall,
} from "../../src/types/messages.js";
import { assistant } from "../support/loop-context.js";
import { testModel, user } from "../support/loop-harness.js";

const note = { role: "note", text: "for the app only", timestamp: 1 } as unknown as AgentMessage;
const image: ImageContent = { type: "image", data: "aGk=", mimeType: "image/png" };
const call = (id: string): ToolCall => ({ type: "toolCall", id, name: "lookup", arguments: { id } });

/** Asserts `timestamp` was taken between `before` and now. */
function expectTakenSince(timestamp: number, before: number): void {
  expect(timestamp).toBeGreaterThanOrEqual(before);
  expect(timestamp).toBeLessThanOrEqual(Date.now());
}

describe("loop messages", () => {
  it("an error tool result is the text alone, with empty details", () => {
    expect(errorToolResult("boom")).toEqual({ content: [{ type: "text", text: "boom" }], details: {} });
  });

  it("a settled call's message names the call and carries its result, its error flag and its usage", () => {
    const before = Date.now();
    const usage = { ...emptyUsage(), totalTokens: 9 };
    const message = toolResultMessage(
      call("c1"),
      { content: [{ type: "text", text: "42" }], details: { rows: 1 }, usage },
      true,
    );
    expect(message).toMatchObject({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "lookup",
      content: [{ type: "text", text: "42" }],
      details: { rows: 1 },
      isError: true,
      usage,
    });
    expectTakenSince(message.timestamp, before);
    const plain = toolResultMessage(call("c2"), { content: [] }, false);
    expect(plain.isError).toBe(false);
    expect("usage" in plain).toBe(false);
    // A result without content (a tool that returned a malformed value) keeps an empty content.
    expect(toolResultMessage(call("c3"), {} as never, false).content).toEqual([]);
  });

  it("a failed reply reports the failure with the model's identity, or the partial reply's", () => {
    const before = Date.now();
    const failed = failedAssistantMessage(testModel, "error", "rate limited");
    expect(failed).toMatchObject({
      role: "assistant",
      content: [],
      api: testModel.api,
      provider: testModel.provider,
      model: testModel.id,
      usage: emptyUsage(),
      stopReason: "error",
      errorMessage: "rate limited",
    });
    expectTakenSince(failed.timestamp, before);

    const partial: AssistantMessage = {
      ...assistant([{ type: "text", text: "half a" }], "stop"),
      api: "p-api",
      provider: "p",
      model: "p-1",
      usage: { ...emptyUsage(), output: 3 },
      timestamp: 7,
    };
    const aborted = failedAssistantMessage(testModel, "aborted", "Run was aborted", partial);
    expect(aborted).toEqual({ ...partial, stopReason: "aborted", errorMessage: "Run was aborted" });
    expect(aborted.content).not.toBe(partial.content);
  });

  it("the default conversion keeps the messages a model understands, in order", () => {
    const [a, b] = [user("a"), assistant([{ type: "text", text: "b" }], "stop")];
    expect(defaultConvertToLlm([a, note, b])).toEqual([a, b]);
    const llmOnly = appendMessages([a], [b]);
    expect(defaultConvertToLlm(llmOnly)).toBe(llmOnly);
    expect(defaultConvertToLlm(appendMessages([a], [note]))).toEqual([a]);
  });

  it("the tool calls of a reply, in source order, without its text or thinking", () => {
    const reply = assistant(
      [call("c1"), { type: "text", text: "and" }, { type: "thinking", thinking: "hm" }, call("c2")],
      "toolUse",
    );
    expect(toolCallsOf(reply)).toEqual([call("c1"), call("c2")]);
    expect(toolCallsOf(assistant([{ type: "text", text: "none" }], "stop"))).toEqual([]);
  });

  it("a user message is its text, or its text then its images", () => {
    const before = Date.now();
    const plain = userMessage("hi");
    expect(plain).toMatchObject({ role: "user", content: "hi" });
    expectTakenSince(plain.timestamp, before);
    expect(userMessage("hi", []).content).toBe("hi");
    expect(userMessage("look", [image]).content).toEqual([{ type: "text", text: "look" }, image]);
    expect(toMessage("look", [image])).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "look" }, image],
    });
    const given = user("as is");
    expect(toMessage(given)).toBe(given);
  });

  it("the text of a content: a string as is, text blocks joined, anything else empty", () => {
    expect(contentText("plain")).toBe("plain");
    expect(contentText([{ type: "text", text: "a" }, image, { type: "text", text: "b" }])).toBe("ab");
    expect(
      contentText(
        [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
        "\n",
      ),
    ).toBe("a\nb");
    expect(contentText([null, undefined, 3, { type: "text", text: "c" }])).toBe("c");
    for (const other of [undefined, null, 42, { type: "text", text: "not a list" }])
      expect(contentText(other)).toBe("");
  });

  it("the text of a message, and of messages separated by a blank line, empty ones left out", () => {
    expect(
      messageText(
        assistant([{ type: "text", text: "x" }, call("c1"), { type: "text", text: "y" }], "stop"),
        " ",
      ),
    ).toBe("x y");
    expect(messageText(note)).toBe("");
    expect(messagesText([user("one"), note, assistant([call("c1")], "toolUse"), user("two")])).toBe(
      "one\n\ntwo",
    );
    expect(messagesText([])).toBe("");
  });
});

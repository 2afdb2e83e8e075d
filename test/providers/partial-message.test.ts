import { describe, expect, it } from "vitest";
import { PartialMessageBuilder, REFUSAL_SIGNATURE } from "../../src/providers/partial-message.js";
import type { ToolCall } from "../../src/types/messages.js";
import type { AssistantMessageEvent } from "../../src/types/stream.js";
import { testModel } from "../support/loop-harness.js";

/** The queued events, each as its type plus the content index or reason it names. */
function drain(builder: PartialMessageBuilder): string[] {
  return builder.takeEvents().map((event: AssistantMessageEvent) => {
    if ("contentIndex" in event) return `${event.type} ${event.contentIndex}`;
    if (event.type === "done" || event.type === "error") return `${event.type} ${event.reason}`;
    return event.type;
  });
}

const newBuilder = () => new PartialMessageBuilder(testModel, "test-api");

describe("PartialMessageBuilder: text and thinking", () => {
  it("starts as a reply that stops normally, and hands out each queued event once", () => {
    const builder = newBuilder();
    expect(builder.message).toMatchObject({
      role: "assistant",
      content: [],
      api: "test-api",
      provider: "scripted",
      model: "scripted-1",
      stopReason: "stop",
    });
    builder.start();
    expect(drain(builder)).toEqual(["start"]);
    expect(builder.takeEvents()).toEqual([]);
  });

  it("appends to the open block while kind and key stay, and opens a new block when either changes", () => {
    const builder = newBuilder();
    builder.appendText("a");
    builder.appendText("b", "");
    builder.appendThinking("c", "");
    builder.appendThinking("d");
    builder.appendText("e", "msg_2");
    builder.appendText("f", "msg_2");
    builder.closeSequential();
    expect(builder.message.content).toStrictEqual([
      { type: "text", text: "ab" },
      { type: "thinking", thinking: "cd" },
      { type: "text", text: "ef" },
    ]);
    expect(drain(builder)).toEqual([
      "text_start 0",
      "text_delta 0",
      "text_delta 0",
      "text_end 0",
      "thinking_start 1",
      "thinking_delta 1",
      "thinking_delta 1",
      "thinking_end 1",
      "text_start 2",
      "text_delta 2",
      "text_delta 2",
      "text_end 2",
    ]);
  });

  it("puts a refusal in a text block of its own, signed as a refusal", () => {
    const builder = newBuilder();
    builder.appendText("Sure, ");
    builder.appendRefusal("I can't ");
    builder.appendRefusal("help with that.", "");
    expect(builder.message.content).toStrictEqual([
      { type: "text", text: "Sure, " },
      { type: "text", text: "I can't help with that.", textSignature: REFUSAL_SIGNATURE },
    ]);
  });

  it("keeps a signature given with the first delta, and only then", () => {
    const builder = newBuilder();
    builder.appendThinking("hmm", "", "reasoning_content");
    builder.appendText("hi", "", "msg_1");
    expect(builder.message.content).toStrictEqual([
      { type: "thinking", thinking: "hmm", thinkingSignature: "reasoning_content" },
      { type: "text", text: "hi", textSignature: "msg_1" },
    ]);
  });

  it("signs the open block of that kind and key, or an empty new one", () => {
    const builder = newBuilder();
    builder.appendThinking("plan", "0");
    builder.sign("thinking", "0", "sig-a");
    builder.sign("text", "1", "sig-b");
    builder.appendText("answer", "1");
    expect(builder.message.content).toStrictEqual([
      { type: "thinking", thinking: "plan", thinkingSignature: "sig-a" },
      { type: "text", text: "answer", textSignature: "sig-b" },
    ]);
  });

  it("adds redacted thinking as a closed block of its own, even after open thinking", () => {
    const builder = newBuilder();
    builder.appendThinking("visible");
    builder.addRedactedThinking("EmwKAhgB");
    builder.addRedactedThinking("Second");
    builder.appendThinking("more");
    expect(builder.message.content).toStrictEqual([
      { type: "thinking", thinking: "visible" },
      { type: "thinking", thinking: "", thinkingSignature: "EmwKAhgB", redacted: true },
      { type: "thinking", thinking: "", thinkingSignature: "Second", redacted: true },
      { type: "thinking", thinking: "more" },
    ]);
  });

  it("closes a block by kind and key only when it is the open one", () => {
    const builder = newBuilder();
    builder.appendText("x", "7");
    builder.takeEvents();
    builder.closeBlock("thinking", "7");
    builder.closeBlock("text", "8");
    expect(drain(builder)).toEqual([]);
    builder.closeBlock("text", "7");
    expect(drain(builder)).toEqual(["text_end 0"]);
    builder.closeBlock("text", "7");
    builder.closeSequential();
    expect(drain(builder)).toEqual([]);
    builder.appendText("y", "7");
    expect(builder.message.content).toHaveLength(2);
  });

  it("ends each block with its full text", () => {
    const builder = newBuilder();
    builder.appendThinking("a");
    builder.appendThinking("b");
    builder.appendText("c");
    const ends = builder
      .takeEvents()
      .filter((event) => event.type === "thinking_end" || event.type === "text_end");
    expect(ends).toMatchObject([{ type: "thinking_end", content: "ab" }]);
    builder.finish("stop");
    expect(builder.takeEvents()).toMatchObject([{ type: "text_end", content: "c" }, { type: "done" }]);
  });
});

describe("PartialMessageBuilder: tool calls", () => {
  it("fills in a missing id and name later, never replacing ones it has", () => {
    const builder = newBuilder();
    builder.upsertToolCall(0, undefined, undefined);
    expect(builder.message.content[0]).toMatchObject({ id: "", name: "" });
    builder.upsertToolCall(0, "call_a", undefined);
    builder.upsertToolCall(0, undefined, "read");
    builder.upsertToolCall(0, "call_b", "write");
    expect(builder.message.content[0]).toMatchObject({ id: "call_a", name: "read" });
    expect(drain(builder)).toEqual(["toolcall_start 0"]);
  });

  it("ignores argument fragments that are empty, for an unknown key, or for an ended call", () => {
    const builder = newBuilder();
    builder.upsertToolCall("k", "c1", "read");
    builder.appendToolCallArguments("k", '{"path":"a"}');
    builder.appendToolCallArguments("k", "");
    builder.appendToolCallArguments("other", '{"x":1}');
    builder.endToolCall("k");
    builder.appendToolCallArguments("k", ',"more":1');
    builder.endToolCall("k");
    builder.endToolCall("unknown");
    expect(drain(builder)).toEqual(["toolcall_start 0", "toolcall_delta 0", "toolcall_end 0"]);
    expect((builder.message.content[0] as ToolCall).arguments).toEqual({ path: "a" });
  });

  it("takes the complete arguments text the server sends at the end", () => {
    const builder = newBuilder();
    builder.upsertToolCall(1, "c1", "read");
    builder.appendToolCallArguments(1, '{"path":');
    builder.endToolCall(1, '{"path":"b.txt"}');
    expect(builder.message.content[0]).toStrictEqual({
      type: "toolCall",
      id: "c1",
      name: "read",
      arguments: { path: "b.txt" },
    });
  });

  it("gives calls without an id distinct generated ones", () => {
    const builder = newBuilder();
    builder.upsertToolCall(0, undefined, "a");
    builder.upsertToolCall(1, undefined, "b");
    builder.closeAll(false);
    const ids = builder.message.content.map((block) => (block as ToolCall).id);
    expect(ids[0]).toMatch(/^call_[0-9a-z]+_0$/);
    expect(ids[1]).toMatch(/^call_[0-9a-z]+_1$/);
  });

  it("marks malformed arguments of a finished call, and drops those of a truncated one without toolcall_end", () => {
    const builder = newBuilder();
    builder.upsertToolCall(0, "c1", "read");
    builder.appendToolCallArguments(0, '{"path":');
    builder.upsertToolCall(1, "c2", "read");
    builder.appendToolCallArguments(1, '{"path":"ok"}');
    builder.takeEvents();
    builder.finish("length");
    expect(drain(builder)).toEqual(["toolcall_end 1", "done length"]);
    expect(builder.message.content[0]).toStrictEqual({
      type: "toolCall",
      id: "c1",
      name: "read",
      arguments: {},
    });
    expect(builder.message.stopReason).toBe("length");

    const marked = newBuilder();
    marked.upsertToolCall(0, "c1", "read");
    marked.appendToolCallArguments(0, '{"path":');
    marked.takeEvents();
    marked.finish("stop");
    expect(drain(marked)).toEqual(["toolcall_end 0", "done toolUse"]);
    expect(marked.message.content[0]).toMatchObject({ arguments: {}, invalidArguments: { raw: '{"path":' } });
  });

  it("signs a known call and ignores a signature for an unknown one", () => {
    const builder = newBuilder();
    builder.upsertToolCall(0, "c1", "read");
    builder.signToolCall(0, "sig");
    builder.signToolCall(9, "lost");
    expect(builder.message.content).toMatchObject([{ id: "c1", thoughtSignature: "sig" }]);
  });
});

describe("PartialMessageBuilder: the end of a reply", () => {
  it("ends an aborted or failed reply with an error event and a message, its own or the default", () => {
    const cases = [
      ["aborted", undefined, "Request was aborted"],
      ["error", undefined, "Unknown error"],
      ["error", "HTTP 500", "HTTP 500"],
      ["aborted", "stopped by the user", "stopped by the user"],
    ] as const;
    for (const [reason, message, expected] of cases) {
      const builder = newBuilder();
      builder.finish(reason, message);
      expect(drain(builder)).toEqual([`error ${reason}`]);
      expect(builder.message).toMatchObject({ stopReason: reason, errorMessage: expected });
    }
    const done = newBuilder();
    done.finish("stop", "ignored");
    expect(drain(done)).toEqual(["done stop"]);
    expect(done.message.errorMessage).toBeUndefined();
  });

  it("after a failure, keeps the arguments parsed so far and accepts nothing more for the calls", () => {
    const builder = newBuilder();
    builder.appendText("partial");
    builder.upsertToolCall(0, "c1", "write");
    builder.appendToolCallArguments(0, '{"path":"a.txt","content":"lo');
    builder.takeEvents();
    builder.fail("connection lost", false);
    expect(drain(builder)).toEqual(["error error"]);
    builder.appendToolCallArguments(0, 'rem"}');
    builder.endToolCall(0);
    builder.closeSequential();
    expect(drain(builder)).toEqual([]);
    expect(builder.message.content[1]).toStrictEqual({
      type: "toolCall",
      id: "c1",
      name: "write",
      arguments: { path: "a.txt", content: "lo" },
    });
    expect(builder.message).toMatchObject({ stopReason: "error", errorMessage: "connection lost" });
  });
});

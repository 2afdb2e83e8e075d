import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AssistantMessage, emptyUsage } from "../../src/index.js";
import {
  applyReplyDelta,
  deltasOfMessage,
  type ReplyDelta,
  replyDeltaOf,
} from "../../src/storage/reply-delta.js";

function reply(content: AssistantMessage["content"] = []): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "openai.chat",
    provider: "openai",
    model: "m",
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: 1,
  };
}

const blockArb: fc.Arbitrary<AssistantMessage["content"][number]> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: fc.string({ maxLength: 6 }) }),
  fc.record({ type: fc.constant("thinking" as const), thinking: fc.string({ maxLength: 6 }) }),
  fc.record({
    type: fc.constant("toolCall" as const),
    id: fc.string({ minLength: 1, maxLength: 4 }),
    name: fc.string({ minLength: 1, maxLength: 4 }),
    arguments: fc.dictionary(fc.string({ maxLength: 3 }), fc.integer()),
  }),
);

/** What a reader rebuilds of a block: a tool call's arguments stay as streamed JSON text, not parsed. */
const rebuilt = (block: AssistantMessage["content"][number]) =>
  block.type === "toolCall" ? { ...block, arguments: {} } : block;

describe("reply deltas", () => {
  it("replaying the deltas of a message rebuilds its blocks, and each event maps back to its delta", () => {
    fc.assert(
      fc.property(fc.array(blockArb, { maxLength: 5 }), (content) => {
        const target = reply(content);
        const rebuilding = reply();
        for (const delta of deltasOfMessage(target)) {
          const event = applyReplyDelta(rebuilding, delta);
          expect(event.type).toBe(delta.type);
          expect("partial" in event && event.partial).toBe(rebuilding);
          expect(replyDeltaOf(event)).toStrictEqual(delta);
        }
        expect(rebuilding.content).toEqual(content.map(rebuilt));
      }),
    );
  });

  it("streams a block as start, one delta of its content, end; an empty text or thinking without a delta", () => {
    const deltas = deltasOfMessage(
      reply([
        { type: "text", text: "" },
        { type: "thinking", thinking: "" },
        { type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } },
        { type: "text", text: "hi" },
        { type: "thinking", thinking: "hm" },
      ]),
    );
    expect(deltas).toEqual([
      { type: "text_start", contentIndex: 0 },
      { type: "text_end", contentIndex: 0 },
      { type: "thinking_start", contentIndex: 1 },
      { type: "thinking_end", contentIndex: 1 },
      { type: "toolcall_start", contentIndex: 2, id: "c1", name: "read" },
      { type: "toolcall_delta", contentIndex: 2, delta: '{"path":"a"}' },
      { type: "toolcall_end", contentIndex: 2 },
      { type: "text_start", contentIndex: 3 },
      { type: "text_delta", contentIndex: 3, delta: "hi" },
      { type: "text_end", contentIndex: 3 },
      { type: "thinking_start", contentIndex: 4 },
      { type: "thinking_delta", contentIndex: 4, delta: "hm" },
      { type: "thinking_end", contentIndex: 4 },
    ]);
  });

  it("streams nothing for a block of a kind it does not know", () => {
    const odd = {
      type: "image",
      data: "AA",
      mimeType: "image/png",
    } as unknown as AssistantMessage["content"][number];
    expect(deltasOfMessage(reply([odd]))).toEqual([]);
  });

  it("reports the ended block's text and the finished tool call", () => {
    const target = reply([
      { type: "text", text: "ab" },
      { type: "thinking", thinking: "cd" },
      { type: "toolCall", id: "c", name: "n", arguments: { x: 1 } },
    ]);
    expect(applyReplyDelta(target, { type: "text_end", contentIndex: 0 })).toMatchObject({ content: "ab" });
    expect(applyReplyDelta(target, { type: "thinking_end", contentIndex: 1 })).toMatchObject({
      content: "cd",
    });
    expect(applyReplyDelta(target, { type: "toolcall_end", contentIndex: 2 })).toMatchObject({
      toolCall: { type: "toolCall", id: "c", name: "n", arguments: { x: 1 } },
    });
  });

  it("tolerates deltas for a block the reply lacks or of another kind", () => {
    const target = reply([{ type: "thinking", thinking: "t" }]);
    const deltas: ReplyDelta[] = [
      { type: "text_delta", contentIndex: 0, delta: "x" },
      { type: "thinking_delta", contentIndex: 3, delta: "y" },
    ];
    for (const delta of deltas) applyReplyDelta(target, delta);
    expect(target.content).toEqual([{ type: "thinking", thinking: "t" }]);
    expect(applyReplyDelta(target, { type: "text_end", contentIndex: 0 })).toMatchObject({ content: "" });
    expect(applyReplyDelta(target, { type: "thinking_end", contentIndex: 5 })).toMatchObject({ content: "" });
    expect(applyReplyDelta(target, { type: "toolcall_end", contentIndex: 0 })).toMatchObject({
      toolCall: { type: "toolCall", id: "", name: "", arguments: {} },
    });
    applyReplyDelta(target, { type: "text_delta", contentIndex: 7, delta: "x" });
    expect(applyReplyDelta(target, { type: "text_end", contentIndex: 7 })).toMatchObject({ content: "" });
    expect(applyReplyDelta(target, { type: "toolcall_end", contentIndex: 7 })).toMatchObject({
      toolCall: { type: "toolCall", id: "", name: "", arguments: {} },
    });
    expect(target.content).toHaveLength(1);
    applyReplyDelta(target, { type: "text_start", contentIndex: 0 });
    applyReplyDelta(target, { type: "thinking_delta", contentIndex: 0, delta: "z" });
    expect(target.content).toEqual([{ type: "text", text: "" }]);
  });

  it("records no delta for the start, end or failure of a reply, nor a tool call start without its block", () => {
    const partial = reply([{ type: "text", text: "" }]);
    expect(replyDeltaOf({ type: "start", partial })).toBeUndefined();
    expect(replyDeltaOf({ type: "done", reason: "stop", message: partial })).toBeUndefined();
    expect(replyDeltaOf({ type: "error", reason: "aborted", error: partial })).toBeUndefined();
    expect(replyDeltaOf({ type: "toolcall_start", contentIndex: 0, partial })).toBeUndefined();
    expect(replyDeltaOf({ type: "toolcall_start", contentIndex: 4, partial })).toBeUndefined();
  });

  it("drops the partial message and a finished block's content from the recorded delta", () => {
    const partial = reply([{ type: "text", text: "abc" }]);
    expect(replyDeltaOf({ type: "text_end", contentIndex: 0, content: "abc", partial })).toEqual({
      type: "text_end",
      contentIndex: 0,
    });
    expect(replyDeltaOf({ type: "text_delta", contentIndex: 0, delta: "c", partial })).toEqual({
      type: "text_delta",
      contentIndex: 0,
      delta: "c",
    });
  });
});

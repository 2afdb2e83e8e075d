import { describe, expect, it } from "vitest";
import { clientAnswerOutcome, deniedOutcome, deniedText, errorOutcome } from "../../src/loop/tool-outcome.js";
import type { ToolCall } from "../../src/types/messages.js";
import type { ToolResult } from "../../src/types/tool.js";

const call: ToolCall = { type: "toolCall", id: "c1", name: "pick_colour", arguments: {} };

describe("tool call outcomes", () => {
  it("an error outcome is an error result made of the text, for that call", () => {
    expect(errorOutcome(call, "it broke")).toEqual({
      toolCall: call,
      result: { content: [{ type: "text", text: "it broke" }], details: {} },
      isError: true,
    });
  });

  it("a denial says so, with the reason when one was given", () => {
    expect(deniedText()).toBe("Tool call denied");
    expect(deniedText("")).toBe("Tool call denied");
    expect(deniedText("not today")).toBe("Tool call denied: not today");
    expect(deniedOutcome(call, "not today")).toEqual(errorOutcome(call, "Tool call denied: not today"));
    expect(deniedOutcome(call)).toEqual(errorOutcome(call, "Tool call denied"));
  });

  it("a client's answer becomes the call's result, an error only when the client says so", () => {
    const result: ToolResult = { content: [{ type: "text", text: "blue" }] };
    expect(clientAnswerOutcome(call, { result })).toEqual({ toolCall: call, result, isError: false });
    expect(clientAnswerOutcome(call, { result, isError: false }).isError).toBe(false);
    expect(clientAnswerOutcome(call, { result, isError: true })).toEqual({
      toolCall: call,
      result,
      isError: true,
    });
    // Only `true` marks an error: a client sending another truthy value by mistake is not taken as one.
    expect(clientAnswerOutcome(call, { result, isError: "yes" as unknown as boolean }).isError).toBe(false);
  });

  it("a malformed client answer is an error result naming the tool", () => {
    const noContent = errorOutcome(call, `The client's answer to tool call "pick_colour" has no content`);
    for (const bad of [undefined, null, "blue", 42, {}, { content: "blue" }, { content: null }]) {
      expect(
        clientAnswerOutcome(call, { result: bad as unknown as ToolResult }),
        JSON.stringify(bad),
      ).toEqual(noContent);
    }
  });
});

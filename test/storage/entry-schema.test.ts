import { describe, expect, it } from "vitest";
import { entryFieldsProblem } from "../../src/storage/entry-schema.js";

const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { total: 0 } };
const assistant = {
  role: "assistant",
  content: [
    { type: "text", text: "hi" },
    { type: "thinking", thinking: "hm" },
    { type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } },
  ],
  api: "openai.chat",
  provider: "openai",
  model: "gpt",
  usage,
  stopReason: "stop",
};
const message = (value: unknown) => ({ type: "message", message: value });
const withMessage = (patch: Record<string, unknown>) => message({ ...assistant, ...patch });

describe("entryFieldsProblem", () => {
  it.each<[string, Record<string, unknown>]>([
    ["a user message with text", message({ role: "user", content: "hi" })],
    [
      "a user message with text and image parts",
      message({
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "image", data: "AA", mimeType: "image/png" },
        ],
      }),
    ],
    ["an assistant message with every part kind", message(assistant)],
    [
      "an assistant message of pi's older files (no totalTokens)",
      withMessage({ usage: { ...usage, totalTokens: undefined } }),
    ],
    [
      "an assistant message whose totalTokens is null",
      withMessage({ usage: { ...usage, totalTokens: null } }),
    ],
    [
      "a tool result",
      message({ role: "toolResult", toolCallId: "c1", toolName: "read", content: [], isError: false }),
    ],
    ["a custom message", message({ role: "custom", customType: "note", content: "x", display: true })],
    [
      "a bash execution without exit code",
      message({ role: "bashExecution", command: "ls", output: "", cancelled: false, truncated: false }),
    ],
    ["a compaction summary", message({ role: "compactionSummary", summary: "s", tokensBefore: 3 })],
    ["a branch summary message", message({ role: "branchSummary", summary: "s", fromId: "root" })],
    ["a message of a role an app defines", message({ role: "appNote", anything: 1 })],
    ["a model change", { type: "model_change", provider: "p", modelId: "m" }],
    ["a thinking level change", { type: "thinking_level_change", thinkingLevel: "high" }],
    ["an empty active tools change", { type: "active_tools_change", activeToolNames: [] }],
    ["an active tools change", { type: "active_tools_change", activeToolNames: ["read", "bash"] }],
    ["a compaction", { type: "compaction", summary: "s", firstKeptEntryId: "a", tokensBefore: 9 }],
    ["a branch summary", { type: "branch_summary", fromId: "root", summary: "s" }],
    ["a custom entry", { type: "custom", customType: "app" }],
    ["a custom message entry", { type: "custom_message", customType: "c", content: "x", display: false }],
    ["a label", { type: "label", targetId: "a", label: "x" }],
    ["a label that clears", { type: "label", targetId: "a" }],
    ["a session_info without name", { type: "session_info" }],
    ["an entry type of a newer pi", { type: "future_thing", whatever: 1 }],
  ])("accepts %s", (_, entry) => {
    expect(entryFieldsProblem(entry)).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a message that is not an object", message("hi"), "message: expected an object"],
    ["a message that is null", message(null), "message: expected an object"],
    ["a message that is an array", message([]), "message: expected an object"],
    ["a message without a role", message({ content: "x" }), "message.role: expected a string"],
    [
      "a user content that is a number",
      message({ role: "user", content: 12345 }),
      "message.content: expected a string or an array of text/image parts",
    ],
    [
      "a user part of an unknown kind",
      message({ role: "user", content: [{ type: "text", text: "a" }, { type: "video" }] }),
      "message.content.1: expected a text/image part",
    ],
    [
      "a user part without a type",
      message({ role: "user", content: [{ text: "a" }] }),
      "message.content.0: expected a text/image part",
    ],
    [
      "a user part that is null",
      message({ role: "user", content: [null] }),
      "message.content.0: expected a text/image part",
    ],
    [
      "a text part without text",
      message({ role: "user", content: [{ type: "text", text: 1 }] }),
      "message.content.0.text: expected a string",
    ],
    [
      "an image part without a mime type",
      message({ role: "user", content: [{ type: "image", data: "AA" }] }),
      "message.content.0.mimeType: expected a string",
    ],
    [
      "an assistant content that is not an array",
      withMessage({ content: "hi" }),
      "message.content: expected an array of text/thinking/toolCall parts",
    ],
    [
      "an assistant image part",
      withMessage({ content: [{ type: "image", data: "AA", mimeType: "image/png" }] }),
      "message.content.0: expected a text/thinking/toolCall part",
    ],
    [
      "a tool call without arguments",
      withMessage({ content: [{ type: "toolCall", id: "c", name: "n" }] }),
      "message.content.0.arguments: expected an object",
    ],
    [
      "a tool call with array arguments",
      withMessage({ content: [{ type: "toolCall", id: "c", name: "n", arguments: [] }] }),
      "message.content.0.arguments: expected an object",
    ],
    [
      "a thinking part without thinking",
      withMessage({ content: [{ type: "thinking" }] }),
      "message.content.0.thinking: expected a string",
    ],
    ["an assistant without provider", withMessage({ provider: 1 }), "message.provider: expected a string"],
    ["an assistant without usage", withMessage({ usage: undefined }), "message.usage: expected an object"],
    [
      "a usage whose cacheWrite is text",
      withMessage({ usage: { ...usage, cacheWrite: "0" } }),
      "message.usage.cacheWrite: expected a number",
    ],
    [
      "a usage whose totalTokens is text",
      withMessage({ usage: { ...usage, totalTokens: "3" } }),
      "message.usage.totalTokens: expected a number",
    ],
    [
      "a usage without cost total",
      withMessage({ usage: { ...usage, cost: {} } }),
      "message.usage.cost.total: expected a number",
    ],
    [
      "an assistant without stopReason",
      withMessage({ stopReason: undefined }),
      "message.stopReason: expected a string",
    ],
    [
      "a tool result whose isError is text",
      message({ role: "toolResult", toolCallId: "c", toolName: "t", content: [], isError: "no" }),
      "message.isError: expected true or false",
    ],
    [
      "a bash execution whose exit code is text",
      message({
        role: "bashExecution",
        command: "ls",
        output: "",
        exitCode: "0",
        cancelled: false,
        truncated: false,
      }),
      "message.exitCode: expected a number",
    ],
    [
      "a custom message without display",
      message({ role: "custom", customType: "c", content: "x" }),
      "message.display: expected true or false",
    ],
    [
      "a model change without model id",
      { type: "model_change", provider: "p" },
      "modelId: expected a string",
    ],
    [
      "active tools that are not all strings",
      { type: "active_tools_change", activeToolNames: ["a", 1] },
      "activeToolNames: expected an array of strings",
    ],
    [
      "active tools that are a string",
      { type: "active_tools_change", activeToolNames: "read" },
      "activeToolNames: expected an array of strings",
    ],
    [
      "a compaction without tokensBefore",
      { type: "compaction", summary: "s", firstKeptEntryId: "a" },
      "tokensBefore: expected a number",
    ],
    [
      "a custom message entry with object content",
      { type: "custom_message", customType: "c", content: {}, display: true },
      "content: expected a string or an array of text/image parts",
    ],
    [
      "a label whose label is a number",
      { type: "label", targetId: "a", label: 3 },
      "label: expected a string",
    ],
    ["a session_info whose name is a number", { type: "session_info", name: 3 }, "name: expected a string"],
  ])("names the field of %s", (_, entry, problem) => {
    expect(entryFieldsProblem(entry)).toBe(problem);
  });

  it("does not modify the entry it checks", () => {
    const entry = withMessage({ content: [{ type: "toolCall", id: "c", name: "n" }] });
    const before = structuredClone(entry);
    entryFieldsProblem(entry);
    expect(entry).toEqual(before);
  });
});

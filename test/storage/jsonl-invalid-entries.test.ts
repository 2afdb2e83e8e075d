import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { type AssistantMessage, emptyUsage, isSessionError, type SessionError } from "../../src/index.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { testModel, texts } from "../support/harness-support.js";
import { tempRoot, userMessage } from "../support/session-files.js";

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-invalid-"));
});
afterEach(() => remove());

const reply = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "scripted",
  provider: "p",
  model: "m",
  usage: emptyUsage(),
  stopReason: "stop",
  timestamp: 2,
});

/**
 * A stored session "s" of three messages (file lines 2–4) whose line 3 — the assistant's reply — then
 * has its message replaced by hand, as a user editing the file would.
 */
async function sessionWithEditedLine3(message: unknown): Promise<{ repo: JsonlSessionRepo; path: string }> {
  const repo = new JsonlSessionRepo({ root });
  const session = await repo.create({ id: "s", cwd: "/project" });
  await session.appendMessage(userMessage("first"));
  await session.appendMessage(reply("answer"));
  await session.appendMessage(userMessage("second"));
  await session.close();
  const path = session.path!;
  const lines = readFileSync(path, "utf8").split("\n");
  lines[2] = JSON.stringify({ ...JSON.parse(lines[2]!), message });
  writeFileSync(path, lines.join("\n"));
  return { repo, path };
}

const usage = emptyUsage();
const assistantWith = (fields: Record<string, unknown>) => ({ ...reply("x"), ...fields });

// Each malformed message and the field its error must name.
const malformed: [string, unknown, string][] = [
  ["user content that is a number", { role: "user", content: 12345, timestamp: 1 }, "message.content"],
  ["a user message without content", { role: "user", timestamp: 1 }, "message.content"],
  [
    "a user part of an unknown type",
    { role: "user", content: [{ type: "video" }], timestamp: 1 },
    "message.content.0",
  ],
  [
    "an image part without data",
    { role: "user", content: [{ type: "image", mimeType: "image/png" }] },
    "message.content.0.data",
  ],
  ["a message without a role", { content: "hi", timestamp: 1 }, "message.role"],
  ["assistant content that is a string", assistantWith({ content: "hi" }), "message.content"],
  [
    "a tool call without arguments",
    assistantWith({ content: [{ type: "toolCall", id: "c", name: "ls" }] }),
    "message.content.0.arguments",
  ],
  [
    "a thinking part without its text",
    assistantWith({ content: [{ type: "thinking" }] }),
    "message.content.0.thinking",
  ],
  ["an assistant message without usage", assistantWith({ usage: undefined }), "message.usage"],
  ["usage without a cost", assistantWith({ usage: { ...usage, cost: undefined } }), "message.usage.cost"],
  [
    "a tool result without toolName",
    { role: "toolResult", toolCallId: "c", content: [], isError: false },
    "message.toolName",
  ],
  [
    "a tool result with string content",
    { role: "toolResult", toolCallId: "c", toolName: "ls", content: "x", isError: false },
    "message.content",
  ],
  [
    "a tool result without isError",
    { role: "toolResult", toolCallId: "c", toolName: "ls", content: [] },
    "message.isError",
  ],
  [
    "a custom message without display",
    { role: "custom", customType: "note", content: "x" },
    "message.display",
  ],
  [
    "a bash execution without output",
    { role: "bashExecution", command: "ls", exitCode: 0, cancelled: false, truncated: false },
    "message.output",
  ],
  ["a compaction summary without summary", { role: "compactionSummary", tokensBefore: 1 }, "message.summary"],
];

describe("malformed messages in a session file", () => {
  it.each(malformed)(
    "refuses %s with invalid_entry naming line 3 and the field",
    async (_, message, field) => {
      const { repo } = await sessionWithEditedLine3(message);
      const error = await repo.open("s").catch((caught: unknown) => caught);
      expect(isSessionError(error, "invalid_entry")).toBe(true);
      expect((error as SessionError).message).toContain("line 3");
      expect((error as SessionError).message).toContain(`${field}:`);
    },
  );

  it("skips the line with recover, keeps it on disk, reports it, and builds a context without it", async () => {
    const { repo, path } = await sessionWithEditedLine3({ role: "user", content: 12345, timestamp: 1 });
    const session = await repo.open("s", { recover: true });
    expect(session.recovered).toEqual([
      expect.objectContaining({ line: 3, reason: expect.stringContaining("message.content") }),
    ]);
    expect(session.recovered[0]!.text).toContain("12345");
    // The entry after it is attached to the skipped entry's parent: one bad line costs only itself.
    expect(texts(session.buildContext().messages)).toEqual(["first", "second"]);
    await session.appendMessage(userMessage("third"));
    await session.close();
    const corrupt = readdirSync(dirname(path)).filter((name) =>
      name.startsWith(`${basename(path)}.corrupt-`),
    );
    expect(corrupt).toHaveLength(1);
    expect(readFileSync(join(dirname(path), corrupt[0]!), "utf8")).toContain("12345");
    const clean = await repo.open("s");
    expect(texts(clean.buildContext().messages)).toEqual(["first", "second", "third"]);
    await clean.close();
  });

  it("keeps messages of roles an app defines itself", async () => {
    const { repo } = await sessionWithEditedLine3({ role: "note", text: "remember this", timestamp: 1 });
    const session = await repo.open("s");
    expect(session.getEntries()).toHaveLength(3);
    await session.close();
  });

  it("lets the harness run on a recovered session: the model never sees the malformed message", async () => {
    const { repo } = await sessionWithEditedLine3(assistantWith({ content: "not parts" }));
    const session = await repo.open("s", { recover: true });
    const model = scriptedModel([{ text: "fine" }]);
    const harness = new AgentHarness({ session, model: testModel, streamFn: model });
    const { reply: answer } = await harness.prompt("third");
    expect(answer.content).toEqual([expect.objectContaining({ type: "text", text: "fine" })]);
    expect(texts(model.calls[0]!.context.messages)).toEqual(["first", "second", "third"]);
    await session.close();
  });
});

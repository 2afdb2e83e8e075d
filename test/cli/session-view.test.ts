import { describe, expect, it } from "vitest";
import { renderTranscript, renderTree } from "../../src/cli/session-view.js";
import { terminalStyle } from "../../src/cli/terminal-style.js";
import { emptyUsage, MemorySessionRepo } from "../../src/index.js";

const plain = terminalStyle({});
const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });
const assistant = (text: string) => ({
  role: "assistant" as const,
  content: [{ type: "text" as const, text }],
  api: "scripted",
  provider: "p",
  model: "m",
  usage: emptyUsage(),
  stopReason: "stop" as const,
  timestamp: 2,
});

describe("session tree rendering", () => {
  it("keeps a chain in one column, opens an arm per branch, shows labels and marks the leaf", async () => {
    const session = await new MemorySessionRepo().create();
    const question = await session.appendMessage(user("question"));
    const first = await session.appendMessage(assistant("first answer"));
    await session.setLabel(first.id, "keep");
    await session.moveTo(question.id);
    const second = await session.appendMessage(assistant("second answer"));
    await session.appendMessage(user("follow-up"));

    const lines = renderTree(session, plain);
    expect(lines).toEqual([
      `${question.id} user: question`,
      `+-- ${first.id} assistant: first answer [keep]`,
      `|   ${lines[2]?.slice(4)}`,
      `\`-- ${second.id} assistant: second answer`,
      `    ${lines[4]?.slice(4)}`,
    ]);
    expect(lines[2]).toMatch(/label "keep" on/);
    expect(lines[4]).toMatch(/user: follow-up <- leaf$/);
  });

  it("renders a transcript with roles, tool calls and abbreviated tool results", async () => {
    const session = await new MemorySessionRepo().create();
    await session.appendMessage(user("list it"));
    await session.appendMessage({
      ...assistant(""),
      content: [{ type: "toolCall", id: "c1", name: "ls", arguments: { path: "." } }],
      stopReason: "toolUse",
    });
    await session.appendMessage({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "ls",
      content: [{ type: "text", text: "1\n2\n3\n4\n5\n6\n7" }],
      isError: false,
      timestamp: 3,
    });
    const text = renderTranscript(session.getBranch(), plain).join("\n");
    expect(text).toContain("── user\nlist it");
    expect(text).toContain('→ ls {"path":"."}');
    expect(text).toContain("── tool result ls (7 lines)\n  1\n  2\n  3\n  4\n  5\n  … 2 more lines");
  });
});

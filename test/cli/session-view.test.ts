import { describe, expect, it } from "vitest";
import { firstPromptOf, renderTranscript, renderTree } from "../../src/cli/session-view.js";
import { terminalStyle } from "../../src/cli/terminal-style.js";
import { TOOL_CALL_JOURNAL_TYPE } from "../../src/harness/tool-journal.js";
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

  it("leaves the tool journal's entries out of trees and transcripts unless asked, but keeps a journal leaf", async () => {
    const session = await new MemorySessionRepo().create();
    const question = await session.appendMessage(user("list it"));
    await session.appendMessage({
      ...assistant(""),
      content: [{ type: "toolCall", id: "c1", name: "ls", arguments: {} }],
      stopReason: "toolUse",
    });
    const journal = await session.appendCustom(TOOL_CALL_JOURNAL_TYPE, { toolCallId: "c1" });
    await session.appendMessage({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "ls",
      content: [{ type: "text", text: "a" }],
      isError: false,
      timestamp: 3,
    });
    // A second branch starting at a journal entry: its arm shows the child in its place.
    await session.moveTo(question.id);
    await session.appendCustom(TOOL_CALL_JOURNAL_TYPE, { toolCallId: "c2" });
    await session.appendMessage(assistant("other branch"));

    const hidden = renderTree(session, plain);
    expect(hidden.join("\n")).not.toContain(TOOL_CALL_JOURNAL_TYPE);
    expect(hidden.map((line) => line.replace(/ ?\S{8} /, " "))).toEqual([
      " user: list it",
      "+-- assistant: → ls",
      "|   toolResult ls",
      "`-- assistant: other branch <- leaf",
    ]);
    const shown = renderTree(session, plain, { journal: true });
    expect(shown).toHaveLength(6);
    expect(shown[2]).toBe(`|   ${journal.id} custom ${TOOL_CALL_JOURNAL_TYPE}`);

    await session.moveTo(journal.id);
    expect(
      renderTree(session, plain).some((line) => line.endsWith(`custom ${TOOL_CALL_JOURNAL_TYPE} <- leaf`)),
    ).toBe(true);
    const transcript = (journalToo: boolean) =>
      renderTranscript(session.getBranch(), plain, { journal: journalToo }).join("\n");
    expect(transcript(false)).not.toContain(TOOL_CALL_JOURNAL_TYPE);
    expect(transcript(true)).toContain(`· custom ${TOOL_CALL_JOURNAL_TYPE}`);
    expect(firstPromptOf(session.getBranch())).toBe("list it");
  });
});

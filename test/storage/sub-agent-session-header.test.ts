import { describe, expect, it } from "vitest";
import { parseSessionText, serializeSession } from "../../src/storage/session-file.js";

const entryLine = JSON.stringify({
  type: "message",
  id: "e1",
  parentId: null,
  timestamp: "2026-01-01T00:00:00.000Z",
  message: { role: "user", content: "refund A-1", timestamp: 1 },
});

describe("the header of a sub-agent's session", () => {
  it("parses parentSession and parentToolCallId and writes them back unchanged", () => {
    const header = {
      type: "session",
      version: 3,
      id: "child",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/w",
      parentSession: "/sessions/--w--/2026_parent.jsonl",
      parentToolCallId: "call_7",
    };
    const text = `${JSON.stringify(header)}\n${entryLine}\n`;
    const parsed = parseSessionText(text);
    expect(parsed.header).toEqual(header);
    expect(serializeSession(parsed.header, parsed.tree.getEntries())).toBe(text);
  });

  it("reads a header without them (every file written before sub-agents) as before", () => {
    const header = {
      type: "session",
      version: 3,
      id: "old",
      timestamp: "2025-01-01T00:00:00.000Z",
      cwd: "/w",
    };
    const parsed = parseSessionText(`${JSON.stringify(header)}\n${entryLine}\n`);
    expect(parsed.header).toEqual(header);
    expect(parsed.header.parentToolCallId).toBeUndefined();
  });
});

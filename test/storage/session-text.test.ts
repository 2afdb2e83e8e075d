import { describe, expect, it } from "vitest";
import { SessionError } from "../../src/index.js";
import { parseSessionText, serializeLine } from "../../src/sessions.js";
import { parseSessionValues } from "../../src/storage/session-file.js";

const header = (extra: Record<string, unknown> = {}) => ({
  type: "session",
  version: 3,
  id: "s1",
  timestamp: "2025-01-01T00:00:00.000Z",
  cwd: "/work",
  ...extra,
});
const message = (id: string, parentId: string | null, extra: Record<string, unknown> = {}) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2025-01-01T00:00:01.000Z",
  message: { role: "user", content: `text of ${id}`, timestamp: 1 },
  ...extra,
});
const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const file = (...values: unknown[]) => values.map(line).join("");

/** The `invalid_entry` error `parse` throws (fails the test if it throws none or another). */
function invalid(parse: () => unknown): SessionError {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(SessionError);
    expect((error as SessionError).code).toBe("invalid_entry");
    return error as SessionError;
  }
  throw new Error("expected an invalid_entry error");
}

describe("parseSessionText: the header", () => {
  it.each([
    ["a line that is not JSON", "not json\n"],
    ["a JSON array", "[1]\n"],
    ["another type", line(header({ type: "message" }))],
    ["an id that is not a string", line(header({ id: 7 }))],
    ["a cwd that is not a string", line(header({ cwd: null }))],
  ])("refuses %s as the header, naming line 1", (_, text) => {
    expect(invalid(() => parseSessionText(`${text}${line(message("a", null))}`)).message).toBe(
      'Session file line 1: not a session header (expected {type:"session", id, cwd, …}).',
    );
  });

  it("refuses a version it does not read", () => {
    expect(invalid(() => parseSessionText(file(header({ version: 4 })))).message).toBe(
      "Session file line 1: unsupported session version 4 (this library reads 1–3).",
    );
  });

  it("refuses an empty file, or one of blank lines only", () => {
    for (const text of ["", "\n\n", "  \n\t\n"])
      expect(invalid(() => parseSessionText(text)).message).toBe(
        "Session file line 1: the file is empty (no session header).",
      );
  });
});

describe("parseSessionText: lines", () => {
  it("skips empty and blank lines anywhere, counting them in line numbers", () => {
    const text = `\n${line(header())}\n \n\t\n${line(message("a", null))}  \n${JSON.stringify({ bad: 1 })}\n`;
    const parsed = parseSessionText(text, { recover: true });
    expect(parsed.tree.getEntries().map((entry) => entry.id)).toEqual(["a"]);
    expect(parsed.skipped).toEqual([{ line: 8, reason: "missing entry type", text: '{"bad":1}' }]);
  });

  it("reads a line with leading spaces as the object it holds", () => {
    const parsed = parseSessionText(`${line(header())}   ${line(message("a", null))}`);
    expect(parsed.tree.getEntries().map((entry) => entry.id)).toEqual(["a"]);
  });

  it.each([
    ["missing entry type", { ...message("x", null), type: undefined }],
    ["missing entry type", { ...message("x", null), type: "" }],
    ["missing entry type", { ...message("x", null), type: 5 }],
    ["missing entry id", { ...message("x", null), id: undefined }],
    ["missing entry id", { ...message("x", null), id: "" }],
    ["missing entry id", { ...message("x", null), id: 5 }],
    ["parentId must be a string or null", { ...message("x", null), parentId: 5 }],
    ["parentId must be a string or null", { ...message("x", null), parentId: undefined }],
    ["missing timestamp", { ...message("x", null), timestamp: 1 }],
  ])("an entry with a bad envelope: %s", (reason, bad) => {
    const text = file(header(), message("a", null), bad, message("b", "a"));
    expect(invalid(() => parseSessionText(text)).message).toBe(`Session file line 3: ${reason}.`);
    const parsed = parseSessionText(text, { recover: true });
    expect(parsed.skipped).toEqual([{ line: 3, reason, text: JSON.stringify(bad) }]);
    expect(parsed.tree.getEntries().map((entry) => entry.id)).toEqual(["a", "b"]);
  });

  it.each([
    ["a JSON array", "[1]"],
    ["null", "null"],
    ["a string", '"entry"'],
    ["a number", "42"],
    ["text", "not json"],
  ])("a middle line that is %s is not a JSON object", (_, bad) => {
    const text = `${line(header())}${bad}\n${line(message("a", null))}`;
    expect(invalid(() => parseSessionText(text)).message).toBe("Session file line 2: not a JSON object.");
    const parsed = parseSessionText(text, { recover: true });
    expect(parsed.skipped).toEqual([{ line: 2, reason: "not a JSON object", text: bad }]);
    expect(parsed.tree.getEntries().map((entry) => entry.id)).toEqual(["a"]);
  });

  it("an unparsable last line is a torn tail, also with blank lines after it", () => {
    const start = `${line(header())}${line(message("a", null))}`;
    for (const after of ["", "\n", "\n  \n"]) {
      const parsed = parseSessionText(`${start}{"type":"mess${after}`);
      expect(parsed.tornTail).toEqual({
        line: 3,
        reason: "torn last line (unparsable JSON)",
        text: '{"type":"mess',
        start: start.length,
      });
      expect(parsed.missingFinalNewline).toBe(false);
      expect(parsed.tree.getEntries().map((entry) => entry.id)).toEqual(["a"]);
    }
  });

  it("has no tornTail and tells whether the last kept line ends with a newline", () => {
    const text = file(header(), message("a", null));
    const whole = parseSessionText(text);
    expect("tornTail" in whole).toBe(false);
    expect(whole.missingFinalNewline).toBe(false);
    expect(whole.sourceVersion).toBe(3);
    expect(parseSessionText(text.slice(0, -1)).missingFinalNewline).toBe(true);
    expect(parseSessionText(`\n${text.slice(0, -1)}`).missingFinalNewline).toBe(true);
  });
});

describe("parseSessionText: entries skipped for their fields keep the tree's shape", () => {
  const broken = (id: string, parentId: string | null) =>
    message(id, parentId, { message: { role: "user" } });

  it("the children of a chain of skipped entries hang on the last kept ancestor", () => {
    const text = file(header(), message("a", null), broken("b", "a"), broken("c", "b"), message("d", "c"));
    const parsed = parseSessionText(text, { recover: true });
    expect(parsed.skipped.map((skipped) => skipped.line)).toEqual([3, 4]);
    expect(parsed.tree.getEntry("d")?.parentId).toBe("a");
  });

  it("a skipped root's children become roots", () => {
    const parsed = parseSessionText(file(header(), broken("a", null), message("b", "a")), { recover: true });
    expect(parsed.tree.getEntry("b")?.parentId).toBeNull();
  });

  it("a skipped entry that reuses a kept entry's id does not move that entry's children", () => {
    const text = file(header(), message("a", null), message("b", "a"), broken("b", null), message("c", "b"));
    const parsed = parseSessionText(text, { recover: true });
    expect(parsed.skipped.map((skipped) => skipped.line)).toEqual([4]);
    expect(parsed.tree.getEntry("c")?.parentId).toBe("b");
  });
});

describe("parseSessionText: pi's older versions", () => {
  it("a version-2 file keeps its ids and parents, and its hookMessage becomes custom", () => {
    const hook = message("h", "a", {
      message: { role: "hookMessage", customType: "x", content: "hi", display: true, timestamp: 1 },
    });
    const parsed = parseSessionText(
      file(header({ version: 2 }), message("a", null), message("b", null), hook),
    );
    expect(parsed.sourceVersion).toBe(2);
    expect(parsed.tree.getEntries().map((entry) => [entry.id, entry.parentId])).toEqual([
      ["a", null],
      ["b", null],
      ["h", "a"],
    ]);
    expect((parsed.tree.getEntry("h") as { message: { role: string } }).message.role).toBe("custom");
  });

  it("a version-3 file is read as written, without the older versions' migration", () => {
    const hook = message("h", null, {
      message: { role: "hookMessage", customType: "x", content: "hi", display: true, timestamp: 1 },
    });
    const parsed = parseSessionText(file(header(), hook));
    expect((parsed.tree.getEntry("h") as { message: { role: string } }).message.role).toBe("hookMessage");
  });
});

describe("parseSessionValues", () => {
  it("builds the session of a v3 header and entries, numbering them as lines after the header", () => {
    const parsed = parseSessionValues(header(), [message("a", null), message("b", "a")]);
    expect(parsed.header).toEqual(header());
    expect(parsed.tree.getEntries().map((entry) => entry.id)).toEqual(["a", "b"]);
    expect(parsed).toMatchObject({ sourceVersion: 3, skipped: [], missingFinalNewline: false });
    expect(parsed.tornTail).toBeUndefined();
    const bad = { ...message("x", null), id: "" };
    expect(invalid(() => parseSessionValues(header(), [message("a", null), bad])).message).toBe(
      "Session file line 3: missing entry id.",
    );
    const recovered = parseSessionValues(header(), [message("a", null), bad, message("b", "a")], {
      recover: true,
    });
    expect(recovered.skipped).toEqual([{ line: 3, reason: "missing entry id", text: JSON.stringify(bad) }]);
    expect(recovered.tree.getEntries().map((entry) => entry.id)).toEqual(["a", "b"]);
  });

  it.each([
    ["another type", header({ type: "message" })],
    ["an id that is not a string", header({ id: 1 })],
    ["a cwd that is not a string", header({ cwd: 1 })],
  ])("refuses %s as the header", (_, bad) => {
    expect(invalid(() => parseSessionValues(bad, [])).message).toBe(
      'Session file line 1: not a session header (expected {type:"session", id, cwd, …}).',
    );
  });

  it("refuses a header of another version", () => {
    for (const version of [2, 4, undefined])
      expect(invalid(() => parseSessionValues(header({ version }), [])).message).toBe(
        "Session file line 1: expected a version-3 session header.",
      );
  });
});

describe("serializeLine: what counts as a secret", () => {
  it("drops headers on the entry or its message even when no apiKey is there", () => {
    const onEntry = { ...message("a", null), headers: { cookie: "c" } };
    expect(JSON.parse(serializeLine(onEntry as never))).toEqual(message("a", null));
    const inMessage = message("a", null, {
      message: { role: "user", content: "x", timestamp: 1, headers: {} },
    });
    expect(JSON.parse(serializeLine(inMessage as never)).message).toEqual({
      role: "user",
      content: "x",
      timestamp: 1,
    });
    const custom = {
      type: "custom",
      id: "c",
      parentId: null,
      timestamp: "t",
      customType: "x",
      message: null,
    };
    expect(serializeLine(custom as never)).toBe(`${JSON.stringify(custom)}\n`);
  });
});

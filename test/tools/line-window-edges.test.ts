/** `readLineWindow` at the edges the property test of `line-window.test.ts` reaches seldom. */
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLineWindow } from "../../src/tools/builtin/line-window.js";
import { makeTempDir } from "../support/builtin-tools.js";

describe("readLineWindow at its edges", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir("agentchart-line-window-edges-");
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function windowOf(
    content: string | Buffer,
    request: { startLine?: number; limit?: number; maxBytes?: number; countLinesUpTo?: number },
  ) {
    const file = path.join(dir, "text.txt");
    await fs.writeFile(file, content);
    const handle = await fs.open(file, "r");
    try {
      const size = (await handle.stat()).size;
      return await readLineWindow(handle, {
        startLine: request.startLine ?? 1,
        ...(request.limit === undefined ? {} : { limit: request.limit }),
        maxLines: 2000,
        maxBytes: request.maxBytes ?? 1000,
        countLinesUpTo: request.countLinesUpTo ?? size,
        size,
        signal: new AbortController().signal,
      });
    } finally {
      await handle.close();
    }
  }

  it("counts the lines of a file exactly as large as countLinesUpTo, not of a larger one", async () => {
    const text = "a\nb\nc\nd\n";
    const counted = await windowOf(text, { limit: 1, countLinesUpTo: Buffer.byteLength(text) });
    expect(counted).toMatchObject({ lines: ["a"], more: true, totalLines: 4 });
    const uncounted = await windowOf(text, { limit: 1, countLinesUpTo: Buffer.byteLength(text) - 1 });
    expect(uncounted).toMatchObject({ lines: ["a"], more: true });
    expect(uncounted.totalLines).toBeUndefined();
  });

  it("in a file too large to count, knows lines follow a byte stop after whole lines, not after a cut line", async () => {
    const text = `short\n${"x".repeat(50)}\nmore\n`;
    const whole = await windowOf(text, { maxBytes: 20, countLinesUpTo: 0 });
    expect(whole).toMatchObject({ lines: ["short"], lineCut: false, truncatedBy: "bytes", more: true });
    expect(whole.totalLines).toBeUndefined();
    const cut = await windowOf(text, { startLine: 2, maxBytes: 20, countLinesUpTo: 0 });
    expect(cut).toMatchObject({ lines: ["x".repeat(20)], lineCut: true, truncatedBy: "bytes", more: false });
  });

  it.each([
    ["a character whose lead byte is 0xE0 (U+0800)", "\u0800\u0800", 5, "\u0800"],
    ["a 2-byte character", "éé", 3, "é"],
    ["a 4-byte character", "😀😀", 7, "😀"],
  ])("cuts a line too long for the bound before %s it would split", async (_name, line, maxBytes, kept) => {
    const window = await windowOf(line, { maxBytes });
    expect(window).toMatchObject({ lines: [kept], lineCut: true, truncatedBy: "bytes" });
  });

  it("cuts before a lead byte 0xC0 (not valid UTF-8) it would split from its continuation byte", async () => {
    const window = await windowOf(Buffer.from([0x61, 0xc0, 0x80]), { maxBytes: 2 });
    expect(window.lines).toEqual(["a"]);
  });
});

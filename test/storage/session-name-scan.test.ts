import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { latestNameInText, scanForLatestName } from "../../src/storage/session-name-scan.js";

const dir = mkdtempSync(join(tmpdir(), "agentchart-name-scan-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHUNK = 64 * 1024;
const info = (name: string) => JSON.stringify({ type: "session_info", id: "i", parentId: null, name });
const filler = (length: number) => JSON.stringify({ type: "custom", id: "f", pad: "p".repeat(length) });

function scanText(text: string, start = 0) {
  const path = join(dir, "scan.jsonl");
  writeFileSync(path, text);
  const fd = openSync(path, "r");
  try {
    return scanForLatestName(fd, start, Buffer.byteLength(text));
  } finally {
    closeSync(fd);
  }
}

describe("scanForLatestName", () => {
  it("finds a name line wherever it falls against the 64 KB chunk boundaries", () => {
    const after = `${filler(CHUNK - 100)}\n`;
    for (let shift = -60; shift <= 60; shift += 3) {
      const before = `${filler(2 * CHUNK + shift)}\n`;
      const text = `${before}${info(`name ${shift}`)}\n${after}${after}`;
      const scan = scanText(text);
      expect(scan.name).toBe(`name ${shift}`);
      expect(scan.linesEnd).toBe(Buffer.byteLength(text));
      expect(scan.foundEnd).toBe(Buffer.byteLength(before) + Buffer.byteLength(info(`name ${shift}`)));
    }
  });

  it("takes the last of several names, passes over nested look-alikes and torn lines", () => {
    const nested = JSON.stringify({
      type: "custom",
      id: "n",
      data: { type: "session_info", name: "nested" },
    });
    const text = `${info("one")}\n${info("two")}\n${nested}\n{"type":"session_info","name":"torn`;
    expect(scanText(text)).toMatchObject({ found: true, name: "two" });
  });

  it("counts an unterminated last line that parses, and reports where the lines end", () => {
    const text = `${info("one")}\n${info("tail")}`;
    expect(scanText(text)).toEqual({
      found: true,
      name: "tail",
      linesEnd: Buffer.byteLength(info("one")) + 1,
      foundEnd: Buffer.byteLength(text),
    });
  });

  it("reports a cleared name as found without a name, and nothing when there is none", () => {
    const cleared = scanText(`${info("a")}\n${JSON.stringify({ type: "session_info", id: "c" })}\n`);
    expect([cleared.found, cleared.name]).toEqual([true, undefined]);
    expect(scanText(`${filler(200_000)}\n${filler(10)}\n`)).toMatchObject({ found: false });
  });

  it("searches only from `start` on", () => {
    const first = `${info("outside")}\n`;
    expect(scanText(`${first}${filler(10)}\n`, Buffer.byteLength(first))).toMatchObject({ found: false });
  });
});

describe("scanForLatestName, at the edges", () => {
  it("joins a name line cut by a chunk boundary at any byte", () => {
    const line = info("straddling");
    const overhead = filler(0).length + 1;
    for (let cut = 1; cut < line.length; cut += 1) {
      // The last chunk starts `cut` bytes before the end of the name line.
      const tail = `${filler(CHUNK - cut - 1 - overhead)}\n`;
      const text = `${filler(100)}\n${line}\n${tail}`;
      expect(Buffer.byteLength(tail) + cut + 1).toBe(CHUNK);
      const scan = scanText(text);
      expect(scan).toEqual({
        found: true,
        name: "straddling",
        linesEnd: Buffer.byteLength(text),
        foundEnd: Buffer.byteLength(`${filler(100)}\n${line}`),
      });
    }
  });

  it("skips a name line well over 1 MB unread (the bound is checked a chunk at a time), and finds the name before it", () => {
    const huge = info("x".repeat(1024 * 1024 + 2 * CHUNK));
    expect(scanText(`${info("short")}\n${huge}\n`)).toMatchObject({ found: true, name: "short" });
    expect(scanText(`${info("short")}\n${huge}`)).toMatchObject({ found: true, name: "short" });
  });

  it("reads a name that is no string as no name, and a cleared name without a name key", () => {
    const numbered = JSON.stringify({ type: "session_info", id: "n", parentId: null, name: 42 });
    expect(scanText(`${numbered}\n`)).toStrictEqual({
      found: true,
      linesEnd: Buffer.byteLength(numbered) + 1,
      foundEnd: Buffer.byteLength(numbered),
    });
  });

  it("finds nothing in a range of empty lines and lines without a name", () => {
    expect(scanText(`\n\n${filler(10)}\n\n`)).toEqual({
      found: false,
      linesEnd: Buffer.byteLength(`\n\n${filler(10)}\n\n`),
    });
    expect(scanText("")).toEqual({ found: false, linesEnd: 0 });
  });
});

describe("latestNameInText", () => {
  it("passes over look-alikes after the last name, and counts an unterminated last line", () => {
    const nested = JSON.stringify({
      type: "custom",
      id: "n",
      data: { type: "session_info", name: "nested" },
    });
    expect(latestNameInText(`${info("a")}\n${nested}\n${nested}\n`)).toEqual({ found: true, name: "a" });
    expect(latestNameInText(`${filler(5)}\n${info("tail")}`)).toEqual({ found: true, name: "tail" });
    expect(latestNameInText(`${nested}\n`)).toEqual({ found: false });
  });

  it("finds the last session_info line of a batch", () => {
    expect(latestNameInText(`${info("a")}\n${filler(5)}\n${info("b")}\n${filler(5)}\n`)).toEqual({
      found: true,
      name: "b",
    });
    expect(latestNameInText(`${filler(5)}\n`)).toEqual({ found: false });
  });
});

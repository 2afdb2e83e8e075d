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

describe("latestNameInText", () => {
  it("finds the last session_info line of a batch", () => {
    expect(latestNameInText(`${info("a")}\n${filler(5)}\n${info("b")}\n${filler(5)}\n`)).toEqual({
      found: true,
      name: "b",
    });
    expect(latestNameInText(`${filler(5)}\n`)).toEqual({ found: false });
  });
});

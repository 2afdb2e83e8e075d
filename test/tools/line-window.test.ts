import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LineWindow, readLineWindow } from "../../src/tools/builtin/line-window.js";
import { makeTempDir } from "../support/builtin-tools.js";

/** A small seeded generator (mulberry32), so a failing case can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ["a", "b", " ", "é", "€", "😀", "\r"];
/** Line lengths around the 64 KB chunk size, the byte limits used below, and short ones. */
const LENGTHS = [0, 1, 3, 40, 300, 999, 1000, 1001, 20_000, 65_535, 65_536, 70_000];

function randomText(next: () => number): string {
  const lines: string[] = [];
  const count = Math.floor(next() * 12);
  for (let i = 0; i < count; i++) {
    const length = LENGTHS[Math.floor(next() * LENGTHS.length)] as number;
    let block = "";
    for (let piece = 0; piece < 24; piece++) block += PIECES[Math.floor(next() * PIECES.length)];
    const line = block.repeat(Math.ceil(length / block.length)).slice(0, length);
    // Never end on half of a surrogate pair (it would be written as U+FFFD).
    lines.push(/[\uD800-\uDBFF]$/.test(line) ? line.slice(0, -1) : line);
  }
  return lines.join("\n") + (next() < 0.5 ? "\n" : "");
}

/**
 * A byte bound for a window from `startLine`: 1,000 or 50 KB, or (half the time) the exact size of
 * its first lines with their newlines, give or take one byte, where an off-by-one shows.
 */
function byteBound(text: string, startLine: number, next: () => number): number {
  const lines = text.split("\n").slice(startLine - 1);
  if (lines.length === 0 || next() < 0.5) return next() < 0.5 ? 1000 : 50 * 1024;
  const count = 1 + Math.floor(next() * Math.min(lines.length, 4));
  const exact = Buffer.byteLength(lines.slice(0, count).join("\n"));
  return Math.max(1, exact + Math.floor(next() * 3) - 1);
}

/** The longest start of `line` (whole characters) within `maxBytes` UTF-8 bytes. */
function charactersWithin(line: string, maxBytes: number): string {
  let bytes = 0;
  let length = 0;
  for (const character of line) {
    bytes += Buffer.byteLength(character);
    if (bytes > maxBytes) break;
    length += character.length;
  }
  return line.slice(0, length);
}

/**
 * What `read` showed before it streamed: the whole text split on `\n` (a final newline starts no
 * line), the requested lines sliced, then whole lines kept within the line and byte bounds — except
 * that a first line over the byte bound is now cut instead of left out.
 */
function expectedWindow(
  text: string,
  request: { startLine: number; limit?: number; maxLines: number; maxBytes: number },
): LineWindow {
  const all = text === "" ? [] : text.split("\n");
  if (all.length > 1 && all[all.length - 1] === "") all.pop();
  const window: LineWindow = { lines: [], lineCut: false, more: false, totalLines: all.length };
  if (request.startLine > all.length) return window;
  const first = request.startLine - 1;
  const selected = all.slice(first, request.limit === undefined ? undefined : first + request.limit);
  let bytes = 0;
  for (const [index, line] of selected.entries()) {
    if (index === request.maxLines) {
      window.truncatedBy = "lines";
      break;
    }
    const cost = Buffer.byteLength(line) + (index > 0 ? 1 : 0);
    if (bytes + cost > request.maxBytes) {
      if (index === 0) {
        window.lines.push(charactersWithin(line, request.maxBytes));
        window.lineCut = true;
      }
      window.truncatedBy = "bytes";
      break;
    }
    window.lines.push(line);
    bytes += cost;
  }
  window.more = first + window.lines.length < all.length;
  return window;
}

describe("readLineWindow", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir("agentchart-line-window-");
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function windowOf(
    text: string,
    request: Parameters<typeof expectedWindow>[1],
    countLinesUpTo: number,
  ) {
    const file = path.join(dir, "text.txt");
    await fs.writeFile(file, text);
    const handle = await fs.open(file, "r");
    try {
      const size = (await handle.stat()).size;
      return await readLineWindow(handle, {
        ...request,
        countLinesUpTo,
        size,
        signal: new AbortController().signal,
      });
    } finally {
      await handle.close();
    }
  }

  it("keeps the lines the whole-text split keeps, across 64 KB chunk boundaries and multi-byte characters", async () => {
    const next = random(19);
    for (let round = 0; round < 80; round++) {
      const text = randomText(next);
      const startLine = 1 + Math.floor(next() * 4);
      const request = {
        startLine,
        ...(next() < 0.6 ? { limit: 1 + Math.floor(next() * 6) } : {}),
        maxLines: 1 + Math.floor(next() * 8),
        maxBytes: byteBound(text, startLine, next),
      };
      const expected = expectedWindow(text, request);
      const counted = await windowOf(text, request, Number.POSITIVE_INFINITY);
      expect({ round, ...counted }).toEqual({ round, ...expected });

      // Not counted: the same lines; the total only when the window reached the end anyway.
      const { totalLines, more: _more, ...uncounted } = await windowOf(text, request, 0);
      const { totalLines: expectedTotal, more: _expectedMore, ...lines } = expected;
      expect({ round, ...uncounted }).toEqual({ round, ...lines });
      if (totalLines !== undefined) expect(totalLines).toBe(expectedTotal);
    }
  });

  it("rejects with 'Operation aborted' at the next chunk once its signal is aborted", async () => {
    const file = path.join(dir, "many-lines.txt");
    await fs.writeFile(file, "line\n".repeat(2 * 1024 * 1024));
    const handle = await fs.open(file, "r");
    try {
      const controller = new AbortController();
      const reading = readLineWindow(handle, {
        startLine: 3_000_000,
        maxLines: 10,
        maxBytes: 1000,
        countLinesUpTo: 0,
        size: (await handle.stat()).size,
        signal: controller.signal,
      });
      // Skipping 2 Mi lines takes 160 reads; this runs after the first.
      setImmediate(() => controller.abort());
      await expect(reading).rejects.toThrow("Operation aborted");
    } finally {
      await handle.close();
    }
  });
});

import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectImageType, MAX_IMAGE_BYTES, readTool } from "../../src/tools/builtin/read.js";
import { makeTempDir, runTool, textOf } from "../support/builtin-tools.js";

const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");

describe("read", () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await makeTempDir();
  });
  afterEach(async () => {
    await fs.rm(cwd, { recursive: true, force: true });
  });

  it("returns a small text file as plain text", async () => {
    await fs.writeFile(path.join(cwd, "a.txt"), "hello\nworld\n");
    const result = await runTool(readTool, cwd, { path: "a.txt" });
    expect(result.content).toEqual([{ type: "text", text: "hello\nworld" }]);
    expect(result.details).toMatchObject({
      kind: "text",
      totalLines: 2,
      startLine: 1,
      endLine: 2,
      truncated: false,
    });
  });

  it("honours offset and limit and says how to continue", async () => {
    await fs.writeFile(path.join(cwd, "n.txt"), numbered(10));
    const result = await runTool(readTool, cwd, { path: "n.txt", offset: 3, limit: 2 });
    expect(textOf(result)).toBe("line 3\nline 4\n\n[Showing lines 3-4 of 10. Use offset=5 to continue.]");
    const tail = await runTool(readTool, cwd, { path: "n.txt", offset: 9 });
    expect(textOf(tail)).toBe("line 9\nline 10");
  });

  it("rejects an offset past the end and invalid offsets", async () => {
    await fs.writeFile(path.join(cwd, "n.txt"), numbered(3));
    await expect(runTool(readTool, cwd, { path: "n.txt", offset: 4 })).rejects.toThrow(
      "offset 4 is beyond the end of n.txt (3 lines)",
    );
    await expect(runTool(readTool, cwd, { path: "n.txt", offset: 0 })).rejects.toThrow();
  });

  it("cuts long files at 2,000 lines with a note", async () => {
    await fs.writeFile(path.join(cwd, "big.txt"), numbered(2500));
    const result = await runTool(readTool, cwd, { path: "big.txt" });
    const text = textOf(result);
    expect(text.split("\n")[1999]).toBe("line 2000");
    expect(text.endsWith("[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")).toBe(true);
    expect(result.details).toMatchObject({ truncated: true, endLine: 2000 });
  });

  it("cuts at 50 KB and points at the next offset", async () => {
    const line = "x".repeat(999);
    await fs.writeFile(path.join(cwd, "wide.txt"), Array.from({ length: 100 }, () => line).join("\n"));
    const text = textOf(await runTool(readTool, cwd, { path: "wide.txt" }));
    expect(text).toContain("[Showing lines 1-51 of 100 (50.0 KB limit). Use offset=52 to continue.]");
  });

  it("cuts a single line over 50 KB at 50 KB and says how to see the rest", async () => {
    await fs.writeFile(path.join(cwd, "min.js"), `${"y".repeat(60 * 1024)}\nnext\n`);
    const result = await runTool(readTool, cwd, { path: "min.js" });
    const [shown, note] = textOf(result).split("\n\n");
    expect(shown).toBe("y".repeat(50 * 1024));
    expect(note).toBe(
      "[Line 1 is longer than 50.0 KB, the limit of read: showing its first 50.0 KB. Use bash for the rest, " +
        "e.g. sed -n '1p' min.js | tail -c +51201 | head -c 51200. Use offset=2 for the lines after it.]",
    );
    expect(result.details).toMatchObject({ totalLines: 2, startLine: 1, endLine: 1, truncated: true });
  });

  it("cuts a long line of multi-byte characters between two characters", async () => {
    await fs.writeFile(path.join(cwd, "euro.txt"), "€".repeat(20_000));
    const [shown, note] = textOf(await runTool(readTool, cwd, { path: "euro.txt" })).split("\n\n");
    // 51,200 bytes hold 17,066 three-byte characters and two bytes of the next one, which are left out.
    expect(shown).toBe("€".repeat(17_066));
    expect(note).not.toContain("offset=");
  });

  it("reads the first lines of a 1 GB file without loading it: bounded memory, the note gives its size", async () => {
    const file = path.join(cwd, "huge.log");
    // Text first (no NUL in the first 8 KB), then a hole up to 1 GB: sparse, no disk used.
    await fs.writeFile(file, `first\nsecond\nthird\n${"x".repeat(9000)}\n`);
    await fs.truncate(file, 1024 ** 3);
    const peakBefore = process.resourceUsage().maxRSS;
    const result = await runTool(readTool, cwd, { path: "huge.log", limit: 3 });
    const peakGrowthMb = (process.resourceUsage().maxRSS - peakBefore) / 1024;
    expect(textOf(result)).toBe(
      "first\nsecond\nthird\n\n[Showing lines 1-3 of a 1.0 GB file. Use offset=4 to continue.]",
    );
    expect(result.details).toEqual({ path: file, kind: "text", startLine: 1, endLine: 3, truncated: false });
    expect(peakGrowthMb).toBeLessThan(50);
  });

  it("cuts a line that runs through a 1 GB file without reading the rest of it", async () => {
    const file = path.join(cwd, "one-line.bin");
    await fs.writeFile(file, "a".repeat(100 * 1024));
    await fs.truncate(file, 1024 ** 3);
    const peakBefore = process.resourceUsage().maxRSS;
    const result = await runTool(readTool, cwd, { path: "one-line.bin" });
    const peakGrowthMb = (process.resourceUsage().maxRSS - peakBefore) / 1024;
    const [shown, note] = textOf(result).split("\n\n");
    expect(shown).toBe("a".repeat(50 * 1024));
    expect(note).toMatch(/^\[Line 1 is longer than 50\.0 KB.* Use offset=2 for the lines after it\.\]$/);
    expect(result.details).toEqual({ path: file, kind: "text", startLine: 1, endLine: 1, truncated: true });
    expect(peakGrowthMb).toBeLessThan(50);
  });

  it("stops at an abort while it reads, e.g. on its way to a far offset", async () => {
    // 4 Mi lines, 20 MB: skipping to the offset takes over 300 reads of 64 KB.
    await fs.writeFile(path.join(cwd, "lines.txt"), "line\n".repeat(4 * 1024 * 1024));
    const controller = new AbortController();
    const reading = runTool(
      readTool,
      cwd,
      { path: "lines.txt", offset: 5_000_000 },
      { signal: controller.signal },
    );
    setImmediate(() => controller.abort());
    await expect(reading).rejects.toThrow("Operation aborted");
  });

  it("returns images as base64 image content with the mime type", async () => {
    const bytes = Buffer.from(PNG_1X1, "base64");
    await fs.writeFile(path.join(cwd, "pixel.bin"), bytes);
    const result = await runTool(readTool, cwd, { path: "pixel.bin" });
    expect(result.content[1]).toEqual({ type: "image", data: PNG_1X1, mimeType: "image/png" });
    expect(textOf(result)).toContain("image/png");
  });

  it("recognises PNG, JPEG, GIF and WebP by their first bytes, and nothing shorter or else", () => {
    const bytes = (...values: (number | string)[]) =>
      Buffer.concat(
        values.map((value) => (typeof value === "string" ? Buffer.from(value, "latin1") : Buffer.of(value))),
      );
    const cases: [Buffer, string | undefined][] = [
      [Buffer.from(PNG_1X1, "base64"), "image/png"],
      [Buffer.from(PNG_1X1, "base64").subarray(0, 8), "image/png"],
      [Buffer.from(PNG_1X1, "base64").subarray(0, 7), undefined],
      [bytes(0xff, 0xd8, 0xff), "image/jpeg"],
      [bytes(0xff, 0xd8), undefined],
      [bytes(0xfe, 0xd8, 0xff), undefined],
      [bytes(0xff, 0xd9, 0xff), undefined],
      [bytes(0xff, 0xd8, 0xfe), undefined],
      [bytes("GIF87a", 1), "image/gif"],
      [bytes("GIF89a", 1), "image/gif"],
      [bytes("xGIF89a"), undefined],
      [bytes("RIFF", 0, 0, 0, 0, "WEBP"), "image/webp"],
      [bytes("RIFF", 0, 0, 0, 0, "WAVE"), undefined],
      [bytes("RIFX", 0, 0, 0, 0, "WEBP"), undefined],
      [bytes("text"), undefined],
    ];
    for (const [buffer, type] of cases) expect(detectImageType(buffer), buffer.toString("hex")).toBe(type);
  });

  it("returns an image's details, and refuses one over the size limit by its size", async () => {
    const gif = Buffer.concat([Buffer.from("GIF89a", "latin1"), Buffer.alloc(10)]);
    await fs.writeFile(path.join(cwd, "small.gif"), gif);
    const result = await runTool(readTool, cwd, { path: "small.gif" });
    expect(result.details).toEqual({
      path: path.join(cwd, "small.gif"),
      kind: "image",
      mimeType: "image/gif",
      bytes: 16,
    });
    const big = await fs.open(path.join(cwd, "big.gif"), "w");
    await big.write(gif);
    await big.truncate(MAX_IMAGE_BYTES + 1);
    await big.close();
    await expect(runTool(readTool, cwd, { path: "big.gif" })).rejects.toThrow(
      "big.gif is a 10.0 MB image; the limit is 10.0 MB",
    );
  });

  it("refuses other binary files, folders and missing files clearly", async () => {
    await fs.writeFile(path.join(cwd, "blob.dat"), Buffer.from([1, 2, 0, 3]));
    await fs.mkdir(path.join(cwd, "dir"));
    await expect(runTool(readTool, cwd, { path: "blob.dat" })).rejects.toThrow(/blob\.dat is a binary file/);
    await expect(runTool(readTool, cwd, { path: "dir" })).rejects.toThrow(
      "dir is a directory; use ls to list it",
    );
    await expect(runTool(readTool, cwd, { path: "nope.txt" })).rejects.toThrow("File not found: nope.txt");
  });

  it("reports an empty file", async () => {
    await fs.writeFile(path.join(cwd, "empty.txt"), "");
    expect(textOf(await runTool(readTool, cwd, { path: "empty.txt" }))).toBe("(empty file)");
  });
});

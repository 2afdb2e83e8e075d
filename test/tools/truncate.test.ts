import { describe, expect, it } from "vitest";
import { formatBytes, truncateHead, truncateTail } from "../../src/tools/builtin/truncate.js";

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");

describe("truncateHead", () => {
  it("leaves short text alone", () => {
    expect(truncateHead("a\nb\n")).toMatchObject({ text: "a\nb\n", truncated: false, totalLines: 2 });
  });

  it("keeps the first lines up to the line limit", () => {
    const result = truncateHead(numbered(10), { maxLines: 3 });
    expect(result).toMatchObject({
      text: "line 1\nline 2\nline 3",
      truncatedBy: "lines",
      keptLines: 3,
      totalLines: 10,
    });
  });

  it("keeps whole lines only under the byte limit", () => {
    const result = truncateHead("aaaa\nbbbb\ncccc", { maxBytes: 11 });
    expect(result).toMatchObject({ text: "aaaa\nbbbb", truncatedBy: "bytes", keptLines: 2, keptBytes: 9 });
  });

  it("keeps a first line that fills the byte limit exactly", () => {
    expect(truncateHead("aaaa\nbbbb", { maxBytes: 4 })).toMatchObject({ text: "aaaa", keptLines: 1 });
  });

  it("drops a trailing newline that alone is over the byte limit", () => {
    expect(truncateHead("abc\n", { maxBytes: 3 })).toMatchObject({ text: "abc", truncatedBy: "bytes" });
    expect(truncateHead("abc\n", { maxBytes: 4 })).toMatchObject({ text: "abc\n", truncated: false });
  });

  it("keeps nothing when the first line alone is too long", () => {
    expect(truncateHead("x".repeat(20), { maxBytes: 10 })).toMatchObject({
      text: "",
      keptLines: 0,
      truncated: true,
    });
  });
});

describe("truncateTail", () => {
  it("keeps the last lines up to the line limit", () => {
    expect(truncateTail(`${numbered(10)}\n`, { maxLines: 2 })).toMatchObject({
      text: "line 9\nline 10",
      truncatedBy: "lines",
      totalLines: 10,
    });
  });

  it("keeps whole last lines under the byte limit, newlines counted", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${String(i).padStart(4, "0")}`); // 9 bytes each
    const result = truncateTail(lines.join("\n"), { maxBytes: 100 });
    expect(result).toMatchObject({
      truncatedBy: "bytes",
      keptLines: 10,
      keptBytes: 99,
      totalBytes: 30 * 10 - 1,
    });
    expect(result.text).toBe(lines.slice(20).join("\n"));
  });

  it("keeps nothing under a zero line limit", () => {
    expect(truncateTail("one\ntwo", { maxLines: 0 })).toMatchObject({
      text: "",
      keptLines: 0,
      truncatedBy: "lines",
    });
  });

  it("drops a trailing newline that alone is over the byte limit", () => {
    expect(truncateTail("abc\n", { maxBytes: 3 })).toMatchObject({
      text: "abc",
      truncatedBy: "bytes",
      keptBytes: 3,
    });
  });

  it("keeps the tail bytes of an over-long last line, without broken characters", () => {
    const result = truncateTail(`start\n${"é".repeat(10)}`, { maxBytes: 5 });
    expect(result.text).toBe("éé");
    expect(result).toMatchObject({ truncatedBy: "bytes", keptLines: 1 });
  });

  it("keeps a replacement character of the text itself where the cut falls next to it", () => {
    expect(truncateTail("aaaa\uFFFDbb", { maxBytes: 6 }).text).toBe("a\uFFFDbb");
    expect(truncateTail("é\uFFFD", { maxBytes: 4 }).text).toBe("\uFFFD");
  });
});

describe("formatBytes", () => {
  it("says bytes below 1 KiB, then KB, MB and GB with one decimal", () => {
    expect(
      [0, 1023, 1024, 1536, 1024 ** 2 - 1, 1024 ** 2, 1024 ** 3 - 1, 1024 ** 3].map(formatBytes),
    ).toEqual(["0 B", "1023 B", "1.0 KB", "1.5 KB", "1024.0 KB", "1.0 MB", "1024.0 MB", "1.0 GB"]);
  });
});

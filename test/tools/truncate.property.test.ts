import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitLines, truncateHead, truncateTail } from "../../src/tools/builtin/truncate.js";

// For random texts (one- to four-byte characters, many or few newlines, a trailing newline or not) and
// random limits: what is kept is never over its cap in UTF-8 bytes or in lines, it is the start (head)
// or the end (tail) of the text, and the counts it reports are those of what it kept.

const character = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("a", "z", " ", "\t") },
  { weight: 2, arbitrary: fc.constant("\n") },
  { weight: 2, arbitrary: fc.constantFrom("é", "€", "😀", "\uFFFD") },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
);
const textArb = fc.string({ unit: character, maxLength: 200 });
const limitsArb = fc.record({
  maxLines: fc.integer({ min: 0, max: 12 }),
  maxBytes: fc.integer({ min: 0, max: 120 }),
});

const bytes = (text: string) => Buffer.byteLength(text, "utf8");
/** The text without the one trailing newline that `splitLines` does not count as a line. */
/** Whether the whole text is within both caps (then nothing is cut). */
const fits = (text: string, limits: { maxLines: number; maxBytes: number }) =>
  bytes(text) <= limits.maxBytes && splitLines(text).length <= limits.maxLines;
const withoutTrailingNewline = (text: string) => (text.endsWith("\n") ? text.slice(0, -1) : text);

describe("truncation (property)", () => {
  it("keeps a tail that is never over its caps in bytes or lines, and ends the text", () => {
    fc.assert(
      fc.property(textArb, limitsArb, (text, limits) => {
        const result = truncateTail(text, limits);
        expect(result.truncated).toBe(!fits(text, limits));
        if (!result.truncated) {
          expect(result.text).toBe(text);
          expect(bytes(text)).toBeLessThanOrEqual(limits.maxBytes);
          expect(splitLines(text).length).toBeLessThanOrEqual(limits.maxLines);
          return;
        }
        expect(bytes(result.text)).toBeLessThanOrEqual(limits.maxBytes);
        expect(splitLines(result.text).length).toBeLessThanOrEqual(limits.maxLines);
        expect(withoutTrailingNewline(text).endsWith(result.text)).toBe(true);
        expect(result.keptBytes).toBe(bytes(result.text));
        expect(result.keptLines).toBeLessThanOrEqual(limits.maxLines);
        expect(result.totalBytes).toBe(bytes(text));
        expect(result.totalLines).toBe(splitLines(text).length);
        // Nothing more would fit: the next line back, or (a last line over the cap) one more byte.
        const lines = splitLines(text);
        if (result.truncatedBy === "lines") expect(result.keptLines).toBe(limits.maxLines);
        else if (bytes(lines.at(-1)!) > limits.maxBytes) {
          expect(bytes(result.text)).toBeGreaterThan(limits.maxBytes - 4); // a cut character at most
        } else if (result.keptLines < lines.length) {
          const next = lines[lines.length - result.keptLines - 1]!;
          expect(bytes(result.text) + 1 + bytes(next)).toBeGreaterThan(limits.maxBytes);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("keeps a head that is never over its caps in bytes or lines, and starts the text", () => {
    fc.assert(
      fc.property(textArb, limitsArb, (text, limits) => {
        const result = truncateHead(text, limits);
        expect(result.truncated).toBe(!fits(text, limits));
        if (!result.truncated) {
          expect(result.text).toBe(text);
          return;
        }
        expect(bytes(result.text)).toBeLessThanOrEqual(limits.maxBytes);
        expect(splitLines(result.text).length).toBeLessThanOrEqual(limits.maxLines);
        expect(text.startsWith(result.text)).toBe(true);
        expect(result.keptBytes).toBe(bytes(result.text));
        expect(result.keptLines).toBeLessThanOrEqual(limits.maxLines);
        const lines = splitLines(text);
        if (result.truncatedBy === "lines") expect(result.keptLines).toBe(limits.maxLines);
        else if (result.keptLines < lines.length) {
          const separator = result.keptLines > 0 ? 1 : 0;
          const next = lines[result.keptLines]!;
          expect(bytes(result.text) + separator + bytes(next)).toBeGreaterThan(limits.maxBytes);
        }
      }),
      { numRuns: 500 },
    );
  });
});

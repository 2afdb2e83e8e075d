import { createWriteStream, type WriteStream } from "node:fs";
import fs from "node:fs/promises";
import { finished } from "node:stream/promises";
import type { OutputFiles } from "./output-files.js";
import { DEFAULT_MAX_BYTES, type TruncationResult, truncateTail } from "./truncate.js";

/** The collected output of a command: the visible tail and, when cut, where the rest is. */
export interface CollectedOutput {
  truncation: TruncationResult;
  /** Temp file with the complete output; set only when the output was truncated. */
  fullOutputPath?: string;
}

// C0 controls and DEL except tab, newline, carriage return and escape (which starts colour codes).
// NUL in particular: some stores refuse it in text (e.g. PostgreSQL), and none of them is readable.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNPRINTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001A\u001C-\u001F\u007F]/g;

/**
 * Collects a command's interleaved stdout/stderr as raw bytes. Memory stays bounded whatever the
 * output (binary, NULs, one endless line): only the last `2 × maxBytes` bytes are kept; once the
 * output outgrows `maxBytes` all of it (from the start, byte for byte) is also streamed to a file of
 * `files`. The visible text is the UTF-8 decoding of the kept tail (invalid bytes become U+FFFD,
 * unprintable control characters too), cut by `truncateTail`.
 */
export class CommandOutput {
  private chunks: Buffer[] = [];
  private keptBytes = 0;
  private totalBytes = 0;
  private newlines = 0;
  private endsWithNewline = true;
  private spill: WriteStream | undefined;
  private spillPath: string | undefined;
  private spillFailed = false;

  constructor(
    private readonly files: OutputFiles,
    private readonly maxBytes: number = DEFAULT_MAX_BYTES,
  ) {}

  /** Bytes held in memory; never more than `2 × maxBytes`. */
  get retainedBytes(): number {
    return this.keptBytes;
  }

  /**
   * Adds a chunk of output. Returns false when the full-output file is behind; the producer should
   * pause until `drained()` resolves, so unwritten chunks do not pile up in memory.
   */
  append(chunk: Buffer): boolean {
    this.totalBytes += chunk.length;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) this.newlines++;
    if (chunk.length > 0) this.endsWithNewline = chunk[chunk.length - 1] === 10;
    if (this.spill === undefined && !this.spillFailed && this.totalBytes > this.maxBytes) this.startSpill();
    const flowing = this.spill === undefined || this.spill.write(chunk);
    this.chunks.push(chunk);
    this.keptBytes += chunk.length;
    this.dropOldBytes();
    return flowing;
  }

  /** Resolves once the full-output file has taken the chunks written so far. */
  drained(): Promise<void> {
    const spill = this.spill;
    if (spill === undefined || !spill.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        spill.off("drain", done);
        spill.off("close", done);
        resolve();
      };
      spill.on("drain", done);
      spill.on("close", done);
    });
  }

  /** The current visible tail; totals count the whole output, not just the kept part. */
  preview(): TruncationResult {
    const tail = truncateTail(this.text(), { maxBytes: this.maxBytes });
    const totalLines = this.newlines + (this.endsWithNewline ? 0 : 1);
    return {
      ...tail,
      totalBytes: this.totalBytes,
      totalLines,
      truncated: tail.truncated || totalLines > tail.keptLines,
    };
  }

  /** Finishes collection: closes the full-output file (writing one if only the line limit cut output). */
  async finish(): Promise<CollectedOutput> {
    const truncation = this.preview();
    let saved = !this.spillFailed;
    if (this.spill !== undefined) {
      this.spill.end();
      await finished(this.spill).catch(() => {
        saved = false;
      });
    } else if (truncation.truncated && saved) {
      try {
        this.spillPath = this.files.newPath();
        await fs.writeFile(this.spillPath, Buffer.concat(this.chunks));
      } catch {
        saved = false;
      }
    }
    if (!truncation.truncated || !saved || this.spillPath === undefined) return { truncation };
    await this.files.keep(this.spillPath, this.totalBytes);
    return { truncation, fullOutputPath: this.spillPath };
  }

  private text(): string {
    return Buffer.concat(this.chunks).toString("utf8").replace(UNPRINTABLE, "\uFFFD");
  }

  /** Keeps the last `2 × maxBytes` bytes, copying a cut chunk so its large buffer can be freed. */
  private dropOldBytes(): void {
    const limit = 2 * this.maxBytes;
    while (this.chunks.length > 1 && this.keptBytes - (this.chunks[0] as Buffer).length >= limit) {
      this.keptBytes -= (this.chunks.shift() as Buffer).length;
    }
    const first = this.chunks[0] as Buffer;
    if (this.keptBytes > limit) {
      const cut = this.keptBytes - limit;
      this.chunks[0] = Buffer.from(first.subarray(cut));
      this.keptBytes -= cut;
    }
  }

  private startSpill(): void {
    try {
      this.spillPath = this.files.newPath();
    } catch {
      this.spillFailed = true;
      return;
    }
    this.spill = createWriteStream(this.spillPath);
    // A failed spill only loses the full copy (reported by `finish`); the tail is still returned.
    this.spill.on("error", () => {});
    for (const chunk of this.chunks) this.spill.write(chunk);
  }
}

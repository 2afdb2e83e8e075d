import { randomBytes } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { finished } from "node:stream/promises";
import { DEFAULT_MAX_BYTES, type TruncationResult, truncateTail } from "./truncate.js";

/** The collected output of a command: the visible tail and, when cut, where the rest is. */
export interface CollectedOutput {
  truncation: TruncationResult;
  /** Temp file with the complete output; set only when the output was truncated. */
  fullOutputPath?: string;
}

/**
 * Collects a command's interleaved stdout/stderr. Memory stays bounded: only the last
 * `2 × maxBytes` bytes are kept; once the output outgrows `maxBytes` everything (from the start)
 * is also streamed to a temp file so the full output can be inspected later.
 */
export class CommandOutput {
  private chunks: Buffer[] = [];
  private keptBytes = 0;
  private totalBytes = 0;
  private newlines = 0;
  private endsWithNewline = true;
  private spill: WriteStream | undefined;
  private spillPath: string | undefined;

  constructor(private readonly maxBytes: number = DEFAULT_MAX_BYTES) {}

  /** Adds a chunk of output. */
  append(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) this.newlines++;
    if (chunk.length > 0) this.endsWithNewline = chunk[chunk.length - 1] === 10;
    if (this.spill === undefined && this.totalBytes > this.maxBytes) this.startSpill();
    this.spill?.write(chunk);
    this.chunks.push(chunk);
    this.keptBytes += chunk.length;
    while (
      this.chunks.length > 1 &&
      this.keptBytes - (this.chunks[0] as Buffer).length >= 2 * this.maxBytes
    ) {
      this.keptBytes -= (this.chunks.shift() as Buffer).length;
    }
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

  /** Finishes collection: closes the spill file (writing one if only the line limit cut output). */
  async finish(): Promise<CollectedOutput> {
    const truncation = this.preview();
    let saved = true;
    if (this.spill !== undefined) {
      this.spill.end();
      await finished(this.spill).catch(() => {
        saved = false;
      });
    } else if (truncation.truncated) {
      this.spillPath = tempOutputPath();
      await fs.writeFile(this.spillPath, this.text()).catch(() => {
        saved = false;
      });
    }
    if (!truncation.truncated || !saved || this.spillPath === undefined) return { truncation };
    return { truncation, fullOutputPath: this.spillPath };
  }

  private text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }

  private startSpill(): void {
    this.spillPath = tempOutputPath();
    this.spill = createWriteStream(this.spillPath);
    // A failed spill only loses the full copy (reported by `finish`); the tail is still returned.
    this.spill.on("error", () => {});
    for (const chunk of this.chunks) this.spill.write(chunk);
  }
}

function tempOutputPath(): string {
  return path.join(os.tmpdir(), `agentchart-bash-${Date.now()}-${randomBytes(4).toString("hex")}.log`);
}

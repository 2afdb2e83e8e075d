import { close, fdatasync, writeSync } from "node:fs";
import type { SessionSink } from "../actors/session-writer.js";
import type { Durability } from "./jsonl-files.js";
import type { WriteFault } from "./session-repo.js";

function writeAll(fd: number, text: string): void {
  const data = Buffer.from(text);
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

/**
 * A session file opened for appending through one file descriptor. Each `write` is one group commit:
 * a single `write(2)` of all lines (plus `fdatasync` with `durability: "fsync"`). The `write(2)` is
 * synchronous — a page-cache copy, cheaper than a thread-pool round trip — while the fsync is not.
 */
export class JsonlFileSink implements SessionSink {
  constructor(
    private readonly fd: number,
    private readonly sessionId: string,
    private readonly durability: Durability,
    private readonly releaseLock: () => void,
    private readonly writeFault?: WriteFault,
  ) {}

  write(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const fault = this.writeFault?.(this.sessionId);
      if (fault) return reject(fault);
      try {
        writeAll(this.fd, text);
      } catch (error) {
        return reject(error);
      }
      if (this.durability !== "fsync") return resolve();
      fdatasync(this.fd, (syncError) => (syncError ? reject(syncError) : resolve()));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      close(this.fd, (error) => {
        this.releaseLock();
        if (error) reject(error);
        else resolve();
      });
    });
  }
}

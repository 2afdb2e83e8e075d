import { close, fdatasync, write } from "node:fs";
import type { SessionSink } from "../actors/session-writer.js";
import type { Durability } from "./jsonl-files.js";
import type { WriteFault } from "./session-repo.js";

function writeAll(fd: number, data: Buffer, offset: number, done: (error: Error | null) => void): void {
  write(fd, data, offset, data.length - offset, null, (error, written) => {
    if (error) return done(error);
    if (offset + written < data.length) return writeAll(fd, data, offset + written, done);
    done(null);
  });
}

/**
 * A session file opened for appending through one file descriptor. Each `write` is one group commit:
 * a single `write(2)` of all lines (plus `fdatasync` with `durability: "fsync"`).
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
      writeAll(this.fd, Buffer.from(text), 0, (error) => {
        if (error) return reject(error);
        if (this.durability !== "fsync") return resolve();
        fdatasync(this.fd, (syncError) => (syncError ? reject(syncError) : resolve()));
      });
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

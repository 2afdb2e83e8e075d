import { closeSync, fdatasync, writeSync } from "node:fs";
import type { Durability } from "./jsonl-files.js";
import { writeListIndexAtClose } from "./session-list-index.js";
import { latestNameInText } from "./session-name-scan.js";
import type { WriteFault } from "./session-repo.js";
import type { SessionSink } from "./session-writer.js";

/** Writes all of `text`: one `write(2)` in the common case, more only if the OS took part of it. */
function writeAll(fd: number, text: string): void {
  const written = writeSync(fd, text);
  const length = Buffer.byteLength(text);
  if (written === length) return;
  const data = Buffer.from(text);
  let offset = written;
  while (offset < length) offset += writeSync(fd, data, offset, length - offset);
}

/**
 * A session file opened for appending through one file descriptor. Each `write` is one group commit:
 * a single synchronous `write(2)` of all lines — a page-cache copy, cheaper than a thread-pool round
 * trip — so with `durability: "none"` it returns once the OS has the bytes. With `"fsync"` it returns
 * a promise that resolves after `fdatasync`, which runs off the main thread.
 *
 * It follows the session's name through the `session_info` lines it writes (starting from `name`,
 * the name as of the file's end when opened) and, on close, leaves the file's list index (see
 * `readLatestName`), so listing never has to read what this writer wrote.
 */
export class JsonlFileSink implements SessionSink {
  constructor(
    private readonly fd: number,
    private readonly session: { id: string; path: string; name: string | undefined },
    private readonly durability: Durability,
    private readonly releaseLock: () => void,
    private readonly writeFault?: WriteFault,
  ) {}

  write(text: string): void | Promise<void> {
    const fault = this.writeFault?.(this.session.id);
    if (fault) throw fault;
    writeAll(this.fd, text);
    const search = latestNameInText(text);
    if (search.found) this.session.name = search.name;
    if (this.durability !== "fsync") return;
    return new Promise((resolve, reject) => {
      fdatasync(this.fd, (error) => (error ? reject(error) : resolve()));
    });
  }

  close(): void {
    try {
      closeSync(this.fd);
      writeListIndexAtClose(this.session.path, this.session.name);
    } finally {
      this.releaseLock();
    }
  }
}

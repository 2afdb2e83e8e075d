import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** Bounds on the full-output files one `bash` tool keeps; the oldest files go first. */
export interface OutputFileLimits {
  /** At most this many files (default 20). */
  maxFiles?: number;
  /** At most this many bytes in all (default 100 MB). */
  maxTotalBytes?: number;
  /** Files older than this are deleted (default 1 hour). */
  maxAgeMs?: number;
}

const DEFAULTS: Required<OutputFileLimits> = {
  maxFiles: 20,
  maxTotalBytes: 100 * 1024 * 1024,
  maxAgeMs: 60 * 60 * 1000,
};

interface KeptFile {
  path: string;
  bytes: number;
  createdAt: number;
}

/** Stores still holding files; removed synchronously if the process exits before `dispose`. */
const liveStores = new Set<OutputFiles>();
let exitHookInstalled = false;

/**
 * The temp files holding commands' complete output, in one private temp folder (created on first
 * use). Bounded: when a file is kept, files beyond `maxFiles`, `maxTotalBytes` or `maxAgeMs` are
 * deleted, oldest first — the newest file is always kept, even alone over the byte bound.
 * `dispose()` deletes the folder; a folder not disposed is deleted when the process exits.
 */
export class OutputFiles {
  private readonly limits: Required<OutputFileLimits>;
  private folder: string | undefined;
  private readonly kept: KeptFile[] = [];

  constructor(limits: OutputFileLimits = {}) {
    this.limits = { ...DEFAULTS, ...limits };
  }

  /** A fresh file path inside the folder (the file is not created). Throws when the folder cannot be made. */
  newPath(): string {
    if (this.folder === undefined) {
      this.folder = mkdtempSync(path.join(os.tmpdir(), "agentchart-bash-"));
      liveStores.add(this);
      installExitHook();
    }
    return path.join(this.folder, `output-${Date.now()}-${randomBytes(4).toString("hex")}.log`);
  }

  /** Records a finished file of `bytes` bytes, then deletes the files over the bounds. */
  async keep(filePath: string, bytes: number): Promise<void> {
    const now = Date.now();
    this.kept.push({ path: filePath, bytes, createdAt: now });
    let total = this.kept.reduce((sum, file) => sum + file.bytes, 0);
    const expired: KeptFile[] = [];
    while (this.kept.length > 1) {
      const oldest = this.kept[0] as KeptFile;
      const over =
        this.kept.length > this.limits.maxFiles ||
        total > this.limits.maxTotalBytes ||
        now - oldest.createdAt > this.limits.maxAgeMs;
      if (!over) break;
      this.kept.shift();
      total -= oldest.bytes;
      expired.push(oldest);
    }
    await Promise.all(expired.map((file) => fs.rm(file.path, { force: true })));
  }

  /** Deletes every file and the folder. The store can be used again afterwards (a new folder). */
  async dispose(): Promise<void> {
    const folder = this.folder;
    this.folder = undefined;
    this.kept.length = 0;
    liveStores.delete(this);
    if (folder !== undefined) await fs.rm(folder, { recursive: true, force: true });
  }

  /** Synchronous `dispose` for the process exit hook. */
  removeNow(): void {
    if (this.folder !== undefined) rmSync(this.folder, { recursive: true, force: true });
    this.folder = undefined;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const store of liveStores) {
      try {
        store.removeNow();
      } catch {
        // best effort while exiting
      }
    }
  });
}

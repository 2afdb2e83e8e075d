import { randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { SessionError } from "../types/session-error.js";

/** How hard writes try to survive a power loss: "none" = OS page cache, "fsync" = fdatasync per group commit. */
export type Durability = "none" | "fsync";

/**
 * Directory name of a cwd, compatible with pi: `--<cwd without leading separator, "/", "\" and ":"
 * replaced by "-">--`. Lossy, so the header's `cwd` is the truth; never contains a separator.
 */
export function encodeCwd(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** File name of a session: `<ISO time with ":" and "." → "-">_<id>.jsonl`. */
export function sessionFileName(timestamp: string, id: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`;
}

/**
 * The session id a file name encodes: what follows the first "_" up to ".jsonl". The time part never
 * holds a "_" (pi's and ours: ISO time with ":" and "." replaced by "-"), so `…_team_1.jsonl` is
 * session `team_1` and never session `1`.
 *
 * Contract: pure, never throws; `undefined` for a name that is not `<time>_<id>.jsonl`.
 * @example
 * ```ts
 * sessionIdOfFileName("2025-12-09T00-53-29-825Z_team_1.jsonl"); // "team_1"
 * ```
 */
export function sessionIdOfFileName(name: string): string | undefined {
  const separator = name.indexOf("_");
  if (separator <= 0 || !name.endsWith(".jsonl")) return undefined;
  const id = name.slice(separator + 1, -".jsonl".length);
  return id.length > 0 ? id : undefined;
}

/** Wraps an fs failure as `SessionError("storage")`. */
export function storageError(action: string, error: unknown): SessionError {
  if (error instanceof SessionError) return error;
  return new SessionError("storage", `${action}: ${(error as Error).message}`, { cause: error });
}

/** Lists the cwd folders under `root` (full paths). */
export function listCwdFolders(root: string): string[] {
  return readdirOrEmpty(root).map((dir) => join(root, dir));
}

/** Lists `*.jsonl` session files under `root` (all cwd folders, or the one given). */
export function listSessionFiles(root: string, cwdDir?: string): string[] {
  const dirs = cwdDir !== undefined ? [join(root, cwdDir)] : listCwdFolders(root);
  const files: string[] = [];
  for (const dir of dirs) {
    for (const name of readdirOrEmpty(dir)) {
      if (name.endsWith(".jsonl")) files.push(join(dir, name));
    }
  }
  return files;
}

function readdirOrEmpty(path: string): string[] {
  try {
    return readdirSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw storageError(`Cannot list ${path}`, error);
  }
}

/** Reads `length` bytes of `fd` at `position` into `buffer`; fewer only at the end of the file. */
export function readAt(fd: number, buffer: Buffer, position: number, length: number): number {
  let read = 0;
  while (read < length) {
    const got = readSync(fd, buffer, read, length - read, position + read);
    if (got === 0) break;
    read += got;
  }
  return read;
}

/** The first line of an open file (the header), read in chunks so huge files are not loaded. */
export function readFirstLine(fd: number): string {
  const chunks: Buffer[] = [];
  const chunk = Buffer.allocUnsafe(16 * 1024);
  for (let position = 0; ; ) {
    const read = readAt(fd, chunk, position, chunk.length);
    if (read === 0) break;
    const newline = chunk.subarray(0, read).indexOf(10);
    if (newline !== -1) {
      chunks.push(Buffer.from(chunk.subarray(0, newline)));
      break;
    }
    chunks.push(Buffer.from(chunk.subarray(0, read)));
    position += read;
  }
  return Buffer.concat(chunks).toString("utf8");
}

const TEMP_SUFFIX = /\.tmp-(\d+)-[0-9a-f]{8}$/;

/**
 * A fresh temporary name beside `path`: `<path>.tmp-<pid>-<8 hex>`. Every temporary file and folder of
 * the JSONL repo is named so, which lets {@link tempOwnerPid} tell the litter of dead processes.
 *
 * Contract: pure apart from randomness, never throws.
 * @example
 * ```ts
 * tempPathOf("/s/a.jsonl"); // "/s/a.jsonl.tmp-4242-9f3c01ab"
 * ```
 */
export function tempPathOf(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
}

/**
 * The pid that made a temporary name of {@link tempPathOf}, `undefined` for any other name.
 *
 * Contract: pure, never throws.
 * @example
 * ```ts
 * tempOwnerPid("a.jsonl.lock.tmp-4242-9f3c01ab"); // 4242
 * ```
 */
export function tempOwnerPid(name: string): number | undefined {
  const match = TEMP_SUFFIX.exec(name);
  return match === null ? undefined : Number(match[1]);
}

/**
 * Writes `text` to `path` atomically: a temp file beside it, fsync'd when `durability` is "fsync",
 * then renamed over `path` (and the directory fsync'd). Readers see the old file or the new one.
 */
export function writeFileAtomic(path: string, text: string | Buffer, durability: Durability): void {
  const temp = tempPathOf(path);
  try {
    const fd = openSync(temp, "wx");
    try {
      const data = typeof text === "string" ? Buffer.from(text) : text;
      let offset = 0;
      while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
      if (durability === "fsync") fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    if (durability === "fsync") syncDirectory(dirname(path));
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // the temp file was renamed or never created
    }
    throw storageError(`Cannot write ${path}`, error);
  }
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

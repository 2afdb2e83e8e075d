import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { SessionError } from "../types/session-error.js";
import { tempPathOf } from "./jsonl-files.js";

/** Lock folder of a session file. */
export function lockPathOf(sessionPath: string): string {
  return `${sessionPath}.lock`;
}

/**
 * A lock entry that names no live owner and cannot name one — a 0.2.0 lock file still empty (its
 * writer was killed before writing its pid), a file we cannot read or parse — counts as held while
 * younger than this, in case its writer is still writing it, and as stale after.
 */
export const UNREADABLE_LOCK_STALE_MS = 10_000;

const OWNER_PATTERN = /^owner-(\d+)-[0-9a-f]+$/;

/** Test seams of {@link acquireLock}. */
export interface LockHooks {
  /** Called once the lock is staged (folder and owner file made), before it is moved into place. */
  staged?(stagingPath: string): void;
}

/** True if process `pid` exists (EPERM: it exists but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** What is at a lock path: nothing, a live (or possibly live) holder, or a stale lock and how to remove it. */
type LockState = { kind: "free" } | { kind: "held"; pid?: number } | { kind: "stale"; remove: () => void };

function ignoring(codes: readonly string[], action: () => void): void {
  try {
    action();
  } catch (error) {
    if (!codes.includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
  }
}

function ageMs(path: string): number {
  return Date.now() - lstatSync(path).mtimeMs;
}

function heldUnlessOld(path: string, remove: () => void): LockState {
  return ageMs(path) < UNREADABLE_LOCK_STALE_MS ? { kind: "held" } : { kind: "stale", remove };
}

/**
 * A lock file written by agentchart 0.2.0 (`O_EXCL` file, then the pid). Removing it with `unlink`
 * can never remove a current lock: those are folders, which `unlink` refuses.
 */
function inspectLegacyLock(lockPath: string): LockState {
  const remove = () => ignoring(["ENOENT", "EISDIR", "EPERM"], () => unlinkSync(lockPath));
  let content = "";
  try {
    content = readFileSync(lockPath, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "free" };
  }
  const pid = /^\d+$/.test(content) ? Number(content) : 0;
  if (pid > 0) return isProcessAlive(pid) ? { kind: "held", pid } : { kind: "stale", remove };
  return heldUnlessOld(lockPath, remove);
}

/**
 * A lock folder holds exactly one entry, `owner-<pid>-<nonce>`. Stale parts are removed by their
 * unique name (`rmSync` of that entry, `rmdir` of an empty folder), so a process acting on what it saw
 * a moment ago can never remove a lock another process has taken since.
 */
function inspectLockFolder(lockPath: string): LockState {
  const [entry] = readdirSync(lockPath);
  if (entry === undefined) {
    return {
      kind: "stale",
      remove: () => ignoring(["ENOENT", "ENOTEMPTY", "EEXIST"], () => rmdirSync(lockPath)),
    };
  }
  const entryPath = join(lockPath, entry);
  const remove = () => rmSync(entryPath, { recursive: true, force: true });
  const owner = OWNER_PATTERN.exec(entry);
  if (owner === null) return heldUnlessOld(entryPath, remove);
  const pid = Number(owner[1]);
  return isProcessAlive(pid) ? { kind: "held", pid } : { kind: "stale", remove };
}

function inspectLock(lockPath: string): LockState {
  try {
    return lstatSync(lockPath).isDirectory() ? inspectLockFolder(lockPath) : inspectLegacyLock(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "free" };
    throw error;
  }
}

/**
 * The pid holding the lock of `sessionPath`: a number if a live process holds it, `null` if a holder
 * whose pid cannot be read does (a lock being written right now), `undefined` if nobody does.
 *
 * Contract: synchronous; throws only on unexpected fs errors.
 * @example
 * ```ts
 * if (lockHolder("/root/--p--/2026-…_s1.jsonl") !== undefined) console.log("open elsewhere");
 * ```
 */
export function lockHolder(sessionPath: string): number | null | undefined {
  const state = inspectLock(lockPathOf(sessionPath));
  return state.kind === "held" ? (state.pid ?? null) : undefined;
}

/** True for the errors `rename` gives when its target is a lock already (folder not empty, or a 0.2.0 file). */
function isOccupied(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR" || code === "EPERM";
}

function lockedError(sessionId: string, lockPath: string, pid: number | undefined): SessionError {
  const who = pid === process.pid ? "this process" : pid === undefined ? "another writer" : `process ${pid}`;
  return new SessionError(
    "locked",
    `Session "${sessionId}" is open for writing by ${who}; close it there first (lock: ${lockPath}).`,
  );
}

/**
 * Takes the single-writer lock of a session file: the folder `<file>.lock` holding one entry,
 * `owner-<pid>-<nonce>`. The folder is made with its owner entry under a temporary name and renamed
 * into place, which succeeds only while nothing (or an empty folder) is there — so a lock is never
 * seen without its owner, and of several processes taking over a stale lock at once exactly one wins.
 * A lock whose pid is dead, an empty lock folder, and (after {@link UNREADABLE_LOCK_STALE_MS}) an
 * entry naming no pid are stale and taken over; a 0.2.0 lock file (`<file>.lock` holding a pid) is
 * honoured the same way.
 *
 * Contract: synchronous; throws `SessionError("locked")` while a live process (this one included)
 * holds the lock, `SessionError("storage")` when the lock cannot be created.
 * @returns a function that releases the lock (idempotent, never throws).
 * @example
 * ```ts
 * import { appendFileSync } from "node:fs";
 * const path = "/root/--p--/2026-…_s1.jsonl";
 * const release = acquireLock(path, "s1");
 * try {
 *   appendFileSync(path, '{"type":"label"}\n');
 * } finally {
 *   release();
 * }
 * ```
 */
export function acquireLock(sessionPath: string, sessionId: string, hooks: LockHooks = {}): () => void {
  const lockPath = lockPathOf(sessionPath);
  const staging = tempPathOf(lockPath);
  const owner = `owner-${process.pid}-${staging.slice(staging.lastIndexOf("-") + 1)}`;
  try {
    mkdirSync(staging);
    writeFileSync(join(staging, owner), "");
    hooks.staged?.(staging);
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        renameSync(staging, lockPath);
        return releaser(lockPath, owner);
      } catch (error) {
        if (!isOccupied(error)) throw error;
      }
      const state = inspectLock(lockPath);
      if (state.kind === "held") throw lockedError(sessionId, lockPath, state.pid);
      if (state.kind === "stale") state.remove();
    }
    throw new SessionError("locked", `Session "${sessionId}" is being opened concurrently; try again.`);
  } catch (error) {
    if (error instanceof SessionError) throw error;
    throw new SessionError("storage", `Cannot create the lock ${lockPath}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    rmSync(staging, { recursive: true, force: true }); // gone already once renamed into place
  }
}

function releaser(lockPath: string, owner: string): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      rmSync(join(lockPath, owner), { force: true });
      rmdirSync(lockPath); // fails harmlessly if another process has already moved its lock in
    } catch {
      // another writer's lock is in place now, or the folder is gone
    }
  };
}

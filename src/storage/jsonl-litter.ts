import { existsSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isSessionError } from "../types/session-error.js";
import { acquireLock, isProcessAlive, lockHolder } from "./file-lock.js";
import { sessionIdOfFileName, tempOwnerPid } from "./jsonl-files.js";

const LOCK_SUFFIX = ".lock";

function isDeadProcessTemp(name: string): boolean {
  const pid = tempOwnerPid(name);
  return pid !== undefined && !isProcessAlive(pid);
}

function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // a folder that vanished has no litter
  }
}

/**
 * The temporary files and lock-staging folders that processes which died mid-write left beside one
 * session file (`<file>.tmp-<pid>-…`, `<file>.lock.tmp-<pid>-…`, `<file>.corrupt-….tmp-<pid>-…`).
 * They never hold acknowledged data: the write they belonged to never completed.
 *
 * Contract: synchronous, never throws (an unreadable folder has no litter).
 * @example
 * ```ts
 * removeLitter(sessionLitter("/root/--p--/2026-…_s1.jsonl"));
 * ```
 */
export function sessionLitter(sessionPath: string): string[] {
  const prefix = `${basename(sessionPath)}.`;
  const dir = dirname(sessionPath);
  return namesIn(dir)
    .filter((name) => name.startsWith(prefix) && isDeadProcessTemp(name))
    .map((name) => join(dir, name));
}

/**
 * True for a lock whose session file does not exist (a `create`/`fork` killed between taking the lock
 * and writing the file) and that nobody holds. Unless `dryRun` it is removed by taking it over like
 * any stale lock and releasing it, so a lock taken meanwhile is never removed.
 */
function isOrphanLock(sessionPath: string, dryRun: boolean): boolean {
  if (existsSync(sessionPath)) return false;
  if (dryRun) return lockHolder(sessionPath) === undefined;
  const id = sessionIdOfFileName(basename(sessionPath)) ?? basename(sessionPath);
  let release: () => void;
  try {
    release = acquireLock(sessionPath, id);
  } catch (error) {
    if (isSessionError(error, "locked")) return false;
    throw error;
  }
  const orphan = !existsSync(sessionPath);
  release();
  return orphan;
}

/**
 * Finds (and unless `dryRun`, removes) the litter of dead processes in one cwd folder of the repo:
 * their temporary files and lock-staging folders, and locks of session files that were never written
 * (those are removed as they are found, through the lock protocol).
 *
 * Contract: synchronous; throws `SessionError("storage")` only if a lock cannot be inspected.
 * @example
 * ```ts
 * folderLitter("/root/--project--", { dryRun: true }); // ["/root/--project--/…_s1.jsonl.tmp-4242-9f3c01ab"]
 * ```
 */
export function folderLitter(dir: string, options: { dryRun: boolean }): string[] {
  const found: string[] = [];
  for (const name of namesIn(dir)) {
    const path = join(dir, name);
    if (isDeadProcessTemp(name)) found.push(path);
    else if (
      name.endsWith(`.jsonl${LOCK_SUFFIX}`) &&
      isOrphanLock(path.slice(0, -LOCK_SUFFIX.length), options.dryRun)
    )
      found.push(path);
  }
  if (!options.dryRun) removeLitter(found);
  return found;
}

/**
 * Removes litter paths (files or folders).
 *
 * Contract: synchronous, never throws (a path already gone is fine).
 * @example
 * ```ts
 * removeLitter(folderLitter("/root/--project--", { dryRun: true }));
 * ```
 */
export function removeLitter(paths: readonly string[]): void {
  for (const path of paths) {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      // left for the next sweep
    }
  }
}

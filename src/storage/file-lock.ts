import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { SessionError } from "../types/session-error.js";

/** Lock file path of a session file. */
export function lockPathOf(sessionPath: string): string {
  return `${sessionPath}.lock`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid holding the lock of `sessionPath` if that process is alive, else `undefined`. */
export function liveLockHolder(sessionPath: string): number | undefined {
  let content: string;
  try {
    content = readFileSync(lockPathOf(sessionPath), "utf8");
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(content.trim(), 10);
  // A lock file being written right now may still be empty: count it as held.
  if (!Number.isInteger(pid) || pid <= 0) return content.trim() === "" ? -1 : undefined;
  return isAlive(pid) ? pid : undefined;
}

/**
 * Takes the single-writer lock of a session file: `<file>.lock` created exclusively (`wx`) with this
 * process's pid. A lock left by a dead process is taken over; a live holder (another process, or
 * another Session of this process) gives `SessionError("locked")`.
 * @returns a function that releases the lock.
 */
export function acquireLock(sessionPath: string, sessionId: string): () => void {
  const lockPath = lockPathOf(sessionPath);
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, "wx");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new SessionError(
          "storage",
          `Cannot create the lock file ${lockPath}: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
      const holder = liveLockHolder(sessionPath);
      if (holder !== undefined) {
        const who =
          holder === process.pid ? "this process" : holder === -1 ? "another writer" : `process ${holder}`;
        throw new SessionError(
          "locked",
          `Session "${sessionId}" is open for writing by ${who}; close it there first (lock file: ${lockPath}).`,
        );
      }
      try {
        unlinkSync(lockPath); // stale: its process is gone
      } catch {
        // someone else removed it first; retry
      }
      continue;
    }
    try {
      writeSync(fd, String(process.pid));
    } finally {
      closeSync(fd);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      try {
        unlinkSync(lockPath);
      } catch {
        // already gone (session deleted)
      }
    };
  }
  throw new SessionError("locked", `Session "${sessionId}" is being opened concurrently; try again.`);
}

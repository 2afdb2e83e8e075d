import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isSessionError } from "../../src/index.js";
import {
  acquireLock,
  isProcessAlive,
  lockHolder,
  lockPathOf,
  UNREADABLE_LOCK_STALE_MS,
} from "../../src/storage/file-lock.js";
import { tempRoot } from "../support/session-files.js";

/** Above Linux's largest pid_max (2^22) and macOS's 99,999: no process can have it. */
const DEAD_PID = 999_999_999;
/** init: always alive (the tests run as root or not, `kill(1, 0)` answers alive or EPERM). */
const LIVE_PID = 1;

let root: string;
let remove: () => void;
let path: string;
let lock: string;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-file-lock-"));
  path = join(root, "2026_s1.jsonl");
  lock = lockPathOf(path);
});
afterEach(() => remove());

/** Makes a path look older than the stale limit for unreadable locks. */
function age(target: string): void {
  const past = (Date.now() - UNREADABLE_LOCK_STALE_MS - 5_000) / 1000;
  utimesSync(target, past, past);
}

function lockError(action: () => unknown): Error & { code?: string } {
  try {
    action();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected an error");
}

describe("isProcessAlive", () => {
  it("tells a live process from a pid nobody has", () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(LIVE_PID)).toBe(true);
    expect(isProcessAlive(DEAD_PID)).toBe(false);
  });
});

describe("acquireLock", () => {
  it("makes the lock folder holding one owner entry of this process, and leaves no staging behind", () => {
    expect(lockPathOf("/a/b.jsonl")).toBe("/a/b.jsonl.lock");
    const release = acquireLock(path, "s1");
    const [owner, ...others] = readdirSync(lock);
    expect(owner).toMatch(new RegExp(`^owner-${process.pid}-[0-9a-f]{8}$`));
    expect(others).toEqual([]);
    expect(readdirSync(root)).toEqual(["2026_s1.jsonl.lock"]);
    expect(lockHolder(path)).toBe(process.pid);
    release();
    expect(existsSync(lock)).toBe(false);
    expect(lockHolder(path)).toBeUndefined();
  });

  it("shows the staged lock to the staged hook, with its owner entry, before moving it into place", () => {
    let seen: string[] = [];
    const release = acquireLock(path, "s1", {
      staged: (staging) => {
        seen = readdirSync(staging);
        expect(existsSync(lock)).toBe(false);
        expect(staging.startsWith(`${lock}.tmp-${process.pid}-`)).toBe(true);
      },
    });
    expect(seen).toEqual(readdirSync(lock));
    release();
  });

  it("refuses a second taking by this process, naming it", () => {
    const release = acquireLock(path, "s1");
    const error = lockError(() => acquireLock(path, "s1"));
    expect(isSessionError(error, "locked")).toBe(true);
    expect(error.message).toBe(
      `Session "s1" is open for writing by this process; close it there first (lock: ${lock}).`,
    );
    expect(readdirSync(root)).toEqual(["2026_s1.jsonl.lock"]);
    release();
  });

  it("refuses a lock a live process holds, naming the process", () => {
    mkdirSync(lock);
    writeFileSync(join(lock, "owner-1-abcdef01"), "");
    const error = lockError(() => acquireLock(path, "s1"));
    expect(isSessionError(error, "locked")).toBe(true);
    expect(error.message).toContain(`by process ${LIVE_PID};`);
    expect(lockHolder(path)).toBe(LIVE_PID);
  });

  it("takes over the lock of a dead process", () => {
    mkdirSync(lock);
    writeFileSync(join(lock, `owner-${DEAD_PID}-abcdef01`), "");
    expect(lockHolder(path)).toBeUndefined();
    const release = acquireLock(path, "s1");
    expect(readdirSync(lock)).toEqual([expect.stringMatching(new RegExp(`^owner-${process.pid}-`))]);
    release();
    expect(existsSync(lock)).toBe(false);
  });

  it("takes over an empty lock folder", () => {
    mkdirSync(lock);
    expect(lockHolder(path)).toBeUndefined();
    acquireLock(path, "s1")();
    expect(existsSync(lock)).toBe(false);
  });

  it("holds a folder entry naming no owner while it is young, and takes it over once old", () => {
    mkdirSync(lock);
    writeFileSync(join(lock, "half-written"), "");
    expect(lockHolder(path)).toBeNull();
    const error = lockError(() => acquireLock(path, "s1"));
    expect(isSessionError(error, "locked")).toBe(true);
    expect(error.message).toContain("by another writer;");
    age(join(lock, "half-written"));
    expect(lockHolder(path)).toBeUndefined();
    acquireLock(path, "s1")();
    expect(existsSync(lock)).toBe(false);
  });

  it("honours a 0.2.0 lock file: held by a live pid, taken over from a dead one", () => {
    writeFileSync(lock, `${process.pid}\n`);
    expect(lockHolder(path)).toBe(process.pid);
    expect(lockError(() => acquireLock(path, "s1")).message).toContain("by this process;");
    writeFileSync(lock, String(DEAD_PID));
    expect(lockHolder(path)).toBeUndefined();
    const release = acquireLock(path, "s1");
    expect(readdirSync(lock)).toHaveLength(1);
    release();
    expect(existsSync(lock)).toBe(false);
  });

  it.each(["", "not a pid", "0"])(
    "holds a 0.2.0 lock file holding %j while young, and takes it over once old",
    (content) => {
      writeFileSync(lock, content);
      expect(lockHolder(path)).toBeNull();
      expect(
        isSessionError(
          lockError(() => acquireLock(path, "s1")),
          "locked",
        ),
      ).toBe(true);
      age(lock);
      expect(lockHolder(path)).toBeUndefined();
      acquireLock(path, "s1")();
      expect(existsSync(lock)).toBe(false);
    },
  );

  it("wraps a failure to make the lock as a storage error naming the lock", () => {
    const missing = join(root, "no-such-folder", "s.jsonl");
    const error = lockError(() => acquireLock(missing, "s1"));
    expect(isSessionError(error, "storage")).toBe(true);
    expect(error.message).toContain(`Cannot create the lock ${lockPathOf(missing)}: `);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe("ENOENT");
  });

  it("passes on an error of the staged hook that is a SessionError, and removes the staging", () => {
    const error = lockError(() =>
      acquireLock(path, "s1", {
        staged: () => {
          throw lockError(() => acquireLock(join(root, "missing", "x.jsonl"), "x"));
        },
      }),
    );
    expect(isSessionError(error, "storage")).toBe(true);
    expect(readdirSync(root)).toEqual([]);
  });

  it("releases once: a later release leaves the next holder's lock in place", () => {
    const release = acquireLock(path, "s1");
    release();
    const next = acquireLock(path, "s1");
    release();
    expect(lockHolder(path)).toBe(process.pid);
    expect(readdirSync(lock)).toHaveLength(1);
    next();
  });

  it("leaves another holder's lock in place when released after losing it", () => {
    const release = acquireLock(path, "s1");
    const [owner] = readdirSync(lock);
    // The lock was taken over (as from a process thought dead): another owner entry is there now.
    writeFileSync(join(lock, "owner-1-00000000"), "");
    release();
    expect(readdirSync(lock)).toEqual(["owner-1-00000000"]);
    expect(owner).not.toBe("owner-1-00000000");
  });
});

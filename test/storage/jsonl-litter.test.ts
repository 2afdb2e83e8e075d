import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireLock, lockPathOf } from "../../src/storage/file-lock.js";
import { folderLitter, removeLitter, sessionLitter } from "../../src/storage/jsonl-litter.js";
import { tempRoot } from "../support/session-files.js";

/** Above Linux's largest pid_max (2^22): no process can have it. */
const DEAD_PID = 999_999_999;

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-litter-"));
});
afterEach(() => remove());

const at = (name: string) => join(root, name);
const SESSION = "2026-01-01T00-00-00-000Z_s1.jsonl";

describe("sessionLitter", () => {
  it("finds the temporary files and staging folders of dead processes beside one session file", () => {
    writeFileSync(at(SESSION), "");
    const litter = [`${SESSION}.tmp-${DEAD_PID}-0123abcd`, `${SESSION}.corrupt-1.tmp-${DEAD_PID}-0123abcd`];
    for (const name of litter) writeFileSync(at(name), "x");
    mkdirSync(at(`${SESSION}.lock.tmp-${DEAD_PID}-0badf00d`));
    const kept = [
      `${SESSION}.tmp-${process.pid}-0123abcd`, // a live writer's
      `${SESSION}.corrupt-1`, // a kept copy, not litter
      `2026-01-01T00-00-00-000Z_s10.jsonl.tmp-${DEAD_PID}-0123abcd`, // another session's
      `x${SESSION}.tmp-${DEAD_PID}-0123abcd`,
    ];
    for (const name of kept) writeFileSync(at(name), "x");
    expect(sessionLitter(at(SESSION)).sort()).toEqual(
      [...litter, `${SESSION}.lock.tmp-${DEAD_PID}-0badf00d`].map(at).sort(),
    );
  });

  it("finds nothing in a folder that does not exist", () => {
    expect(sessionLitter(join(root, "gone", SESSION))).toEqual([]);
  });
});

describe("folderLitter", () => {
  it("lists dead processes' temporary files and orphan locks, and removes them unless dry", () => {
    writeFileSync(at(SESSION), "{}\n");
    writeFileSync(at(`${SESSION}.tmp-${DEAD_PID}-0123abcd`), "half");
    mkdirSync(at(`other.jsonl.lock.tmp-${DEAD_PID}-0badf00d`));
    // A lock of a session file never written (a create killed after taking it), its holder dead.
    mkdirSync(at("2026_never.jsonl.lock"));
    writeFileSync(at(`2026_never.jsonl.lock/owner-${DEAD_PID}-00000000`), "");
    const expected = [
      `${SESSION}.tmp-${DEAD_PID}-0123abcd`,
      `other.jsonl.lock.tmp-${DEAD_PID}-0badf00d`,
      "2026_never.jsonl.lock",
    ]
      .map(at)
      .sort();
    expect(folderLitter(root, { dryRun: true }).sort()).toEqual(expected);
    expect(readdirSync(root)).toHaveLength(4);
    expect(folderLitter(root, { dryRun: false }).sort()).toEqual(expected);
    expect(readdirSync(root)).toEqual([SESSION]);
    expect(folderLitter(root, { dryRun: false })).toEqual([]);
  });

  it("keeps the lock of an existing session file, a lock held by a live process and other files", () => {
    writeFileSync(at(SESSION), "{}\n");
    const release = acquireLock(at(SESSION), "s1"); // the session's own lock, held
    const releaseOrphan = acquireLock(at("2026_new.jsonl"), "new"); // a create in progress here
    mkdirSync(at("notes.lock")); // not a session lock
    writeFileSync(at(`${SESSION}.corrupt-2026`), "x");
    const before = readdirSync(root).sort();
    expect(folderLitter(root, { dryRun: true })).toEqual([]);
    expect(folderLitter(root, { dryRun: false })).toEqual([]);
    expect(readdirSync(root).sort()).toEqual(before);
    expect(existsSync(lockPathOf(at("2026_new.jsonl")))).toBe(true);
    releaseOrphan();
    release();
  });

  it("counts the orphan lock of a file name that holds no session id by its whole name", () => {
    mkdirSync(at("plain.jsonl.lock"));
    expect(folderLitter(root, { dryRun: true })).toEqual([at("plain.jsonl.lock")]);
    expect(folderLitter(root, { dryRun: false })).toEqual([at("plain.jsonl.lock")]);
    expect(existsSync(at("plain.jsonl.lock"))).toBe(false);
  });

  it("finds nothing in a folder that does not exist", () => {
    expect(folderLitter(join(root, "gone"), { dryRun: false })).toEqual([]);
  });
});

describe("removeLitter", () => {
  it("removes files and folders with their contents, and passes over paths already gone", () => {
    writeFileSync(at("a.tmp"), "x");
    mkdirSync(at("dir.tmp"));
    writeFileSync(at("dir.tmp/inner"), "x");
    removeLitter([at("a.tmp"), at("missing"), at("dir.tmp")]);
    expect(readdirSync(root)).toEqual([]);
  });
});

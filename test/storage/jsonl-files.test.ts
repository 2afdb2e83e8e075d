import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionError } from "../../src/index.js";
import {
  encodeCwd,
  listSessionFiles,
  readFirstLine,
  sessionFileName,
  sessionIdOfFileName,
  storageError,
  tempOwnerPid,
  tempPathOf,
  writeFileAtomic,
} from "../../src/storage/jsonl-files.js";
import { tempRoot } from "../support/session-files.js";

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-jsonl-files-"));
});
afterEach(() => remove());

describe("names of the JSONL repo", () => {
  it("encodes a cwd as pi does: no leading separator, separators and ':' as '-'", () => {
    expect(encodeCwd("/home/me/project")).toBe("--home-me-project--");
    expect(encodeCwd("C:\\Users\\me")).toBe("--C--Users-me--");
    expect(encodeCwd("\\\\server\\share")).toBe("---server-share--");
  });

  it("names a session file by its time, with ':' and '.' as '-', and its id", () => {
    expect(sessionFileName("2025-12-09T00:53:29.825Z", "team_1")).toBe(
      "2025-12-09T00-53-29-825Z_team_1.jsonl",
    );
  });

  it("reads the id back from a file name, and nothing from other names", () => {
    expect(sessionIdOfFileName("2025-12-09T00-53-29-825Z_team_1.jsonl")).toBe("team_1");
    expect(sessionIdOfFileName("t_a.jsonl")).toBe("a");
    for (const name of ["_a.jsonl", "t_a.json", "t_a.jsonl.tmp-1-00000000", "t_.jsonl", "ta.jsonl", "t_a"])
      expect(sessionIdOfFileName(name), name).toBeUndefined();
  });

  it("tells the pid that made a temporary name, and nothing for other names", () => {
    expect(tempOwnerPid("a.jsonl.lock.tmp-4242-9f3c01ab")).toBe(4242);
    expect(tempOwnerPid(tempPathOf("/s/a.jsonl"))).toBe(process.pid);
    for (const name of ["a.jsonl", "a.jsonl.tmp-4242-9f3c01a", "a.jsonl.tmp-x-9f3c01ab", "a.tmp-1-9f3c01abX"])
      expect(tempOwnerPid(name), name).toBeUndefined();
  });
});

describe("storageError", () => {
  it("wraps an fs failure as a storage error naming the action, and passes a SessionError on", () => {
    const cause = new Error("EACCES: permission denied");
    const error = storageError("Cannot list /s", cause);
    expect(error).toBeInstanceOf(SessionError);
    expect(error.code).toBe("storage");
    expect(error.message).toBe("Cannot list /s: EACCES: permission denied");
    expect(error.cause).toBe(cause);
    const fenced = new SessionError("fenced", "another writer");
    expect(storageError("Cannot list /s", fenced)).toBe(fenced);
  });
});

describe("listSessionFiles", () => {
  it("lists the .jsonl files of every cwd folder, or of the one given, and nothing for a missing root", () => {
    mkdirSync(join(root, "--a--"));
    mkdirSync(join(root, "--b--"));
    writeFileSync(join(root, "--a--", "t_1.jsonl"), "");
    writeFileSync(join(root, "--a--", "t_1.jsonl.index.json"), "");
    writeFileSync(join(root, "--b--", "t_2.jsonl"), "");
    writeFileSync(join(root, "stray.jsonl"), ""); // a file where a folder should be
    expect(listSessionFiles(root).sort()).toEqual([
      join(root, "--a--", "t_1.jsonl"),
      join(root, "--b--", "t_2.jsonl"),
    ]);
    expect(listSessionFiles(root, "--b--")).toEqual([join(root, "--b--", "t_2.jsonl")]);
    expect(listSessionFiles(root, "--none--")).toEqual([]);
    expect(listSessionFiles(join(root, "missing"))).toEqual([]);
  });
});

describe("readFirstLine", () => {
  const firstLineOf = (text: string) => {
    const path = join(root, "f.jsonl");
    writeFileSync(path, text);
    const fd = openSync(path, "r");
    try {
      return readFirstLine(fd);
    } finally {
      closeSync(fd);
    }
  };

  it("reads up to the first newline, across chunks, or the whole file without one", () => {
    expect(firstLineOf('{"a":1}\n{"b":2}\n')).toBe('{"a":1}');
    const long = `{"pad":"${"é".repeat(20_000)}"}`;
    expect(firstLineOf(`${long}\nrest\n`)).toBe(long);
    expect(firstLineOf(long)).toBe(long);
    expect(firstLineOf("")).toBe("");
    expect(firstLineOf("\nsecond")).toBe("");
  });
});

describe("writeFileAtomic", () => {
  it("writes text byte for byte (multi-byte characters too), or a buffer, replacing the file", () => {
    const path = join(root, "a.jsonl");
    writeFileSync(path, "old content that is longer\n");
    writeFileAtomic(path, "héllo ✓ 🎉\n", "none");
    expect(readFileSync(path, "utf8")).toBe("héllo ✓ 🎉\n");
    writeFileAtomic(path, Buffer.from("bytes\n"), "fsync");
    expect(readFileSync(path, "utf8")).toBe("bytes\n");
    expect(readdirSync(root)).toEqual(["a.jsonl"]);
  });

  it("fails as a storage error naming the path and leaves no temporary file", () => {
    const target = join(root, "taken");
    mkdirSync(join(target, "inside"), { recursive: true }); // a folder that is not empty: rename fails
    let error: unknown;
    try {
      writeFileAtomic(target, "x", "none");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SessionError);
    expect((error as SessionError).code).toBe("storage");
    expect((error as SessionError).message).toMatch(new RegExp(`^Cannot write ${target}: `));
    expect(readdirSync(root)).toEqual(["taken"]);
    expect(() => writeFileAtomic(join(root, "missing", "a.jsonl"), "x", "none")).toThrow(/^Cannot write /);
  });
});

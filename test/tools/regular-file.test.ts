import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  assertRegularFile,
  NotRegularFileError,
  openRegularFile,
  throwIfAborted,
} from "../../src/tools/builtin/regular-file.js";
import { makeTempDir } from "../support/builtin-tools.js";

/** Stats of a file of one kind (`kind` answers true, every other `is…` false). */
function statsOf(
  kind: "isFile" | "isDirectory" | "isFIFO" | "isSocket" | "isCharacterDevice" | "isBlockDevice" | "none",
) {
  const kinds = ["isFile", "isDirectory", "isFIFO", "isSocket", "isCharacterDevice", "isBlockDevice"];
  return Object.fromEntries(kinds.map((name) => [name, () => name === kind])) as unknown as Stats;
}

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("assertRegularFile", () => {
  it("accepts a regular file", () => {
    expect(assertRegularFile(statsOf("isFile"), "a.txt", "use ls")).toBeUndefined();
  });

  it("refuses a folder with the advice given", () => {
    expect(() => assertRegularFile(statsOf("isDirectory"), "src", "use ls to list it")).toThrow(
      "src is a directory; use ls to list it",
    );
  });

  it.each([
    ["isFIFO", "a FIFO (named pipe)"],
    ["isSocket", "a socket"],
    ["isCharacterDevice", "a character device"],
    ["isBlockDevice", "a block device"],
    ["none", "of an unknown kind"],
  ] as const)("names the kind of a file that is not regular (%s)", (kind, named) => {
    const error = thrownBy(() => assertRegularFile(statsOf(kind), "thing", "use ls"));
    expect(error).toBeInstanceOf(NotRegularFileError);
    expect(error).toMatchObject({
      name: "NotRegularFileError",
      code: "not_regular_file",
      message: `thing is ${named}, not a regular file; read, edit and write work on regular files only`,
    });
  });
});

describe("throwIfAborted", () => {
  it("throws the loop's text for an aborted signal only", () => {
    expect(() => throwIfAborted(AbortSignal.abort())).toThrow("Operation aborted");
    expect(throwIfAborted(new AbortController().signal)).toBeUndefined();
  });
});

describe("openRegularFile", () => {
  let dir: string;
  const options = (signal = new AbortController().signal) => ({
    shownPath: "shown",
    signal,
    ifDirectory: "use ls",
  });
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("opens a regular file for reading, with its stats", async () => {
    const file = path.join(dir, "a.txt");
    await fs.writeFile(file, "hello");
    const { handle, stats } = await openRegularFile(file, options());
    try {
      expect(stats.size).toBe(5);
      expect(await handle.readFile("utf8")).toBe("hello");
    } finally {
      await handle.close();
    }
  });

  it("names a missing file by the path shown", async () => {
    await expect(openRegularFile(path.join(dir, "missing"), options())).rejects.toThrow(
      "File not found: shown",
    );
  });

  it("passes on another error of stat with its own message", async () => {
    const file = path.join(dir, "a.txt");
    await fs.writeFile(file, "");
    await expect(openRegularFile(path.join(file, "below"), options())).rejects.toThrow(/^ENOTDIR: /);
  });

  it("refuses a folder before opening it", async () => {
    await expect(openRegularFile(dir, options())).rejects.toThrow("shown is a directory; use ls");
  });

  it("refuses an aborted signal before touching the file", async () => {
    await expect(openRegularFile(path.join(dir, "missing"), options(AbortSignal.abort()))).rejects.toThrow(
      "Operation aborted",
    );
  });
});

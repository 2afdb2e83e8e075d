import { execFileSync, spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editTool } from "../../src/tools/builtin/edit.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { assertRegularFile, NotRegularFileError } from "../../src/tools/builtin/regular-file.js";
import { writeTool } from "../../src/tools/builtin/write.js";
import { makeTempDir, runTool } from "../support/builtin-tools.js";

/** read, edit and write on `shownPath`, each as a settled outcome. */
function callAllThree(cwd: string, shownPath: string) {
  return Promise.allSettled([
    runTool(readTool, cwd, { path: shownPath }),
    runTool(editTool, cwd, { path: shownPath, oldText: "a", newText: "b" }),
    runTool(writeTool, cwd, { path: shownPath, content: "c" }),
  ]);
}

function reasons(outcomes: PromiseSettledResult<unknown>[]): unknown[] {
  return outcomes.map((outcome) => (outcome.status === "rejected" ? outcome.reason : "fulfilled"));
}

describe("read, edit and write on files that are not regular", () => {
  let cwd: string;
  const fifos: string[] = [];
  beforeEach(async () => {
    cwd = await makeTempDir();
  });
  afterEach(async () => {
    // An open of a FIFO that a regression let through waits for a writer; open each one read-write
    // from another process so such an open returns and a failure does not hang the whole run.
    for (const fifo of fifos.splice(0)) spawnSync("sh", ["-c", 'exec 3<>"$1"', "sh", fifo]);
    await fs.rm(cwd, { recursive: true, force: true });
  });

  it("refuses a FIFO before opening it; after many such calls the process's other file operations still run", async () => {
    const fifo = path.join(cwd, "pipe");
    execFileSync("mkfifo", [fifo]);
    fifos.push(fifo);
    // More calls than libuv's 4 pool threads: one blocking open each would starve every later fs call.
    const outcomes = (await Promise.all(Array.from({ length: 4 }, () => callAllThree(cwd, "pipe")))).flat();
    const message =
      "pipe is a FIFO (named pipe), not a regular file; read, edit and write work on regular files only";
    expect(reasons(outcomes)).toEqual(outcomes.map(() => new NotRegularFileError(message)));
    expect(
      reasons(outcomes).every((reason) => (reason as NotRegularFileError).code === "not_regular_file"),
    ).toBe(true);

    await fs.writeFile(path.join(cwd, "after.txt"), "still served");
    expect(await fs.readFile(path.join(cwd, "after.txt"), "utf8")).toBe("still served");
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it("refuses a FIFO reached through a symlink inside the folder", async () => {
    const fifo = path.join(cwd, "pipe");
    execFileSync("mkfifo", [fifo]);
    fifos.push(fifo);
    await fs.symlink("pipe", path.join(cwd, "link"));
    const outcomes = await callAllThree(cwd, "link");
    expect(reasons(outcomes).map((reason) => (reason as Error).message)).toEqual([
      "link is a FIFO (named pipe), not a regular file; read, edit and write work on regular files only",
      "link is a FIFO (named pipe), not a regular file; read, edit and write work on regular files only",
      "link is a FIFO (named pipe), not a regular file; read, edit and write work on regular files only",
    ]);
    expect((await fs.lstat(path.join(cwd, "link"))).isSymbolicLink()).toBe(true);
  });

  it("refuses a Unix socket and leaves it in place", async () => {
    const socketPath = path.join(cwd, "server.sock");
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const outcomes = await callAllThree(cwd, "server.sock");
      expect(reasons(outcomes).map((reason) => (reason as Error).message)).toEqual([
        "server.sock is a socket, not a regular file; read, edit and write work on regular files only",
        "server.sock is a socket, not a regular file; read, edit and write work on regular files only",
        "server.sock is a socket, not a regular file; read, edit and write work on regular files only",
      ]);
      expect(statSync(socketPath).isSocket()).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("names a device as a character device", () => {
    expect(() => assertRegularFile(statSync("/dev/null"), "null", "use ls")).toThrow(
      new NotRegularFileError(
        "null is a character device, not a regular file; read, edit and write work on regular files only",
      ),
    );
  });

  it("refuses a folder with each tool's own advice", async () => {
    await fs.mkdir(path.join(cwd, "dir"));
    const outcomes = await callAllThree(cwd, "dir");
    expect(reasons(outcomes).map((reason) => (reason as Error).message)).toEqual([
      "dir is a directory; use ls to list it",
      "dir is a directory; edit changes files",
      "dir is a directory; cannot write a file there",
    ]);
  });
});

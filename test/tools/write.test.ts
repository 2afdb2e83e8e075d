import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeTool } from "../../src/tools/builtin/write.js";
import { makeTempDir, runTool, textOf } from "../support/builtin-tools.js";

describe("write", () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await makeTempDir();
  });
  afterEach(async () => {
    await fs.rm(cwd, { recursive: true, force: true });
  });

  it("creates parent folders and reports the bytes written", async () => {
    const result = await runTool(writeTool, cwd, { path: "a/b/c.txt", content: "héllo" });
    expect(textOf(result)).toBe("Wrote 6 bytes to a/b/c.txt");
    expect(result.details).toEqual({ path: path.join(cwd, "a/b/c.txt"), bytes: 6, created: true });
    expect(await fs.readFile(path.join(cwd, "a/b/c.txt"), "utf8")).toBe("héllo");
  });

  it("replaces an existing file, keeps its mode and leaves no temp files", async () => {
    const file = path.join(cwd, "run.sh");
    await fs.writeFile(file, "old", { mode: 0o755 });
    const result = await runTool(writeTool, cwd, { path: "run.sh", content: "new" });
    expect(result.details?.created).toBe(false);
    expect(await fs.readFile(file, "utf8")).toBe("new");
    expect((await fs.stat(file)).mode & 0o777).toBe(0o755);
    expect(await fs.readdir(cwd)).toEqual(["run.sh"]);
  });

  it("writes through a symlink inside cwd, keeping the link", async () => {
    await fs.writeFile(path.join(cwd, "target.txt"), "old");
    await fs.symlink("target.txt", path.join(cwd, "link.txt"));
    await runTool(writeTool, cwd, { path: "link.txt", content: "new" });
    expect((await fs.lstat(path.join(cwd, "link.txt"))).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(path.join(cwd, "target.txt"), "utf8")).toBe("new");
  });

  it("refuses to write over a folder", async () => {
    await fs.mkdir(path.join(cwd, "dir"));
    await expect(runTool(writeTool, cwd, { path: "dir", content: "x" })).rejects.toThrow(/is a directory/);
  });

  it("writes nothing once the call is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      runTool(writeTool, cwd, { path: "new.txt", content: "x" }, { signal: controller.signal }),
    ).rejects.toThrow("Operation aborted");
    expect(await fs.readdir(cwd)).toEqual([]);
  });

  it("stops a large write at an abort, keeping the old file and no temp file", async () => {
    await fs.writeFile(path.join(cwd, "big.txt"), "old");
    const controller = new AbortController();
    // 64 MB go out in 128 writes of 512 KB: the abort lands before the last one.
    const writing = runTool(
      writeTool,
      cwd,
      { path: "big.txt", content: "y".repeat(64 * 1024 * 1024) },
      { signal: controller.signal },
    );
    setImmediate(() => controller.abort());
    await expect(writing).rejects.toThrow("Operation aborted");
    expect(await fs.readFile(path.join(cwd, "big.txt"), "utf8")).toBe("old");
    expect(await fs.readdir(cwd)).toEqual(["big.txt"]);
  });
});

import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lsTool } from "../../src/tools/builtin/ls.js";
import { PathOutsideCwdError, resolveInCwd } from "../../src/tools/builtin/path-guard.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { writeTool } from "../../src/tools/builtin/write.js";
import { makeTempDir, runTool } from "../support/builtin-tools.js";

describe("confinement to the tool context cwd", () => {
  let outer: string;
  let cwd: string;
  beforeEach(async () => {
    outer = await makeTempDir();
    cwd = path.join(outer, "work");
    await fs.mkdir(path.join(cwd, "sub"), { recursive: true });
    await fs.writeFile(path.join(outer, "secret.txt"), "top secret");
  });
  afterEach(async () => {
    await fs.rm(outer, { recursive: true, force: true });
  });

  it("resolves relative paths against cwd, including ones that do not exist yet", async () => {
    expect(await resolveInCwd(cwd, "sub/new/file.txt")).toBe(path.join(cwd, "sub", "new", "file.txt"));
    expect(await resolveInCwd(cwd, "sub/../a.txt")).toBe(path.join(cwd, "a.txt"));
    expect(await resolveInCwd(cwd, path.join(cwd, "sub"))).toBe(path.join(cwd, "sub"));
    expect(await resolveInCwd(cwd, ".")).toBe(cwd);
  });

  it("refuses .. escapes", async () => {
    await expect(resolveInCwd(cwd, "../secret.txt")).rejects.toBeInstanceOf(PathOutsideCwdError);
    await expect(runTool(readTool, cwd, { path: "sub/../../secret.txt" })).rejects.toThrow(
      /is outside the working directory/,
    );
  });

  it("refuses absolute paths outside cwd", async () => {
    await expect(runTool(readTool, cwd, { path: path.join(outer, "secret.txt") })).rejects.toThrow(
      /is outside the working directory/,
    );
    await expect(runTool(lsTool, cwd, { path: "/" })).rejects.toThrow(PathOutsideCwdError);
  });

  it("does not treat a sibling folder sharing the cwd prefix as inside", async () => {
    await fs.mkdir(`${cwd}-evil`);
    await expect(resolveInCwd(cwd, `${cwd}-evil/x`)).rejects.toThrow(PathOutsideCwdError);
  });

  it("refuses symlinks that lead out, for files, folders and not-yet-existing children", async () => {
    await fs.symlink(path.join(outer, "secret.txt"), path.join(cwd, "link.txt"));
    await fs.symlink(outer, path.join(cwd, "outside"));
    await expect(runTool(readTool, cwd, { path: "link.txt" })).rejects.toThrow(/symbolic link/);
    await expect(runTool(lsTool, cwd, { path: "outside" })).rejects.toThrow(/symbolic link/);
    await expect(runTool(writeTool, cwd, { path: "outside/new/planted.txt", content: "x" })).rejects.toThrow(
      /symbolic link/,
    );
    await expect(fs.stat(path.join(outer, "new"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses writing through a dangling symlink that points outside", async () => {
    await fs.symlink(path.join(outer, "created-outside.txt"), path.join(cwd, "dangling"));
    await expect(runTool(writeTool, cwd, { path: "dangling", content: "x" })).rejects.toThrow(
      PathOutsideCwdError,
    );
    await expect(fs.stat(path.join(outer, "created-outside.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("allows symlinks that stay inside cwd", async () => {
    await fs.writeFile(path.join(cwd, "sub", "real.txt"), "inside");
    await fs.symlink(path.join(cwd, "sub", "real.txt"), path.join(cwd, "alias.txt"));
    const result = await runTool(readTool, cwd, { path: "alias.txt" });
    expect(result.content).toEqual([{ type: "text", text: "inside" }]);
  });

  it("refuses with a typed error: PathOutsideCwdError, code outside_cwd", async () => {
    const error = await resolveInCwd(cwd, "../secret.txt").catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: "PathOutsideCwdError", code: "outside_cwd" });
  });

  it("passes on file system errors other than a missing path", async () => {
    await fs.writeFile(path.join(cwd, "plain.txt"), "a file, not a folder");
    await expect(resolveInCwd(cwd, "plain.txt/below")).rejects.toThrow(/ENOTDIR/);
  });

  it("says when the working directory does not exist", async () => {
    const gone = path.join(outer, "gone");
    await expect(resolveInCwd(gone, "a.txt")).rejects.toThrow(`The working directory ${gone} does not exist`);
  });

  it("fails clearly with an empty cwd", async () => {
    await expect(runTool(readTool, cwd, { path: "a" }, { context: { cwd: "" } })).rejects.toThrow(
      /need a tool context with a cwd/,
    );
  });

  it("fails clearly without a tool context", async () => {
    await expect(runTool(readTool, cwd, { path: "a" }, { context: undefined })).rejects.toThrow(
      /need a tool context with a cwd/,
    );
  });
});

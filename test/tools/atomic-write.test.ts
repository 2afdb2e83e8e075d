import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/tools/builtin/atomic-write.js";
import { makeTempDir } from "../support/builtin-tools.js";

describe("writeFileAtomic", () => {
  let dir: string;
  const live = () => new AbortController().signal;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("creates a new file and leaves no temporary file", async () => {
    const file = path.join(dir, "new.txt");
    await writeFileAtomic(file, "hello", live());
    expect(await fs.readFile(file, "utf8")).toBe("hello");
    expect(await fs.readdir(dir)).toEqual(["new.txt"]);
  });

  it("replaces an existing file, keeping its mode", async () => {
    const file = path.join(dir, "script.sh");
    await fs.writeFile(file, "old");
    await fs.chmod(file, 0o751);
    await writeFileAtomic(file, Buffer.from("new"), live());
    expect(await fs.readFile(file, "utf8")).toBe("new");
    expect((await fs.stat(file)).mode & 0o7777).toBe(0o751);
    expect(await fs.readdir(dir)).toEqual(["script.sh"]);
  });

  it("writes through a symlink: the target is replaced, the link stays", async () => {
    const target = path.join(dir, "target.txt");
    const link = path.join(dir, "link.txt");
    await fs.writeFile(target, "old");
    await fs.chmod(target, 0o600);
    await fs.symlink("target.txt", link);
    await writeFileAtomic(link, "new", live());
    expect((await fs.lstat(link)).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(target, "utf8")).toBe("new");
    expect((await fs.stat(target)).mode & 0o7777).toBe(0o600);
    expect((await fs.readdir(dir)).sort()).toEqual(["link.txt", "target.txt"]);
  });

  it("rejects an aborted write with the loop's text, leaving the target and no temporary file", async () => {
    const file = path.join(dir, "kept.txt");
    await fs.writeFile(file, "old");
    await expect(writeFileAtomic(file, "new", AbortSignal.abort())).rejects.toThrow("Operation aborted");
    expect(await fs.readFile(file, "utf8")).toBe("old");
    expect(await fs.readdir(dir)).toEqual(["kept.txt"]);
  });

  it("rejects with the system's error when the rename fails, removing the temporary file", async () => {
    const folder = path.join(dir, "folder");
    await fs.mkdir(folder);
    await fs.writeFile(path.join(folder, "inside"), "");
    await expect(writeFileAtomic(folder, "new", live())).rejects.toMatchObject({
      code: expect.stringMatching(/^E/),
    });
    expect(await fs.readdir(dir)).toEqual(["folder"]);
  });

  it("rejects with the system's error for a path it cannot resolve, other than a missing file", async () => {
    const file = path.join(dir, "file.txt");
    await fs.writeFile(file, "");
    await expect(writeFileAtomic(path.join(file, "below"), "x", live())).rejects.toMatchObject({
      code: "ENOTDIR",
    });
  });

  it("rejects a path it cannot resolve, such as a symlink loop, leaving the link as it was", async () => {
    const loop = path.join(dir, "loop");
    await fs.symlink("loop", loop);
    await expect(writeFileAtomic(loop, "x", live())).rejects.toMatchObject({ code: "ELOOP" });
    expect((await fs.lstat(loop)).isSymbolicLink()).toBe(true);
    expect(await fs.readdir(dir)).toEqual(["loop"]);
  });

  it("rejects with the system's error when the folder does not exist", async () => {
    await expect(writeFileAtomic(path.join(dir, "missing", "a.txt"), "x", live())).rejects.toMatchObject({
      code: "ENOENT",
    });
  });
});

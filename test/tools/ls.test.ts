import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lsTool } from "../../src/tools/builtin/ls.js";
import { makeTempDir, runTool, textOf } from "../support/builtin-tools.js";

describe("ls", () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await makeTempDir();
  });
  afterEach(async () => {
    await fs.rm(cwd, { recursive: true, force: true });
  });

  it("lists entries sorted, folders with a trailing slash, dotfiles included", async () => {
    await fs.mkdir(path.join(cwd, "src"));
    await fs.writeFile(path.join(cwd, "README.md"), "");
    await fs.writeFile(path.join(cwd, ".env"), "");
    await fs.writeFile(path.join(cwd, "b.txt"), "");
    await fs.symlink("src", path.join(cwd, "alias"));
    const result = await runTool(lsTool, cwd, {});
    expect(textOf(result)).toBe(".env\nalias/\nb.txt\nREADME.md\nsrc/");
    expect(result.details).toEqual({ path: cwd, totalEntries: 5, shownEntries: 5, truncated: false });
  });

  it("honours limit with a note", async () => {
    for (const name of ["a", "b", "c", "d"]) await fs.writeFile(path.join(cwd, name), "");
    const result = await runTool(lsTool, cwd, { path: ".", limit: 2 });
    expect(textOf(result)).toBe("a\nb\n\n[2 more entries not shown; 4 in total. Use limit=4 to see all.]");
    expect(result.details?.truncated).toBe(true);
  });

  it("reports empty folders, files and missing paths", async () => {
    await fs.mkdir(path.join(cwd, "empty"));
    await fs.writeFile(path.join(cwd, "f.txt"), "");
    expect(textOf(await runTool(lsTool, cwd, { path: "empty" }))).toBe("(empty folder)");
    await expect(runTool(lsTool, cwd, { path: "f.txt" })).rejects.toThrow(/is not a folder/);
    await expect(runTool(lsTool, cwd, { path: "missing" })).rejects.toThrow("Folder not found: missing");
  });
});

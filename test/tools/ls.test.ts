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

  it("orders names equal but for case upper case first, whatever order the folder lists them in", async () => {
    const letters = "abcdefghijklmnopqrstuvwxyz".split("");
    for (const letter of letters) {
      await fs.writeFile(path.join(cwd, letter), "");
      await fs.writeFile(path.join(cwd, `${letter.toUpperCase()}${letter}`), "");
      await fs.writeFile(path.join(cwd, `${letter}${letter}`), "");
      await fs.writeFile(path.join(cwd, letter.toUpperCase()), "");
    }
    const expected = letters.flatMap((letter) => {
      const upper = letter.toUpperCase();
      return [upper, letter, `${upper}${letter}`, `${letter}${letter}`];
    });
    expect(textOf(await runTool(lsTool, cwd, {})).split("\n")).toEqual(expected);
  });

  it("orders names ignoring case, upper case first between names equal but for case", async () => {
    for (const name of ["b", "B", "a", "A", "_x", "Zed", "ab"]) await fs.writeFile(path.join(cwd, name), "");
    expect(textOf(await runTool(lsTool, cwd, {}))).toBe("_x\nA\na\nab\nB\nb\nZed");
  });

  it("marks only links that lead to a folder as folders", async () => {
    await fs.mkdir(path.join(cwd, "dir"));
    await fs.writeFile(path.join(cwd, "file"), "");
    await fs.symlink("file", path.join(cwd, "to-file"));
    await fs.symlink("missing", path.join(cwd, "dangling"));
    await fs.symlink("dir", path.join(cwd, "to-dir"));
    expect(textOf(await runTool(lsTool, cwd, {}))).toBe("dangling\ndir/\nfile\nto-dir/\nto-file");
  });

  it("shows 500 entries unless limit is given", async () => {
    const names = Array.from({ length: 501 }, (_, i) => `f${String(i).padStart(3, "0")}`);
    await Promise.all(names.map((name) => fs.writeFile(path.join(cwd, name), "")));
    const result = await runTool(lsTool, cwd, {});
    const text = textOf(result);
    expect(text.split("\n").slice(0, 500)).toEqual(names.slice(0, 500));
    expect(text.endsWith("\n\n[1 more entries not shown; 501 in total. Use limit=501 to see all.]")).toBe(
      true,
    );
    expect(result.details).toEqual({ path: cwd, totalEntries: 501, shownEntries: 500, truncated: true });
    const all = await runTool(lsTool, cwd, { limit: 501 });
    expect(all.details).toMatchObject({ shownEntries: 501, truncated: false });
    expect(textOf(all)).not.toContain("more entries");
  });

  it("stops at 50 KB of names and says so", async () => {
    const long = (i: number) => `${String(i).padStart(3, "0")}${"n".repeat(200)}`;
    await Promise.all(Array.from({ length: 300 }, (_, i) => fs.writeFile(path.join(cwd, long(i)), "")));
    const result = await runTool(lsTool, cwd, {});
    const shown = result.details!.shownEntries;
    expect(shown).toBeGreaterThan(200);
    expect(shown).toBeLessThan(300);
    expect(textOf(result)).toContain(
      `\n\n[${300 - shown} more entries not shown (50.0 KB limit); 300 in total. Use limit=300 to see all.]`,
    );
    expect(result.details).toMatchObject({ totalEntries: 300, truncated: true });
  });

  it("passes on another error of stat with its own message", async () => {
    await fs.writeFile(path.join(cwd, "f.txt"), "");
    await expect(runTool(lsTool, cwd, { path: "f.txt/below" })).rejects.toThrow(/^ENOTDIR: /);
  });
});

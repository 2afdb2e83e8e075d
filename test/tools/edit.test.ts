import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editTool } from "../../src/tools/builtin/edit.js";
import { makeTempDir, runTool, textOf } from "../support/builtin-tools.js";

describe("edit", () => {
  let cwd: string;
  let file: string;
  beforeEach(async () => {
    cwd = await makeTempDir();
    file = path.join(cwd, "code.ts");
    await fs.writeFile(file, "const a = 1;\nconst b = 2;\nconst c = 1;\n");
  });
  afterEach(async () => {
    await fs.rm(cwd, { recursive: true, force: true });
  });

  it("replaces a unique match and returns a diff summary", async () => {
    const result = await runTool(editTool, cwd, {
      path: "code.ts",
      oldText: "const b = 2;",
      newText: "const b = 3;",
    });
    expect(textOf(result)).toBe("Edited code.ts: 1 replacement");
    expect(await fs.readFile(file, "utf8")).toBe("const a = 1;\nconst b = 3;\nconst c = 1;\n");
    expect(result.details).toEqual({
      path: file,
      replacements: 1,
      firstChangedLine: 2,
      diff: "@@ line 2 @@\n-const b = 2;\n+const b = 3;",
    });
  });

  it("fails clearly when oldText is not found, leaving the file untouched", async () => {
    await expect(
      runTool(editTool, cwd, { path: "code.ts", oldText: "const d", newText: "x" }),
    ).rejects.toThrow(/^oldText not found in code\.ts\. It must match the file exactly/);
    expect(await fs.readFile(file, "utf8")).toBe("const a = 1;\nconst b = 2;\nconst c = 1;\n");
  });

  it("fails with the count when oldText matches several places", async () => {
    await expect(
      runTool(editTool, cwd, { path: "code.ts", oldText: "= 1;", newText: "= 9;" }),
    ).rejects.toThrow(
      "oldText occurs 2 times in code.ts; include more surrounding lines so it matches exactly once.",
    );
  });

  it("counts overlapping matches: oldText that occurs twice sharing characters is refused", async () => {
    await fs.writeFile(file, "x = aaa;\n");
    await expect(runTool(editTool, cwd, { path: "code.ts", oldText: "aa", newText: "b" })).rejects.toThrow(
      "oldText occurs 2 times in code.ts; include more surrounding lines so it matches exactly once.",
    );
    expect(await fs.readFile(file, "utf8")).toBe("x = aaa;\n");
  });

  it("applies several non-overlapping edits matched against the original", async () => {
    const result = await runTool(editTool, cwd, {
      path: "code.ts",
      edits: [
        { oldText: "const c = 1;", newText: "const c = 10;\nconst d = 4;" },
        { oldText: "const a = 1;", newText: "let a = 1;" },
      ],
    });
    expect(await fs.readFile(file, "utf8")).toBe("let a = 1;\nconst b = 2;\nconst c = 10;\nconst d = 4;\n");
    expect(result.details?.replacements).toBe(2);
    expect(result.details?.diff).toBe(
      "@@ line 1 @@\n-const a = 1;\n+let a = 1;\n@@ line 3 @@\n-const c = 1;\n+const c = 10;\n+const d = 4;",
    );
  });

  it("refuses overlapping edits, empty oldText and no-op edits", async () => {
    await expect(
      runTool(editTool, cwd, {
        path: "code.ts",
        edits: [
          { oldText: "const a = 1;\nconst b", newText: "x" },
          { oldText: "b = 2;", newText: "y" },
        ],
      }),
    ).rejects.toThrow(/Edits overlap/);
    await expect(runTool(editTool, cwd, { path: "code.ts", oldText: "", newText: "x" })).rejects.toThrow(
      /empty/,
    );
    await expect(
      runTool(editTool, cwd, { path: "code.ts", oldText: "b = 2", newText: "b = 2" }),
    ).rejects.toThrow(/No changes/);
    await expect(runTool(editTool, cwd, { path: "code.ts" })).rejects.toThrow(/Nothing to edit/);
  });

  it("preserves CRLF line endings and a BOM", async () => {
    await fs.writeFile(file, "\uFEFFone\r\ntwo\r\nthree\r\n");
    await runTool(editTool, cwd, { path: "code.ts", oldText: "one\ntwo", newText: "uno\ndos" });
    expect(await fs.readFile(file, "utf8")).toBe("\uFEFFuno\r\ndos\r\nthree\r\n");
  });

  it("keeps a U+FEFF that is not at the start of the file where it is", async () => {
    await fs.writeFile(file, "a = 1;\uFEFF");
    await runTool(editTool, cwd, { path: "code.ts", oldText: "a = 1", newText: "a = 2" });
    expect(await fs.readFile(file, "utf8")).toBe("a = 2;\uFEFF");
  });

  it("names the edit that fails among several, counting from 1, and the fix", async () => {
    const edits = (first: string, second: string) => ({
      path: "code.ts",
      edits: [
        { oldText: first, newText: "x" },
        { oldText: second, newText: "y" },
      ],
    });
    await expect(runTool(editTool, cwd, edits("const a", "missing"))).rejects.toThrow(
      "oldText not found in code.ts (edit 2). It must match the file exactly, including whitespace and " +
        "indentation; read the file again to see its current content.",
    );
    await expect(runTool(editTool, cwd, edits("= 1;", "const b"))).rejects.toThrow(
      "oldText occurs 2 times in code.ts (edit 1);",
    );
  });

  it("applies edits that touch without overlapping, and says how many", async () => {
    const result = await runTool(editTool, cwd, {
      path: "code.ts",
      edits: [
        { oldText: "const a = 1;", newText: "let a = 1;" },
        { oldText: "\nconst b", newText: "\nlet b" },
      ],
    });
    expect(textOf(result)).toBe("Edited code.ts: 2 replacements");
    expect(await fs.readFile(file, "utf8")).toBe("let a = 1;\nlet b = 2;\nconst c = 1;\n");
  });

  it("needs oldText and newText together", async () => {
    for (const args of [{ oldText: "const a" }, { newText: "x" }, { oldText: "const a", edits: [] }]) {
      await expect(runTool(editTool, cwd, { path: "code.ts", ...args })).rejects.toThrow(
        "oldText and newText must be given together",
      );
    }
  });

  it("gives the first changed line and each block's line in the new file", async () => {
    await fs.writeFile(file, "a\nb\nc\nd\ne");
    const result = await runTool(editTool, cwd, {
      path: "code.ts",
      edits: [
        { oldText: "a", newText: "a1\na2\na3" },
        { oldText: "\nd", newText: "\nD" },
        { oldText: "e", newText: "E" },
      ],
    });
    expect(result.details?.firstChangedLine).toBe(1);
    expect(result.details?.diff.split("\n").filter((line) => line.startsWith("@@"))).toEqual([
      "@@ line 1 @@",
      "@@ line 5 @@",
      "@@ line 7 @@",
    ]);
    const second = await runTool(editTool, cwd, { path: "code.ts", oldText: "E", newText: "e" });
    expect(second.details?.firstChangedLine).toBe(7);
    const third = await runTool(editTool, cwd, { path: "code.ts", oldText: "\nb", newText: "\nB" });
    expect(third.details?.firstChangedLine).toBe(3);
  });

  it("abbreviates a block of more than 12 lines in the diff", async () => {
    const lines = (count: number, name: string) =>
      Array.from({ length: count }, (_, i) => `${name}${i}`).join("\n");
    const twelve = await runTool(editTool, cwd, {
      path: "code.ts",
      oldText: "const b = 2;",
      newText: lines(12, "t"),
    });
    expect(twelve.details?.diff).toBe(
      ["@@ line 2 @@", "-const b = 2;", ...lines(12, "+t").split("\n")].join("\n"),
    );
    const thirteen = await runTool(editTool, cwd, {
      path: "code.ts",
      oldText: lines(12, "t"),
      newText: lines(13, "u"),
    });
    expect(thirteen.details?.diff.split("\n").slice(-2)).toEqual(["+u11", "+… (1 more lines)"]);
    expect(thirteen.details?.diff.split("\n")).toHaveLength(1 + 12 + 13);
  });

  it("reports a missing file", async () => {
    await expect(runTool(editTool, cwd, { path: "none.ts", oldText: "a", newText: "b" })).rejects.toThrow(
      "File not found: none.ts",
    );
  });

  it("does nothing once the call is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      runTool(
        editTool,
        cwd,
        { path: "code.ts", oldText: "const b = 2;", newText: "const b = 3;" },
        { signal: controller.signal },
      ),
    ).rejects.toThrow("Operation aborted");
    expect(await fs.readFile(file, "utf8")).toBe("const a = 1;\nconst b = 2;\nconst c = 1;\n");
  });
});

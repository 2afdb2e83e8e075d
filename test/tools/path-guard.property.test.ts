import fs from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lsTool } from "../../src/tools/builtin/ls.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { writeTool } from "../../src/tools/builtin/write.js";
import { makeTempDir, runTool } from "../support/builtin-tools.js";

// For random paths (relative or absolute, made of `..`, `.`, empty segments, folders, and symlinks
// that lead out, in, or nowhere), given to the write, read and ls tools: whatever the guard lets a
// write through lands inside the working directory, nothing outside it is ever created or changed,
// and no read or listing shows what lies outside. The oracle is the file system itself, not the
// guard's own reasoning.

const SEGMENTS = ["..", ".", "", "a", "sub", "out", "in", "dangling", "work", "note.txt"];

describe("the path guard (property)", () => {
  let outer: string;
  let cwd: string;
  beforeAll(async () => {
    outer = await makeTempDir();
    cwd = path.join(outer, "work");
    await fs.mkdir(path.join(cwd, "sub"), { recursive: true });
    await fs.writeFile(path.join(outer, "secret.txt"), "top secret");
    await fs.mkdir(`${cwd}-evil`);
    await fs.writeFile(path.join(`${cwd}-evil`, "outside-marker"), "top secret");
    await fs.symlink(outer, path.join(cwd, "out"));
    await fs.symlink(path.join(cwd, "sub"), path.join(cwd, "in"));
    await fs.symlink(path.join(outer, "planted.txt"), path.join(cwd, "dangling"));
  });
  afterAll(async () => {
    await fs.rm(outer, { recursive: true, force: true });
  });

  /** Everything under `outer` but the working directory: paths, and the contents of its files. */
  async function outside(): Promise<Map<string, string>> {
    const entries = await fs.readdir(outer, { recursive: true, withFileTypes: true });
    const listed = new Map<string, string>();
    for (const entry of entries) {
      const full = path.join(entry.parentPath, entry.name);
      if (full === cwd || full.startsWith(`${cwd}${path.sep}`)) continue;
      listed.set(full, entry.isFile() ? await fs.readFile(full, "utf8") : "");
    }
    return listed;
  }

  /** Puts back what a failing run changed outside, so that the shrunk counterexample is the real one. */
  async function restore(before: Map<string, string>, after: Map<string, string>) {
    for (const [full, content] of after) {
      if (!before.has(full)) await fs.rm(full, { recursive: true, force: true });
      else if (before.get(full) !== content) await fs.writeFile(full, before.get(full)!);
    }
  }

  it("never lets a write out of the working directory", async () => {
    const before = await outside();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("", "/", "cwd", "outer", "evil"),
        fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 6 }),
        async (start, segments) => {
          const base = { "": "", "/": "/", cwd: `${cwd}/`, outer: `${outer}/`, evil: `${cwd}-evil/` }[start];
          const requested = `${base}${segments.join("/")}`;
          const shownText = (run: Promise<{ content: unknown }>) =>
            run.then(
              (result) => JSON.stringify(result.content),
              () => "",
            );
          const shown = await Promise.all([
            shownText(runTool(readTool, cwd, { path: requested })),
            shownText(runTool(lsTool, cwd, { path: requested })),
          ]);
          expect(shown.join("\n")).not.toMatch(/top secret|secret\.txt|outside-marker|work-evil/);
          const written = await runTool(writeTool, cwd, { path: requested, content: "planted" }).then(
            () => true,
            () => false,
          );
          const after = await outside();
          await restore(before, after);
          expect(after).toEqual(before);
          if (written) {
            const landed = await fs.realpath(path.resolve(cwd, requested));
            expect(landed.startsWith(`${cwd}${path.sep}`), `${requested} landed at ${landed}`).toBe(true);
            expect(await fs.readFile(landed, "utf8")).toBe("planted");
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

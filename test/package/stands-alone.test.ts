import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const projectRoot = path.resolve(import.meta.dirname, "../..");
/** The sibling folder the project must not depend on, spelled so this file does not contain it. */
const siblingFolder = ["..", "shared"].join("/");

/** Runs git; `safe.directory=*` lets CI run as another user than the checkout's owner. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "safe.directory=*", ...args], { cwd, encoding: "utf8" });
}

let parent: string;
let clone: string;

beforeAll(() => {
  // A clone of the commit under test, alone in a fresh temporary folder (nothing beside it).
  parent = mkdtempSync(path.join(tmpdir(), "agentchart-clone-"));
  clone = path.join(parent, "agentchart");
  const head = git(projectRoot, "rev-parse", "HEAD").trim();
  git(parent, "clone", "--quiet", "--no-checkout", projectRoot, clone);
  git(clone, "checkout", "--quiet", "--detach", head);
});

afterAll(() => {
  if (parent) rmSync(parent, { recursive: true, force: true });
});

describe("a fresh clone of the repository", () => {
  it("has nothing beside it", () => {
    expect(existsSync(path.join(clone, siblingFolder))).toBe(false);
  });

  it(`contains no tracked file that refers to ${siblingFolder}`, () => {
    const files = git(clone, "ls-files", "-z").split("\0").filter(Boolean);
    expect(files).toContain("package.json");
    const needle = Buffer.from(siblingFolder);
    const offenders = files.filter((file) => readFileSync(path.join(clone, file)).includes(needle));
    expect(offenders).toEqual([]);
  });

  it("holds the fixtures the tests and benches read", () => {
    for (const fixture of [
      "test/fixtures/README.md",
      "test/fixtures/pi-sessions/before-compaction.jsonl",
      "test/fixtures/pi-sessions/large-session.v1.jsonl",
      "test/fixtures/skills/skills/valid-skill/SKILL.md",
      "test/fixtures/skills/skills-collision/first/calendar/SKILL.md",
    ]) {
      expect(existsSync(path.join(clone, fixture)), fixture).toBe(true);
    }
  });
});

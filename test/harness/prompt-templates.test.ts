import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  expandPromptTemplate,
  loadPromptTemplates,
  parseTemplateArgs,
} from "../../src/harness/resources/prompt-templates.js";

describe("loadPromptTemplates", () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "templates-"));
  });
  afterEach(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });
  async function write(relative: string, text: string) {
    const file = path.join(tmp, relative);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text);
    return file;
  }

  it("loads direct .md children only, with front matter or first-line descriptions", async () => {
    const review = await write(
      "a/review.md",
      "---\ndescription: Review code\nargument-hint: <file>\n---\nReview $1",
    );
    const long = "This first line is deliberately longer than sixty characters in total";
    const fix = await write("a/fix.md", `\n\n  ${long}\nmore`);
    await write("a/nested/deep.md", "Not loaded");
    await write("a/notes.txt", "Not markdown");
    await write("a/.hidden.md", "Hidden");
    const { templates, diagnostics } = await loadPromptTemplates([
      path.join(tmp, "a"),
      path.join(tmp, "missing"),
    ]);
    expect(diagnostics).toEqual([]);
    expect(templates).toEqual([
      { name: "fix", description: `${long.slice(0, 60)}...`, content: `${long}\nmore`, filePath: fix },
      {
        name: "review",
        description: "Review code",
        content: "Review $1",
        argumentHint: "<file>",
        filePath: review,
      },
    ]);
  });

  it("loads explicit files, keeps sources, and reports collisions and parse failures", async () => {
    const first = await write("user/commit.md", "Commit the work");
    const second = await write("project/commit.md", "Other commit");
    const broken = await write("project/broken.md", "---\ndescription: [oops\n---\nbody");
    const { templates, diagnostics } = await loadPromptTemplates([
      { path: first, source: "user" },
      { path: path.join(tmp, "project"), source: "project" },
    ]);
    expect(templates.map((t) => [t.name, t.source, t.description])).toEqual([
      ["commit", "user", "Commit the work"],
    ]);
    expect(diagnostics).toHaveLength(2);
    expect(diagnostics[0]).toMatchObject({
      severity: "error",
      code: "parse_failed",
      path: broken,
      source: "project",
    });
    expect(diagnostics[1]).toMatchObject({
      severity: "warning",
      code: "collision",
      path: second,
      source: "project",
    });
  });
});

describe("parseTemplateArgs", () => {
  it("splits on unquoted whitespace and groups quoted text", () => {
    expect(parseTemplateArgs(`fix "the login bug"  'src/a b.ts'\tlast`)).toEqual([
      "fix",
      "the login bug",
      "src/a b.ts",
      "last",
    ]);
  });

  it("joins quoted parts with adjacent text, runs an unterminated quote to the end, drops empties", () => {
    expect(parseTemplateArgs(`--name="a b"c "" 'open quote`)).toEqual(["--name=a bc", "open quote"]);
    expect(parseTemplateArgs("   ")).toEqual([]);
  });
});

describe("expandPromptTemplate", () => {
  const args = ["one", "two", "three", "four"];

  it("substitutes positional arguments, missing ones as empty", () => {
    expect(expandPromptTemplate("$1-$2-$4-$5.", args)).toBe("one-two-four-.");
  });

  it("substitutes $@ and $ARGUMENTS with all arguments", () => {
    expect(expandPromptTemplate({ content: "[$@] [$ARGUMENTS]" }, args)).toBe(
      "[one two three four] [one two three four]",
    );
  });

  it("substitutes bash-like slices", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: template syntax under test
    expect(expandPromptTemplate("${@:2}|${@:2:2}|${@:0:1}|${@:9}|${@:4:10}", args)).toBe(
      "two three four|two three|one||four",
    );
  });

  it("does not re-expand text that came from an argument and leaves $0 alone", () => {
    expect(expandPromptTemplate("$1 $0 $ARGUMENTS", ["$2", "$@"])).toBe("$2 $0 $2 $@");
  });

  it("supports double-digit positions", () => {
    const many = Array.from({ length: 12 }, (_, i) => `a${i + 1}`);
    expect(expandPromptTemplate("$10 $12", many)).toBe("a10 a12");
  });
});

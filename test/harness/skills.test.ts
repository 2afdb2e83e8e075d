import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadSkills } from "../../src/harness/resources/skills.js";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/skills");
const CASES = path.join(FIXTURES, "skills");

/** Loads one fixture case folder as its own root. */
async function loadCase(name: string) {
  return loadSkills([path.join(CASES, name)]);
}

function messages(diagnostics: { message: string }[]): string[] {
  return diagnostics.map((d) => d.message);
}

describe("loadSkills on the skill fixtures", () => {
  it("loads a valid skill with its metadata, body and paths", async () => {
    const { skills, diagnostics } = await loadCase("valid-skill");
    expect(diagnostics).toEqual([]);
    const file = path.join(CASES, "valid-skill", "SKILL.md");
    expect(skills).toEqual([
      {
        name: "valid-skill",
        description: "A valid skill for testing purposes.",
        content: "# Valid Skill\n\nThis is a valid skill that follows the Agent Skills standard.",
        filePath: file,
        baseDir: path.dirname(file),
        disableModelInvocation: false,
        userInvocable: true,
      },
    ]);
  });

  it("drops a skill without a description and reports an error", async () => {
    const { skills, diagnostics } = await loadCase("missing-description");
    expect(skills).toEqual([]);
    expect(diagnostics).toEqual([
      {
        severity: "error",
        code: "invalid_metadata",
        path: path.join(CASES, "missing-description", "SKILL.md"),
        message: "description is required",
      },
    ]);
  });

  it("keeps a skill with uppercase/underscore in its name but warns", async () => {
    const { skills, diagnostics } = await loadCase("invalid-name-chars");
    expect(skills.map((s) => s.name)).toEqual(["Invalid_Name"]);
    expect(diagnostics.every((d) => d.severity === "warning")).toBe(true);
    expect(messages(diagnostics)).toContain(
      'name "Invalid_Name" may contain only lowercase letters a-z, digits and hyphens',
    );
    expect(messages(diagnostics)).toContain(
      'name "Invalid_Name" does not match its location "invalid-name-chars"',
    );
  });

  it("warns about consecutive hyphens", async () => {
    const { skills, diagnostics } = await loadCase("consecutive-hyphens");
    expect(skills.map((s) => s.name)).toEqual(["bad--name"]);
    expect(messages(diagnostics)).toContain('name "bad--name" contains consecutive hyphens');
  });

  it("warns about a name longer than 64 characters", async () => {
    const { skills, diagnostics } = await loadCase("long-name");
    expect(skills).toHaveLength(1);
    expect(messages(diagnostics)).toContain("name is 94 characters; the limit is 64");
  });

  it("warns when the name does not match the parent folder", async () => {
    const { skills, diagnostics } = await loadCase("name-mismatch");
    expect(skills.map((s) => s.name)).toEqual(["different-name"]);
    expect(diagnostics).toEqual([
      {
        severity: "warning",
        code: "invalid_metadata",
        path: path.join(CASES, "name-mismatch", "SKILL.md"),
        message: 'name "different-name" does not match its location "name-mismatch"',
      },
    ]);
  });

  it("finds skills in nested folders", async () => {
    const { skills, diagnostics } = await loadCase("nested");
    expect(diagnostics).toEqual([]);
    expect(skills.map((s) => [s.name, s.filePath])).toEqual([
      ["child-skill", path.join(CASES, "nested", "child-skill", "SKILL.md")],
    ]);
  });

  it("prefers a folder's own SKILL.md over nested ones and names it after the folder", async () => {
    const { skills, diagnostics } = await loadCase("root-skill-preferred");
    expect(diagnostics).toEqual([]);
    expect(skills).toHaveLength(1);
    expect(skills[0]).toMatchObject({
      name: "root-skill-preferred",
      description: "Root skill should win.",
      content: "",
      filePath: path.join(CASES, "root-skill-preferred", "SKILL.md"),
    });
  });

  it("reports invalid YAML as a parse error and drops the skill", async () => {
    const { skills, diagnostics } = await loadCase("invalid-yaml");
    expect(skills).toEqual([]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      severity: "error",
      code: "parse_failed",
      path: path.join(CASES, "invalid-yaml", "SKILL.md"),
    });
    expect(diagnostics[0]?.message).toMatch(/^invalid YAML front matter: /);
  });

  it("drops a SKILL.md without front matter because it has no description", async () => {
    const { skills, diagnostics } = await loadCase("no-frontmatter");
    expect(skills).toEqual([]);
    expect(diagnostics).toMatchObject([{ severity: "error", message: "description is required" }]);
  });

  it("loads a skill with unknown fields and warns naming them", async () => {
    const { skills, diagnostics } = await loadCase("unknown-field");
    expect(skills.map((s) => s.name)).toEqual(["unknown-field"]);
    expect(diagnostics).toMatchObject([
      {
        severity: "warning",
        code: "unknown_field",
        message: "unknown front matter field(s): author, version",
      },
    ]);
  });

  it("collapses a multi-line description to one line", async () => {
    const { skills, diagnostics } = await loadCase("multiline-description");
    expect(diagnostics).toEqual([]);
    expect(skills[0]?.description).toBe(
      "This is a multiline description. It spans multiple lines. And should be normalized.",
    );
  });

  it("reads disable-model-invocation", async () => {
    const { skills } = await loadCase("disable-model-invocation");
    expect(skills[0]).toMatchObject({ name: "disable-model-invocation", disableModelInvocation: true });
  });

  it("keeps the first of two roots defining the same name and reports the second", async () => {
    const first = path.join(FIXTURES, "skills-collision", "first");
    const second = path.join(FIXTURES, "skills-collision", "second");
    const { skills, diagnostics } = await loadSkills({
      dirs: [
        { path: first, source: "user" },
        { path: second, source: "project" },
      ],
    });
    expect(skills.map((s) => [s.name, s.description, s.source])).toEqual([
      ["calendar", "First calendar skill.", "user"],
    ]);
    expect(diagnostics).toEqual([
      {
        severity: "warning",
        code: "collision",
        path: path.join(second, "calendar", "SKILL.md"),
        message: `skill "calendar" is already defined by ${path.join(first, "calendar", "SKILL.md")}; this one is ignored`,
        source: "project",
      },
    ]);
  });

  it("loads every loadable fixture case from one root, in folder-name order", async () => {
    const { skills } = await loadSkills([CASES]);
    expect(skills.map((s) => s.name)).toEqual([
      "bad--name",
      "disable-model-invocation",
      "Invalid_Name",
      "this-is-a-very-long-skill-name-that-exceeds-the-sixty-four-character-limit-set-by-the-standard",
      "multiline-description",
      "different-name",
      "child-skill",
      "root-skill-preferred",
      "unknown-field",
      "valid-skill",
    ]);
  });
});

describe("loadSkills discovery rules", () => {
  let tmp: string;
  afterEach(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  async function write(relative: string, text: string) {
    const file = path.join(tmp, relative);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text);
  }

  it("loads root-level .md skills by file name, ignoring docs and files without front matter", async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "skills-"));
    await write("deploy.md", "---\ndescription: Deploys things.\n---\nSteps.");
    await write("README.md", "# My skills\n");
    await write("AGENTS.md", "---\ntitle: agents\n---\n");
    await write("RESOLVER.md", "# Resolver notes\n");
    await write("sub/notes.md", "---\ndescription: nested non-SKILL md\n---\n");
    const { skills, diagnostics } = await loadSkills([tmp]);
    expect(diagnostics).toEqual([]);
    expect(skills.map((s) => s.name)).toEqual(["deploy"]);
    expect(skills[0]?.baseDir).toBe(tmp);
  });

  it("skips hidden folders, node_modules and paths in ignore files", async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "skills-"));
    const skill = (name: string) => `---\nname: ${name}\ndescription: d\n---\n`;
    await write(".hidden/secret/SKILL.md", skill("secret"));
    await write("node_modules/dep/SKILL.md", skill("dep"));
    await write(".gitignore", "drafts/\n*-wip\n!keep-wip\n");
    await write("drafts/draft/SKILL.md", skill("draft"));
    await write("a-wip/SKILL.md", skill("a-wip"));
    await write("keep-wip/SKILL.md", skill("keep-wip"));
    await write("group/.ignore", "/old\n");
    await write("group/old/SKILL.md", skill("old"));
    await write("group/new/SKILL.md", skill("new"));
    await write("old/SKILL.md", skill("old"));
    const { skills, diagnostics } = await loadSkills([tmp]);
    expect(diagnostics).toEqual([]);
    expect(skills.map((s) => s.name)).toEqual(["new", "keep-wip", "old"]);
  });

  it("follows symlinked skill folders once and skips missing roots silently", async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "skills-"));
    await write("real/tool/SKILL.md", "---\ndescription: Real.\n---\n");
    await fs.mkdir(path.join(tmp, "root"));
    await fs.symlink(path.join(tmp, "real", "tool"), path.join(tmp, "root", "tool"));
    await fs.symlink(path.join(tmp, "root"), path.join(tmp, "root", "loop"));
    const { skills, diagnostics } = await loadSkills([
      path.join(tmp, "root"),
      path.join(tmp, "real"),
      path.join(tmp, "missing"),
    ]);
    expect(diagnostics).toEqual([]);
    expect(skills.map((s) => [s.name, s.filePath])).toEqual([
      ["tool", path.join(tmp, "root", "tool", "SKILL.md")],
    ]);
  });

  it("accepts the JSON header form and the optional fields", async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "skills-"));
    await write(
      "pdf/SKILL.md",
      '{"name": "pdf", "description": "Reads PDFs.", "user-invocable": "no", "allowed-tools": "read bash"}\n---\nBody',
    );
    await write(
      "review/SKILL.md",
      [
        "---",
        "description: Reviews code.",
        "when_to_use: When asked for a review.",
        "argument-hint: [file]",
        "license: MIT",
        "disable-model-invocation: yes",
        "metadata:",
        "  owner: team-a",
        "---",
        "Review it.",
      ].join("\r\n"),
    );
    await write("bad-bool/SKILL.md", "---\ndescription: d\nuser-invocable: maybe\n---\n");
    const { skills, diagnostics } = await loadSkills([tmp]);
    expect(skills.find((s) => s.name === "pdf")).toMatchObject({
      description: "Reads PDFs.",
      userInvocable: false,
      allowedTools: ["read", "bash"],
      content: "Body",
    });
    expect(skills.find((s) => s.name === "review")).toMatchObject({
      whenToUse: "When asked for a review.",
      argumentHint: "[file]",
      license: "MIT",
      disableModelInvocation: true,
      metadata: { owner: "team-a" },
      content: "Review it.",
    });
    expect(skills.find((s) => s.name === "bad-bool")?.userInvocable).toBe(true);
    expect(diagnostics).toMatchObject([
      { severity: "warning", message: '"user-invocable" must be true or false, got "maybe"' },
    ]);
  });

  it("warns about a description over 1024 characters but keeps the skill", async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "skills-"));
    await write("long/SKILL.md", `---\ndescription: ${"x".repeat(1025)}\n---\n`);
    const { skills, diagnostics } = await loadSkills([tmp]);
    expect(skills).toHaveLength(1);
    expect(messages(diagnostics)).toEqual(["description is 1025 characters; the limit is 1024"]);
  });
});

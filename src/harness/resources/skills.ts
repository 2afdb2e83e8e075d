import type { Dirent } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { errorText } from "../../types/error-text.js";
import { type IgnoreRule, isIgnored, parseIgnoreFile } from "./ignore-rules.js";
import { parseSkillFile, type SkillFileInfo } from "./skill-frontmatter.js";
import type { ResourceDiagnostic, ResourceRoot, Skill, SkillDiagnostic } from "./skill-types.js";

export type { ResourceDiagnostic, ResourceRoot, Skill, SkillDiagnostic } from "./skill-types.js";

/** Options of `loadSkills`. */
export interface LoadSkillsOptions {
  /** Roots searched in order; earlier roots win name collisions. Missing roots are skipped. */
  dirs: readonly ResourceRoot[];
  /** Ignore files honoured in every visited folder (default `.gitignore`, `.ignore`, `.fdignore`). */
  ignoreFileNames?: readonly string[];
}

/** What `loadSkills` returns. Diagnostics never stop loading. */
export interface LoadSkillsResult {
  skills: Skill[];
  diagnostics: SkillDiagnostic[];
}

/** The skill file of a folder. */
export const SKILL_FILE_NAME = "SKILL.md";

const DEFAULT_IGNORE_FILES = [".gitignore", ".ignore", ".fdignore"];

/**
 * Root-level markdown files that document a skills folder rather than define a skill; they are
 * never loaded and never warned about (pi#2473, pi#5613).
 */
const NON_SKILL_DOCS = new Set([
  "readme",
  "agents",
  "claude",
  "gemini",
  "changelog",
  "license",
  "contributing",
  "code_of_conduct",
  "security",
  "notice",
  "authors",
]);

interface Candidate extends SkillFileInfo {
  /** Root-level `.md` file (not `SKILL.md`): skipped silently when it has no front matter. */
  rootLevel: boolean;
}

/**
 * Discovers and loads skills. In each root: a folder containing `SKILL.md` is one skill and is not
 * searched further (its own file wins over nested ones); other folders are searched recursively
 * in name order; `.md` files directly in the root are skills named after the file, unless they are
 * well-known docs (README.md, AGENTS.md, …) or have no front matter. Hidden entries,
 * `node_modules` and paths matched by ignore files are skipped; symlinks are followed once.
 * When two files define the same name the first found wins and the second gets a `collision`
 * diagnostic. Never throws: every problem becomes a diagnostic.
 *
 * ```ts
 * const { skills, diagnostics } = await loadSkills([{ path: "~/.agent/skills", source: "user" }]);
 * ```
 */
export async function loadSkills(
  input: readonly ResourceRoot[] | LoadSkillsOptions,
): Promise<LoadSkillsResult> {
  const options: LoadSkillsOptions = isRootList(input) ? { dirs: input } : input;
  const ignoreFileNames = options.ignoreFileNames ?? DEFAULT_IGNORE_FILES;
  const diagnostics: ResourceDiagnostic[] = [];
  const candidates: Candidate[] = [];
  for (const root of options.dirs) {
    const { path: rootPath, source } = typeof root === "string" ? { path: root, source: undefined } : root;
    const walker = new SkillWalker(path.resolve(rootPath), source, ignoreFileNames, candidates, diagnostics);
    await walker.walkRoot();
  }

  const parsed = await Promise.all(candidates.map(readCandidate));
  const skills: Skill[] = [];
  const byName = new Map<string, Skill>();
  const seenFiles = new Set<string>();
  for (const result of parsed) {
    diagnostics.push(...result.diagnostics);
    const skill = result.skill;
    if (skill === undefined) continue;
    if (seenFiles.has(result.realPath)) continue; // the same file reached twice through a symlink
    seenFiles.add(result.realPath);
    const existing = byName.get(skill.name);
    if (existing !== undefined) {
      const diagnostic: ResourceDiagnostic = {
        severity: "warning",
        code: "collision",
        path: skill.filePath,
        message: `skill "${skill.name}" is already defined by ${existing.filePath}; this one is ignored`,
      };
      if (skill.source !== undefined) diagnostic.source = skill.source;
      diagnostics.push(diagnostic);
      continue;
    }
    byName.set(skill.name, skill);
    skills.push(skill);
  }
  return { skills, diagnostics };
}

function isRootList(input: readonly ResourceRoot[] | LoadSkillsOptions): input is readonly ResourceRoot[] {
  return Array.isArray(input);
}

async function readCandidate(
  candidate: Candidate,
): Promise<{ skill?: Skill; diagnostics: ResourceDiagnostic[]; realPath: string }> {
  const { filePath, source } = candidate;
  let text: string;
  let realPath = filePath;
  try {
    text = await fs.readFile(filePath, "utf8");
    realPath = await fs.realpath(filePath);
  } catch (error) {
    return {
      diagnostics: [diagnostic("error", "read_failed", filePath, errorText(error), source)],
      realPath,
    };
  }
  if (candidate.rootLevel && !hasHeader(text)) return { diagnostics: [], realPath };
  const info: SkillFileInfo = { filePath, expectedName: candidate.expectedName };
  if (source !== undefined) info.source = source;
  return { ...parseSkillFile(text, info), realPath };
}

function hasHeader(text: string): boolean {
  const start = text.replace(/^\uFEFF/, "");
  return /^---\r?\n/.test(start) || start.startsWith("{");
}

/** Depth-first walk of one skills root, collecting candidate skill files in discovery order. */
class SkillWalker {
  private readonly visited = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly source: string | undefined,
    private readonly ignoreFileNames: readonly string[],
    private readonly candidates: Candidate[],
    private readonly diagnostics: ResourceDiagnostic[],
  ) {}

  async walkRoot(): Promise<void> {
    try {
      const stat = await fs.stat(this.root);
      if (!stat.isDirectory()) {
        this.report("warning", "list_failed", this.root, "skills root is not a directory; skipped");
        return;
      }
    } catch (error) {
      if (isMissing(error)) return;
      this.report("warning", "file_info_failed", this.root, errorText(error));
      return;
    }
    await this.walk(this.root, "", []);
  }

  private async walk(dir: string, relative: string, inheritedRules: readonly IgnoreRule[]): Promise<void> {
    let entries: Dirent[];
    try {
      const real = await fs.realpath(dir);
      if (this.visited.has(real)) return;
      this.visited.add(real);
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      this.report("warning", "list_failed", dir, errorText(error));
      return;
    }
    const names = new Set(entries.map((entry) => entry.name));
    if (names.has(SKILL_FILE_NAME) && (await this.isFile(path.join(dir, SKILL_FILE_NAME)))) {
      const expectedName = path.basename(dir);
      this.addCandidate(path.join(dir, SKILL_FILE_NAME), expectedName, false);
      return;
    }
    const rules = [...inheritedRules, ...(await this.readIgnoreFiles(dir, relative, names))];
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const childPath = path.join(dir, entry.name);
      const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
      const kind = await this.kindOf(entry, childPath);
      if (kind === undefined) continue;
      if (isIgnored(rules, childRelative, kind === "directory")) continue;
      if (kind === "directory") {
        await this.walk(childPath, childRelative, rules);
      } else if (relative === "" && entry.name.toLowerCase().endsWith(".md")) {
        const stem = entry.name.slice(0, -3);
        if (!NON_SKILL_DOCS.has(stem.toLowerCase())) this.addCandidate(childPath, stem, true);
      }
    }
  }

  private addCandidate(filePath: string, expectedName: string, rootLevel: boolean): void {
    const candidate: Candidate = { filePath, expectedName, rootLevel };
    if (this.source !== undefined) candidate.source = this.source;
    this.candidates.push(candidate);
  }

  private async readIgnoreFiles(dir: string, relative: string, names: Set<string>): Promise<IgnoreRule[]> {
    const rules: IgnoreRule[] = [];
    for (const fileName of this.ignoreFileNames) {
      if (!names.has(fileName)) continue;
      const filePath = path.join(dir, fileName);
      try {
        rules.push(...parseIgnoreFile(await fs.readFile(filePath, "utf8"), relative));
      } catch (error) {
        this.report("warning", "read_failed", filePath, errorText(error));
      }
    }
    return rules;
  }

  private async kindOf(entry: Dirent, fullPath: string): Promise<"directory" | "file" | undefined> {
    if (entry.isDirectory()) return "directory";
    if (entry.isFile()) return "file";
    if (!entry.isSymbolicLink()) return undefined;
    try {
      const stat = await fs.stat(fullPath);
      return stat.isDirectory() ? "directory" : stat.isFile() ? "file" : undefined;
    } catch (error) {
      this.report("warning", "file_info_failed", fullPath, `cannot follow symlink: ${errorText(error)}`);
      return undefined;
    }
  }

  private async isFile(fullPath: string): Promise<boolean> {
    try {
      return (await fs.stat(fullPath)).isFile();
    } catch {
      return false;
    }
  }

  private report(
    severity: "warning" | "error",
    code: ResourceDiagnostic["code"],
    where: string,
    message: string,
  ) {
    this.diagnostics.push(diagnostic(severity, code, where, message, this.source));
  }
}

function diagnostic(
  severity: "warning" | "error",
  code: ResourceDiagnostic["code"],
  where: string,
  message: string,
  source: string | undefined,
): ResourceDiagnostic {
  const result: ResourceDiagnostic = { severity, code, path: where, message };
  if (source !== undefined) result.source = source;
  return result;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

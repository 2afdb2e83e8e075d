import path from "node:path";
import { FrontMatterError, splitFrontMatter } from "./front-matter.js";
import type { ResourceDiagnostic, Skill } from "./skill-types.js";

/** Agent Skills limits. */
export const MAX_SKILL_NAME_LENGTH = 64;
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;

const KNOWN_FIELDS = new Set([
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
  "disable-model-invocation",
  "user-invocable",
  "when_to_use",
  "argument-hint",
]);

const TRUE_WORDS = new Set(["true", "yes", "on", "1"]);
const FALSE_WORDS = new Set(["false", "no", "off", "0"]);

/** Where a skill file was found and what its name is expected to be. */
export interface SkillFileInfo {
  filePath: string;
  /** Parent folder name for `SKILL.md`, file name without `.md` for root-level files. */
  expectedName: string;
  source?: string;
}

/** Outcome of parsing one skill file: the skill (unless an error dropped it) and the problems. */
export interface ParsedSkillFile {
  skill?: Skill;
  diagnostics: ResourceDiagnostic[];
}

/**
 * Parses and validates one skill file's text. Never throws: malformed front matter or a missing
 * description yields an `error` diagnostic and no skill; naming problems, unknown fields and bad
 * field types yield `warning`s and the skill is still returned.
 */
export function parseSkillFile(text: string, info: SkillFileInfo): ParsedSkillFile {
  const diagnostics: ResourceDiagnostic[] = [];
  const report = (severity: "warning" | "error", code: ResourceDiagnostic["code"], message: string) => {
    const diagnostic: ResourceDiagnostic = { severity, code, path: info.filePath, message };
    if (info.source !== undefined) diagnostic.source = info.source;
    diagnostics.push(diagnostic);
  };

  let document: ReturnType<typeof splitFrontMatter>;
  try {
    document = splitFrontMatter(text);
  } catch (error) {
    report("error", "parse_failed", error instanceof FrontMatterError ? error.message : String(error));
    return { diagnostics };
  }
  const { data } = document;

  const unknown = Object.keys(data).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) {
    report("warning", "unknown_field", `unknown front matter field(s): ${unknown.join(", ")}`);
  }

  const declaredName = readString(data, "name", report);
  const name = declaredName ?? info.expectedName;
  for (const problem of nameProblems(name, info.expectedName)) report("warning", "invalid_metadata", problem);

  const rawDescription = readString(data, "description", report);
  const description = rawDescription?.replace(/\s+/g, " ").trim() ?? "";
  if (description === "") {
    report("error", "invalid_metadata", "description is required");
    return { diagnostics };
  }
  if (description.length > MAX_SKILL_DESCRIPTION_LENGTH) {
    report(
      "warning",
      "invalid_metadata",
      `description is ${description.length} characters; the limit is ${MAX_SKILL_DESCRIPTION_LENGTH}`,
    );
  }

  const skill: Skill = {
    name,
    description,
    content: document.body,
    filePath: info.filePath,
    baseDir: path.dirname(info.filePath),
    disableModelInvocation: readBoolean(data, "disable-model-invocation", false, report),
    userInvocable: readBoolean(data, "user-invocable", true, report),
  };
  const whenToUse = readString(data, "when_to_use", report);
  if (whenToUse !== undefined) skill.whenToUse = whenToUse.replace(/\s+/g, " ").trim();
  const argumentHint = readArgumentHint(data, report);
  if (argumentHint !== undefined) skill.argumentHint = argumentHint;
  const license = readString(data, "license", report);
  if (license !== undefined) skill.license = license;
  const compatibility = readString(data, "compatibility", report);
  if (compatibility !== undefined) skill.compatibility = compatibility;
  const allowedTools = readStringList(data, "allowed-tools", report);
  if (allowedTools !== undefined) skill.allowedTools = allowedTools;
  const metadata = readMetadata(data, report);
  if (metadata !== undefined) skill.metadata = metadata;
  if (info.source !== undefined) skill.source = info.source;
  return { skill, diagnostics };
}

/** Lists every way `name` breaks the Agent Skills naming rules; empty when it is valid. */
export function nameProblems(name: string, expectedName: string): string[] {
  const problems: string[] = [];
  if (name !== expectedName) problems.push(`name "${name}" does not match its location "${expectedName}"`);
  if (name.length > MAX_SKILL_NAME_LENGTH) {
    problems.push(`name is ${name.length} characters; the limit is ${MAX_SKILL_NAME_LENGTH}`);
  }
  if (!/^[a-z0-9-]+$/.test(name)) {
    problems.push(`name "${name}" may contain only lowercase letters a-z, digits and hyphens`);
  }
  if (name.startsWith("-") || name.endsWith("-"))
    problems.push(`name "${name}" starts or ends with a hyphen`);
  if (name.includes("--")) problems.push(`name "${name}" contains consecutive hyphens`);
  return problems;
}

type Report = (severity: "warning" | "error", code: ResourceDiagnostic["code"], message: string) => void;

function readString(data: Record<string, unknown>, key: string, report: Report): string | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  report("warning", "invalid_metadata", `"${key}" must be a string; ignored`);
  return undefined;
}

function readBoolean(data: Record<string, unknown>, key: string, fallback: boolean, report: Report): boolean {
  const value = data[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value === "boolean") return value;
  const word = String(value).trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  report("warning", "invalid_metadata", `"${key}" must be true or false, got ${JSON.stringify(value)}`);
  return fallback;
}

function readStringList(data: Record<string, unknown>, key: string, report: Report): string[] | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value.split(/[\s,]+/).filter((item) => item !== "");
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
  report("warning", "invalid_metadata", `"${key}" must be a string or a list of strings; ignored`);
  return undefined;
}

/** YAML reads `argument-hint: [file]` as a list; it is turned back into the text `[file]`. */
function readArgumentHint(data: Record<string, unknown>, report: Report): string | undefined {
  const value = data["argument-hint"];
  if (Array.isArray(value)) return value.map((item) => `[${String(item)}]`).join(" ");
  return readString(data, "argument-hint", report);
}

function readMetadata(data: Record<string, unknown>, report: Report): Record<string, string> | undefined {
  const value = data.metadata;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    report("warning", "invalid_metadata", `"metadata" must be a mapping; ignored`);
    return undefined;
  }
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [
    k,
    typeof v === "string" ? v : JSON.stringify(v),
  ]);
  return Object.fromEntries(entries);
}

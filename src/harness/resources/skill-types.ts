/** A skill loaded from a `SKILL.md` file (or a root-level `.md` file of a skills directory). */
export interface Skill {
  /** Front matter `name`, else the parent folder name (or the file name for root-level files). */
  name: string;
  /** One line: YAML multi-line descriptions are collapsed to single spaces. */
  description: string;
  /** The markdown body after the front matter, trimmed. */
  content: string;
  /** Absolute path of the skill file. */
  filePath: string;
  /** Absolute path of the folder holding the skill file; relative paths in the skill resolve here. */
  baseDir: string;
  /** `disable-model-invocation`: hidden from the system prompt, usable only when a user asks. */
  disableModelInvocation: boolean;
  /** `user-invocable` (default true): whether a user may invoke it directly, e.g. `/skill:name`. */
  userInvocable: boolean;
  /** `when_to_use`: appended to the description in the system prompt. */
  whenToUse?: string;
  /** `argument-hint`, e.g. `[file]`. */
  argumentHint?: string;
  license?: string;
  compatibility?: string;
  /** `allowed-tools`, split on whitespace/commas when given as a string. */
  allowedTools?: string[];
  /** `metadata`: free-form string map. */
  metadata?: Record<string, string>;
  /** Label of the root this skill came from (e.g. "user", "project"), when given. */
  source?: string;
}

/** Machine-readable kind of a skill or template loading problem. */
export type ResourceDiagnosticCode =
  | "list_failed"
  | "file_info_failed"
  | "read_failed"
  | "parse_failed"
  | "invalid_metadata"
  | "unknown_field"
  | "collision";

/**
 * A problem found while loading resources. `error`: the file was not loaded. `warning`: it was
 * loaded, but something about it is off (e.g. a name that breaks the naming rules).
 */
export interface ResourceDiagnostic {
  severity: "warning" | "error";
  code: ResourceDiagnosticCode;
  /** Absolute path of the file or folder concerned. */
  path: string;
  message: string;
  source?: string;
}

/** Diagnostic produced by `loadSkills`. */
export type SkillDiagnostic = ResourceDiagnostic;

/** A directory to search, optionally labelled with where it comes from. */
export type ResourceRoot = string | { path: string; source?: string };

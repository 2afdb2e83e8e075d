import fs from "node:fs/promises";
import path from "node:path";
import { FrontMatterError, splitFrontMatter } from "./front-matter.js";
import { listMarkdownFiles } from "./markdown-files.js";
import { failureDiagnostic, withSource } from "./resource-diagnostics.js";
import type { ResourceDiagnostic, ResourceRoot } from "./skill-types.js";

export { expandPromptTemplate, parseTemplateArgs } from "./template-args.js";

/** A reusable prompt loaded from a markdown file; expand it with `expandPromptTemplate`. */
export interface PromptTemplate {
  /** File name without `.md`. */
  name: string;
  /** Front matter `description`, else the first non-empty body line (cut to 60 characters). */
  description: string;
  /** Body without the front matter, trimmed. */
  content: string;
  /** Front matter `argument-hint`, when present. */
  argumentHint?: string;
  /** Absolute path of the template file. */
  filePath: string;
  source?: string;
}

/** What `loadPromptTemplates` returns. */
export interface LoadPromptTemplatesResult {
  templates: PromptTemplate[];
  diagnostics: ResourceDiagnostic[];
}

const DESCRIPTION_FALLBACK_LENGTH = 60;

/**
 * Loads prompt templates. A directory contributes its direct `*.md` children (not recursive,
 * name order, hidden files skipped); a path to a `.md` file loads that file. Missing paths are
 * skipped silently. When two files share a name the first wins and the other gets a `collision`
 * warning. Never throws: unreadable files and malformed front matter become `error` diagnostics.
 *
 * ```ts
 * const { templates } = await loadPromptTemplates([".agent/prompts"]);
 * const text = expandPromptTemplate(templates[0]!, parseTemplateArgs("src/app.ts"));
 * ```
 */
export async function loadPromptTemplates(
  paths: readonly ResourceRoot[],
): Promise<LoadPromptTemplatesResult> {
  const diagnostics: ResourceDiagnostic[] = [];
  const files: { filePath: string; source: string | undefined }[] = [];
  for (const root of paths) {
    const { path: rootPath, source } = typeof root === "string" ? { path: root, source: undefined } : root;
    const resolved = path.resolve(rootPath);
    for (const filePath of await listMarkdownFiles(resolved, source, diagnostics))
      files.push({ filePath, source });
  }

  const loaded = await Promise.all(files.map(({ filePath, source }) => loadTemplateFile(filePath, source)));
  const templates: PromptTemplate[] = [];
  const byName = new Map<string, PromptTemplate>();
  for (const result of loaded) {
    if ("diagnostic" in result) {
      diagnostics.push(result.diagnostic);
      continue;
    }
    const { template } = result;
    const existing = byName.get(template.name);
    if (existing !== undefined) {
      if (existing.filePath === template.filePath) continue;
      diagnostics.push(
        withSource(
          {
            severity: "warning",
            code: "collision",
            path: template.filePath,
            message: `prompt template "${template.name}" is already defined by ${existing.filePath}; this one is ignored`,
          },
          template.source,
        ),
      );
      continue;
    }
    byName.set(template.name, template);
    templates.push(template);
  }
  return { templates, diagnostics };
}

async function loadTemplateFile(
  filePath: string,
  source: string | undefined,
): Promise<{ template: PromptTemplate } | { diagnostic: ResourceDiagnostic }> {
  let text: string;
  try {
    text = await fs.readFile(filePath, "utf8");
  } catch (error) {
    return { diagnostic: withSource(failureDiagnostic("read_failed", filePath, error), source) };
  }
  let document: ReturnType<typeof splitFrontMatter>;
  try {
    document = splitFrontMatter(text);
  } catch (error) {
    const message = error instanceof FrontMatterError ? error.message : String(error);
    return {
      diagnostic: withSource({ severity: "error", code: "parse_failed", path: filePath, message }, source),
    };
  }
  const declared = document.data.description;
  const description =
    typeof declared === "string" && declared.trim() !== ""
      ? declared.replace(/\s+/g, " ").trim()
      : firstLineDescription(document.body);
  const template: PromptTemplate = {
    name: path.basename(filePath).slice(0, -".md".length),
    description,
    content: document.body,
    filePath,
  };
  const hint = document.data["argument-hint"];
  if (typeof hint === "string") template.argumentHint = hint;
  if (source !== undefined) template.source = source;
  return { template };
}

function firstLineDescription(body: string): string {
  const line =
    body
      .split("\n")
      .find((candidate) => candidate.trim() !== "")
      ?.trim() ?? "";
  return line.length > DESCRIPTION_FALLBACK_LENGTH
    ? `${line.slice(0, DESCRIPTION_FALLBACK_LENGTH)}...`
    : line;
}

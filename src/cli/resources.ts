import { join, resolve } from "node:path";
import { loadPromptTemplates, type PromptTemplate } from "../harness/resources/prompt-templates.js";
import type { ResourceDiagnostic, Skill } from "../harness/resources/skill-types.js";
import { loadSkills } from "../harness/resources/skills.js";

/** Skills and prompt templates the CLI offers, with the problems found while loading them. */
export interface CliResources {
  skills: Skill[];
  templates: PromptTemplate[];
  diagnostics: ResourceDiagnostic[];
}

/**
 * Loads skills from `<cwd>/.agentchart/skills` and `<home>/.agentchart/skills` (then from
 * `skillDirs`, the `--skills` folders, relative to `cwd`), and prompt templates from the `prompts`
 * folders beside them. Earlier folders win a name collision: project, user, `--skills`.
 */
export async function loadCliResources(
  cwd: string,
  home: string,
  skillDirs: readonly string[] = [],
): Promise<CliResources> {
  const roots = [
    { base: join(cwd, ".agentchart"), source: "project" },
    { base: join(home, ".agentchart"), source: "user" },
  ];
  const skillRoots = [
    ...roots.map(({ base, source }) => ({ path: join(base, "skills"), source })),
    ...skillDirs.map((dir) => ({ path: resolve(cwd, dir), source: "cli" })),
  ];
  const [skills, templates] = await Promise.all([
    loadSkills(skillRoots),
    loadPromptTemplates(roots.map(({ base, source }) => ({ path: join(base, "prompts"), source }))),
  ]);
  return {
    skills: skills.skills,
    templates: templates.templates,
    diagnostics: [...skills.diagnostics, ...templates.diagnostics],
  };
}

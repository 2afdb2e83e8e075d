import { join } from "node:path";
import { loadPromptTemplates, type PromptTemplate } from "../harness/prompt-templates.js";
import type { ResourceDiagnostic, Skill } from "../harness/skill-types.js";
import { loadSkills } from "../harness/skills.js";

/** Skills and prompt templates the CLI offers, with the problems found while loading them. */
export interface CliResources {
  skills: Skill[];
  templates: PromptTemplate[];
  diagnostics: ResourceDiagnostic[];
}

/**
 * Loads skills from `<cwd>/.agentchart/skills` and `<home>/.agentchart/skills`, and prompt
 * templates from the `prompts` folders beside them (project first: its names win).
 */
export async function loadCliResources(cwd: string, home: string): Promise<CliResources> {
  const roots = [
    { base: join(cwd, ".agentchart"), source: "project" },
    { base: join(home, ".agentchart"), source: "user" },
  ];
  const [skills, templates] = await Promise.all([
    loadSkills(roots.map(({ base, source }) => ({ path: join(base, "skills"), source }))),
    loadPromptTemplates(roots.map(({ base, source }) => ({ path: join(base, "prompts"), source }))),
  ]);
  return {
    skills: skills.skills,
    templates: templates.templates,
    diagnostics: [...skills.diagnostics, ...templates.diagnostics],
  };
}

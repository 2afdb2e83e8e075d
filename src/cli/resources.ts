import { join, resolve } from "node:path";
import { type AgentDefinition, loadAgentFiles } from "../harness/resources/agent-files.js";
import { loadPromptTemplates, type PromptTemplate } from "../harness/resources/prompt-templates.js";
import type { ResourceDiagnostic, Skill } from "../harness/resources/skill-types.js";
import { loadSkills } from "../harness/resources/skills.js";

/** Skills, prompt templates and sub-agents the CLI offers, with the problems found while loading them. */
export interface CliResources {
  skills: Skill[];
  templates: PromptTemplate[];
  /** Sub-agent definitions (`agents/*.md`), made into agent tools by the run command. */
  agents: AgentDefinition[];
  diagnostics: ResourceDiagnostic[];
}

/**
 * Loads skills from `<cwd>/.agentchart/skills` and `<home>/.agentchart/skills` (then from
 * `skillDirs`, the `--skills` folders, relative to `cwd`), and prompt templates and sub-agent
 * definitions from the `prompts` and `agents` folders beside them. Earlier folders win a name
 * collision: project, user, `--skills`.
 *
 * Contract: async, never rejects: every problem is in `diagnostics`.
 *
 * ```ts
 * import os from "node:os";
 * const { skills, agents, diagnostics } = await loadCliResources(process.cwd(), os.homedir());
 * ```
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
  const [skills, templates, agents] = await Promise.all([
    loadSkills(skillRoots),
    loadPromptTemplates(roots.map(({ base, source }) => ({ path: join(base, "prompts"), source }))),
    loadAgentFiles(roots.map(({ base, source }) => ({ path: join(base, "agents"), source }))),
  ]);
  return {
    skills: skills.skills,
    templates: templates.templates,
    agents: agents.agents,
    diagnostics: [...skills.diagnostics, ...templates.diagnostics, ...agents.diagnostics],
  };
}

import type { PromptTemplate } from "./prompt-templates.js";
import type { Skill } from "./skill-types.js";

/** Skills and prompt templates the harness can use (`skill(name)`, `promptFromTemplate(name)`). */
export interface HarnessResources<
  TSkill extends Skill = Skill,
  TTemplate extends PromptTemplate = PromptTemplate,
> {
  skills: TSkill[];
  promptTemplates: TTemplate[];
}

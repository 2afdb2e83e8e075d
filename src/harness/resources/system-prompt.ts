import type { Session } from "../../storage/session.js";
import type { Model, ThinkingLevel } from "../../types/model.js";
import type { AgentTool } from "../../types/tool.js";
import type { HarnessResources } from "./resource-set.js";
import { formatSkillsForSystemPrompt, type PromptSkill } from "./skills-prompt.js";

/** What a system prompt function receives; resolved again at the start of every turn. */
export interface SystemPromptContext {
  session: Session;
  model: Model;
  thinkingLevel: ThinkingLevel;
  activeTools: AgentTool[];
  resources: HarnessResources;
}

/** A fixed system prompt, or a (possibly async) function of the turn's state. */
export type SystemPromptOption = string | ((context: SystemPromptContext) => string | Promise<string>);

/** The prompt used when none is given (pi's default). */
export const DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant.";

/**
 * Resolves the system prompt for a turn. A string (or the default) gets the block of skills the model
 * may use (`formatSkillsForSystemPrompt`) appended after a blank line when any is visible. A function
 * is used as returned: it receives the resources and decides itself (call `formatSkillsForSystemPrompt`
 * to include them).
 */
export async function resolveSystemPrompt(
  option: SystemPromptOption | undefined,
  context: SystemPromptContext,
): Promise<string> {
  if (typeof option === "function") return option(context);
  return fixedSystemPrompt(option, context.resources.skills);
}

/** The prompt of a string option (or the default) with the block of visible skills appended. */
export function fixedSystemPrompt(option: string | undefined, skills: readonly PromptSkill[]): string {
  const base = option ?? DEFAULT_SYSTEM_PROMPT;
  const block = formatSkillsForSystemPrompt(skills);
  if (block === "") return base;
  return base === "" ? block : `${base}\n\n${block}`;
}

/**
 * `fixedSystemPrompt` remembered for the last list of skills: a string prompt is formatted once per
 * `setResources`, not per request. The list is compared by identity (the harness replaces it on change).
 */
export class FixedSystemPromptCache {
  readonly #option: string | undefined;
  #skills: readonly PromptSkill[] | undefined;
  #text = "";

  constructor(option: string | undefined) {
    this.#option = option;
  }

  get(skills: readonly PromptSkill[]): string {
    if (skills !== this.#skills) {
      this.#text = fixedSystemPrompt(this.#option, skills);
      this.#skills = skills;
    }
    return this.#text;
  }
}

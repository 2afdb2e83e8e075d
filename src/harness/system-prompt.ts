import type { Session } from "../storage/session.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { AgentTool } from "../types/tool.js";
import type { HarnessResources } from "./harness-hooks.js";
import { formatSkillsForSystemPrompt } from "./skills-prompt.js";

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
  const base = option ?? DEFAULT_SYSTEM_PROMPT;
  const skills = formatSkillsForSystemPrompt(context.resources.skills);
  if (skills === "") return base;
  return base === "" ? skills : `${base}\n\n${skills}`;
}

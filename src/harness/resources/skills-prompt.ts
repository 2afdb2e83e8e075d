import type { Skill } from "./skill-types.js";

/** The skill fields the system prompt block needs. */
export type PromptSkill = Pick<Skill, "name" | "description" | "filePath" | "disableModelInvocation"> & {
  whenToUse?: string;
};

/**
 * Formats the skills the model may use as a system prompt section: three instruction lines, a
 * blank line, then `<available_skills>` with one `<skill>` (`<name>`, `<description>`,
 * `<location>`) per skill, in the given order. Skills with `disableModelInvocation` are left out;
 * when none remain the result is `""`. All values are XML-escaped. A skill's `whenToUse` is
 * appended to its description.
 *
 * ```ts
 * import { loadSkills } from "agentchart/node";
 * const { skills } = await loadSkills([".agentchart/skills"]);
 * const systemPrompt = `You help with this repository.\n\n${formatSkillsForSystemPrompt(skills)}`;
 * ```
 */
export function formatSkillsForSystemPrompt(skills: readonly PromptSkill[]): string {
  const visible = skills.filter((skill) => !skill.disableModelInvocation);
  if (visible.length === 0) return "";
  const lines = [
    "The following skills provide specialized instructions for specific tasks.",
    "When a task matches a skill's description, read its full skill file from the location shown before acting.",
    "Relative paths mentioned in a skill file are relative to the folder containing that file.",
    "",
    "<available_skills>",
  ];
  for (const skill of visible) {
    const description = skill.whenToUse ? `${skill.description} ${skill.whenToUse}` : skill.description;
    lines.push(
      "  <skill>",
      `    <name>${escapeXml(skill.name)}</name>`,
      `    <description>${escapeXml(description)}</description>`,
      `    <location>${escapeXml(skill.filePath)}</location>`,
      "  </skill>",
    );
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}

/** Escapes `& < > " '` for use in XML text and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

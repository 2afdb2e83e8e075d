import { describe, expect, it } from "vitest";
import { formatSkillsForSystemPrompt } from "../../src/harness/resources/skills-prompt.js";

const skill = (name: string, extra: Partial<Parameters<typeof formatSkillsForSystemPrompt>[0][0]> = {}) => ({
  name,
  description: `${name} description`,
  filePath: `/skills/${name}/SKILL.md`,
  disableModelInvocation: false,
  ...extra,
});

describe("formatSkillsForSystemPrompt", () => {
  it("lists visible skills in order, skipping disabled ones", () => {
    const text = formatSkillsForSystemPrompt([
      skill("alpha"),
      skill("hidden", { disableModelInvocation: true }),
      skill("beta", { whenToUse: "Use for beta tasks." }),
    ]);
    expect(text).toBe(
      [
        "The following skills provide specialized instructions for specific tasks.",
        "When a task matches a skill's description, read its full skill file from the location shown before acting.",
        "Relative paths mentioned in a skill file are relative to the folder containing that file.",
        "",
        "<available_skills>",
        "  <skill>",
        "    <name>alpha</name>",
        "    <description>alpha description</description>",
        "    <location>/skills/alpha/SKILL.md</location>",
        "  </skill>",
        "  <skill>",
        "    <name>beta</name>",
        "    <description>beta description Use for beta tasks.</description>",
        "    <location>/skills/beta/SKILL.md</location>",
        "  </skill>",
        "</available_skills>",
      ].join("\n"),
    );
  });

  it("returns an empty string when no skill is visible", () => {
    expect(formatSkillsForSystemPrompt([])).toBe("");
    expect(formatSkillsForSystemPrompt([skill("x", { disableModelInvocation: true })])).toBe("");
  });

  it("escapes XML special characters in name, description and location", () => {
    const text = formatSkillsForSystemPrompt([
      { name: "a&b", description: `<tag> "q" 'a'`, filePath: "/p/<x>&y", disableModelInvocation: false },
    ]);
    expect(text).toContain("<name>a&amp;b</name>");
    expect(text).toContain("<description>&lt;tag&gt; &quot;q&quot; &apos;a&apos;</description>");
    expect(text).toContain("<location>/p/&lt;x&gt;&amp;y</location>");
  });
});

/**
 * AgentHarness with a JSONL session, a skill, a prompt template, a `tool_call` hook that blocks a
 * dangerous command, a manual compaction, and the session reopened with the same context.
 *
 *   npx tsx examples/harness-sessions-skills.ts
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness, type AgentMessage, type LlmContext, type Model } from "../src/index.js";
import { createBuiltinTools, JsonlSessionRepo, loadPromptTemplates, loadSkills } from "../src/node.js";
import { type ScriptedReply, scriptedModel } from "../src/testing.js";

const root = mkdtempSync(join(tmpdir(), "agentchart-harness-example-"));
const model: Model = {
  id: "demo",
  api: "scripted",
  provider: "local",
  contextWindow: 100_000,
  maxTokens: 4_000,
};

const textOf = (message: AgentMessage | undefined): string => {
  const m = message as { content?: string | { type: string; text?: string }[]; summary?: string };
  if (m?.summary !== undefined) return m.summary;
  if (typeof m?.content === "string") return m.content;
  return (m?.content ?? []).map((block) => block.text ?? "").join("");
};

/** The scripted "model": it reacts to what it receives, like a real one would. */
function brain(context: LlmContext): ScriptedReply {
  const last = context.messages.at(-1);
  const text = textOf(last as AgentMessage);
  if (text.startsWith("<conversation>")) {
    // A compaction request: summarise what the conversation did.
    return {
      text: "## Goal\n- review app.ts\n- clean the build folder\n\n## Progress\n- read app.ts; rm -rf was refused",
    };
  }
  if (last?.role === "toolResult") {
    return {
      text: last.isError ? `Not done: ${textOf(last as AgentMessage)}` : `app.ts says: ${text.trim()}`,
    };
  }
  if (text.startsWith('<skill name="cleanup"')) {
    return { toolCalls: [{ name: "bash", arguments: { command: "rm -rf build" } }] };
  }
  const file = /^Review (\S+)/.exec(text)?.[1];
  if (file) return { toolCalls: [{ name: "read", arguments: { path: file } }] };
  return {
    text: `I see ${context.messages.length} messages, the first: "${textOf(context.messages[0] as AgentMessage).split("\n")[0]}…"`,
  };
}

try {
  // A project folder, a skills folder with one skill, a prompts folder with one template.
  const project = join(root, "project");
  mkdirSync(join(project, "build"), { recursive: true });
  writeFileSync(join(project, "app.ts"), 'console.log("hello");\n');
  mkdirSync(join(root, "skills", "cleanup"), { recursive: true });
  writeFileSync(
    join(root, "skills", "cleanup", "SKILL.md"),
    "---\nname: cleanup\ndescription: Removes build output\n---\nDelete the build folder.\n",
  );
  mkdirSync(join(root, "prompts"));
  writeFileSync(
    join(root, "prompts", "review.md"),
    "---\ndescription: Review a file\n---\nReview $1 and say what it does.\n",
  );
  const { skills } = await loadSkills([join(root, "skills")]);
  const { templates } = await loadPromptTemplates([join(root, "prompts")]);
  console.log(
    `skills: ${skills.map((skill) => skill.name).join(", ")}; templates: ${templates.map((t) => t.name).join(", ")}`,
  );

  const repo = new JsonlSessionRepo({ root: join(root, "sessions") });
  const session = await repo.create({ cwd: project });
  const harness = new AgentHarness({
    session,
    model,
    streamFn: scriptedModel(Array.from({ length: 10 }, () => brain)),
    tools: createBuiltinTools(),
    toolContext: { cwd: project },
    resources: { skills, promptTemplates: templates },
    compaction: { keepRecentTokens: 1 },
  });

  // The hook: no recursive deletes, whoever asks.
  harness.on("tool_call", ({ toolName, input }) => {
    const command = (input as { command?: string }).command ?? "";
    if (toolName === "bash" && /\brm\s+-rf\b/.test(command)) {
      console.log(`hook: blocked ${toolName} "${command}"`);
      return { block: true, reason: "recursive deletes are not allowed here" };
    }
    return undefined;
  });
  harness.on("session_compact", ({ compactionEntry }) =>
    console.log(`compacted: ${compactionEntry.tokensBefore} tokens before`),
  );

  const { reply: reviewed } = await harness.promptFromTemplate("review", ["app.ts"]);
  console.log(`template → ${textOf(reviewed)}`);
  const { reply: cleaned } = await harness.skill("cleanup");
  console.log(`skill → ${textOf(cleaned)} (build folder still there: ${existsSync(join(project, "build"))})`);

  const result = await harness.compact("keep the file names");
  console.log(
    result.compacted
      ? `summary: ${result.summary.split("\n").slice(0, 3).join(" | ")}`
      : "nothing to compact",
  );
  const { reply: answer } = await harness.prompt("What do you remember?");
  console.log(`after compaction → ${textOf(answer)}`);

  // Reopen the session file: the rebuilt context is the one the harness works with.
  const before = JSON.stringify(harness.messages);
  const roles = harness.messages.map((message) => message.role).join(" → ");
  await session.close();
  const reopened = await repo.open(session.id);
  const same = JSON.stringify(reopened.buildContext().messages) === before;
  console.log(`reopened ${reopened.id.slice(0, 8)}: same context: ${same} (${roles})`);
  await reopened.close();
} finally {
  rmSync(root, { recursive: true, force: true });
}

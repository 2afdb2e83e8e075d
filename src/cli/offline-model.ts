import type { CompactionSettings } from "../harness/compaction/port.js";
import { COMPACTION_SUMMARY_PREFIX } from "../harness/messages-convert.js";
import { scriptedModel } from "../providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../providers/scripted/scripted-reply.js";
import type { Message, TextContent } from "../types/messages.js";
import type { Model } from "../types/model.js";
import type { LlmContext, StreamFn } from "../types/stream.js";
import { abbreviate } from "./event-renderer.js";

/** The model record of the offline "model" the CLI uses when no API key is configured. */
export const OFFLINE_MODEL: Model = {
  id: "offline",
  name: "agentchart offline script",
  api: "scripted",
  provider: "agentchart",
  contextWindow: 32_000,
  maxTokens: 2_048,
};

/**
 * Compaction settings for the offline script's tiny turns (about 60 tokens each): a compaction keeps
 * only the latest reply verbatim and summarises everything before it (the latest turn's beginning as
 * a split turn), so `/compact` has something to do after one prompt.
 */
export const OFFLINE_COMPACTION: Partial<CompactionSettings> = { reserveTokens: 4_096, keepRecentTokens: 1 };

/**
 * A small offline model that does real work with the built-in tools, so the CLI is usable (and
 * testable) without a server. For each prompt it calls one tool, then answers from the result:
 * - `run <command>` (or `$ <command>`) runs the command with `bash`;
 * - `read <path>` reads a file;
 * - `call <tool> [JSON arguments]` calls any tool by name (e.g. an MCP server's `fs__list_directory`);
 * - anything else lists the folder with `ls`.
 * A skill prompt (`/skill:name [extra]`) is handled like its extra text, or like the skill's content
 * when there is none. The answer quotes the prompt and lists the earlier prompts of the conversation
 * (and those of a compaction summary), so a continued or compacted session shows what the model saw.
 * A summary request (compaction, branch summary) gets a structured summary of the conversation it
 * received: the requests, the tool calls, the last answer.
 */
export function offlineModel(): StreamFn {
  return (model, context, options) => scriptedModel([offlineReply])(model, context, options);
}

/** What the user asked in one user message: the request, and the skill it came with. */
interface Request {
  text: string;
  skill?: string;
}

const SKILL_BLOCK =
  /^<skill name="([^"]*)"[^>]*>\n(?:References are relative to [^\n]*\n\n)?([\s\S]*?)\n<\/skill>(?:\n\n([\s\S]*))?$/;
const CONVERSATION = /^<conversation>\n([\s\S]*?)\n<\/conversation>/;

function offlineReply(context: LlmContext): ScriptedReply {
  const last = context.messages.at(-1);
  if (last?.role === "toolResult") return answerFromToolResult(context.messages);
  const text = last?.role === "user" ? userText(last) : "";
  const conversation = CONVERSATION.exec(text);
  if (conversation) return { text: summarize(conversation[1] ?? "", text) };
  const request = readRequest(text);
  const prompt = request.text.trim();
  const command = /^(?:run|\$)\s+(.+)$/s.exec(prompt)?.[1];
  if (command !== undefined) {
    return {
      thinking: "The user wants a command run. I will use bash.",
      toolCalls: [{ name: "bash", arguments: { command } }],
    };
  }
  const call = /^call\s+([a-zA-Z0-9_-]+)\s*(.*)$/s.exec(prompt);
  if (call) return callTool(call[1] ?? "", call[2] ?? "");
  const path = /^read\s+(\S+)/.exec(prompt)?.[1];
  if (path !== undefined) {
    return {
      thinking: `The user wants to see ${path}. I will read it.`,
      toolCalls: [{ name: "read", arguments: { path } }],
    };
  }
  return {
    thinking: "I should look at the folder before answering.",
    text: "Let me look at this folder.",
    toolCalls: [{ name: "ls", arguments: { path: "." } }],
  };
}

/** `call <tool> [JSON arguments]`: arguments that are not a JSON object get a reply saying so. */
function callTool(name: string, argumentsText: string): ScriptedReply {
  let parsed: unknown = {};
  try {
    if (argumentsText.trim() !== "") parsed = JSON.parse(argumentsText);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return {
      text: `I cannot call ${name}: its arguments must be a JSON object, not ${argumentsText.trim()}.`,
    };
  }
  return {
    thinking: `The user wants the tool ${name} called.`,
    toolCalls: [{ name, arguments: parsed as Record<string, unknown> }],
  };
}

function answerFromToolResult(messages: Message[]): ScriptedReply {
  const result = messages.at(-1);
  if (result?.role !== "toolResult") return { text: "I have nothing to answer from." };
  const userTexts = messages.filter((message) => message.role === "user").map(userText);
  const summaryGoals = userTexts
    .filter((text) => text.startsWith(COMPACTION_SUMMARY_PREFIX))
    .flatMap(goalsOf);
  const requests = userTexts.filter((text) => !text.startsWith(COMPACTION_SUMMARY_PREFIX)).map(readRequest);
  const request = requests.at(-1) ?? { text: "" };
  const asked = request.skill === undefined ? "" : `Using the skill "${request.skill}". `;
  const prompt = request.text;
  const output = result.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n")
    .trim();
  const history: string[] = [];
  if (summaryGoals.length > 0) {
    history.push(`The summary of earlier work lists: ${summaryGoals.map((goal) => `"${goal}"`).join(", ")}.`);
  }
  const earlier = requests.slice(0, -1);
  if (earlier.length > 0) {
    history.push(
      `Earlier in this conversation you asked: ${earlier.map((text) => `"${text.text}"`).join(", ")}.`,
    );
  } else if (summaryGoals.length > 0) history.push("You asked nothing else since that summary.");
  else history.push("This is the first prompt of this conversation.");
  const you = `${asked}You asked: "${prompt}".`;
  if (result.isError) {
    return { text: `${you} The ${result.toolName} tool failed: ${output}\n${history.join(" ")}` };
  }
  if (result.toolName === "ls") {
    const entries = output
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("[") && line !== "(empty folder)");
    return {
      text: `${you} This folder holds ${entries.length} entries: ${entries.join(", ")}.\n${history.join(" ")}`,
    };
  }
  const lines = output === "" ? 0 : output.split("\n").length;
  return {
    text: `${you} The ${result.toolName} tool returned ${lines} line(s):\n${output}\n${history.join(" ")}`,
  };
}

/** The request of a user message: a skill block's extra text (else its content), or the text itself. */
function readRequest(text: string): Request {
  const skill = SKILL_BLOCK.exec(text);
  if (!skill) return { text };
  const extra = skill[3]?.trim();
  return { text: extra ? extra : (skill[2] ?? "").trim(), skill: skill[1] ?? "" };
}

/**
 * The `## Goal` items of a summary, over all its Goal sections (a split turn's summary has two); the
 * offline summaries list one request per line.
 */
function goalsOf(summary: string): string[] {
  const goals = new Set<string>();
  for (const section of summary.matchAll(/## Goal\n([\s\S]*?)(?=\n## |\n\n---|$(?![\s\S]))/g)) {
    for (const line of (section[1] ?? "").split("\n")) {
      const goal = /^- (.+)$/.exec(line.trim())?.[1];
      if (goal !== undefined && goal !== "(none)") goals.add(goal);
    }
  }
  return [...goals];
}

/** The `### Done` items of a summary. */
function doneOf(summary: string): string[] {
  const section = /### Done\n([\s\S]*?)(?:\n##|$)/.exec(summary)?.[1] ?? "";
  return section
    .split("\n")
    .map((line) => /^- \[x\] (.+)$/.exec(line.trim())?.[1])
    .filter((item): item is string => item !== undefined && item !== "(none)");
}

/**
 * A checkpoint summary in the requested format, built from the serialized conversation (`[User]: …`,
 * `[Assistant tool calls]: …`, `[Tool error]: …` blocks), merged with a `<previous-summary>`.
 */
function summarize(transcript: string, request: string): string {
  const blocks = [
    ...transcript.matchAll(/^\[([^\]\n]+)\]: ([\s\S]*?)(?=\n\n\[[^\]\n]+\]: |$(?![\s\S]))/gm),
  ].map((match) => ({ kind: match[1] ?? "", text: match[2] ?? "" }));
  const previous = /<previous-summary>\n([\s\S]*?)\n<\/previous-summary>/.exec(request)?.[1] ?? "";
  const focus = /\n\nAdditional focus: ([\s\S]*)$/.exec(request)?.[1]?.trim();
  const goals = [...goalsOf(previous)];
  const done = [...doneOf(previous)];
  const errors: string[] = [];
  let lastAnswer = "";
  for (const block of blocks) {
    if (block.kind === "User") {
      const asked = readRequest(block.text);
      goals.push(
        abbreviate(asked.skill === undefined ? asked.text : `/skill:${asked.skill} ${asked.text}`, 120),
      );
    } else if (block.kind === "Assistant tool calls") done.push(abbreviate(block.text, 120));
    else if (block.kind === "Tool error") errors.push(abbreviate(block.text, 120));
    else if (block.kind === "Assistant") lastAnswer = abbreviate(block.text, 200);
  }
  const list = (items: string[], mark = "- ") =>
    items.length === 0 ? `${mark}(none)` : items.map((item) => `${mark}${item}`).join("\n");
  return [
    "## Goal",
    list(goals),
    "",
    "## Constraints & Preferences",
    list(focus ? [focus] : []),
    "",
    "## Progress",
    "### Done",
    list(done, "- [x] "),
    "",
    "### In Progress",
    "- [ ] (none)",
    "",
    "### Blocked",
    list(errors),
    "",
    "## Key Decisions",
    "- **Offline script**: every request was answered from one tool result",
    "",
    "## Next Steps",
    "1. Wait for the next request",
    "",
    "## Critical Context",
    list(lastAnswer === "" ? [] : [`Last answer: ${lastAnswer}`]),
  ].join("\n");
}

function userText(message: Message): string {
  if (message.role !== "user") return "";
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

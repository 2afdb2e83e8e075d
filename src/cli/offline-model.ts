import { scriptedModel } from "../providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../providers/scripted/scripted-reply.js";
import type { Message, TextContent } from "../types/messages.js";
import type { Model } from "../types/model.js";
import type { LlmContext, StreamFn } from "../types/stream.js";

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
 * A small offline model that does real work with the built-in tools, so the CLI is usable (and
 * testable) without a server. For each prompt it calls one tool, then answers from the result:
 * - `run <command>` (or `$ <command>`) runs the command with `bash`;
 * - `read <path>` reads a file;
 * - anything else lists the folder with `ls`.
 * The answer quotes the prompt and counts the earlier prompts of the conversation, so a continued
 * session shows that the model saw its history.
 */
export function offlineModel(): StreamFn {
  return (model, context, options) => scriptedModel([offlineReply])(model, context, options);
}

function offlineReply(context: LlmContext): ScriptedReply {
  const last = context.messages.at(-1);
  if (last?.role === "toolResult") return answerFromToolResult(context.messages);
  const prompt = last?.role === "user" ? userText(last) : "";
  const command = /^(?:run|\$)\s+(.+)$/s.exec(prompt.trim())?.[1];
  if (command !== undefined) {
    return {
      thinking: "The user wants a command run. I will use bash.",
      toolCalls: [{ name: "bash", arguments: { command } }],
    };
  }
  const path = /^read\s+(\S+)/.exec(prompt.trim())?.[1];
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

function answerFromToolResult(messages: Message[]): ScriptedReply {
  const result = messages.at(-1);
  if (result?.role !== "toolResult") return { text: "I have nothing to answer from." };
  const prompts = messages.filter((message) => message.role === "user").map(userText);
  const prompt = prompts.at(-1) ?? "";
  const output = result.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n")
    .trim();
  const earlier = prompts.length - 1;
  const history =
    earlier === 0
      ? "This is the first prompt of this conversation."
      : `Earlier in this conversation you asked: ${prompts
          .slice(0, -1)
          .map((text) => `"${text}"`)
          .join(", ")}.`;
  if (result.isError) {
    return { text: `You asked: "${prompt}". The ${result.toolName} tool failed: ${output}\n${history}` };
  }
  if (result.toolName === "ls") {
    const entries = output
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("[") && line !== "(empty folder)");
    return {
      text: `You asked: "${prompt}". This folder holds ${entries.length} entries: ${entries.join(", ")}.\n${history}`,
    };
  }
  const lines = output === "" ? 0 : output.split("\n").length;
  return {
    text: `You asked: "${prompt}". The ${result.toolName} tool returned ${lines} line(s):\n${output}\n${history}`,
  };
}

function userText(message: Message): string {
  if (message.role !== "user") return "";
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

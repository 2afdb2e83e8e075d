import { TOOL_CALL_JOURNAL_TYPE } from "../harness/tool-journal.js";
import type { SessionEntry, SessionTreeNode } from "../storage/entries.js";
import type { SessionTreeView } from "../storage/session-tree.js";
import type { AgentMessage, ImageContent, TextContent } from "../types/messages.js";
import { abbreviate } from "./event-renderer.js";
import type { TerminalStyle } from "./terminal-style.js";

/** How long message texts may get in `sessions show` before they are cut. */
const SHOW_TEXT_LIMIT = 2_000;

/** Which entries the views show: the tool journal's only when asked for. */
export interface EntryFilter {
  /** Show the tool journal's entries (`custom agentchart.tool_call`); default false. */
  journal?: boolean;
}

/** True for an entry of the tool journal (written when a tool call starts, for crash recovery). */
export function isJournalEntry(entry: SessionEntry): boolean {
  return entry.type === "custom" && entry.customType === TOOL_CALL_JOURNAL_TYPE;
}

/** The text of the branch's first user message, if any. */
export function firstPromptOf(entries: readonly SessionEntry[]): string | undefined {
  for (const entry of entries) {
    if (entry.type === "message" && entry.message.role === "user") return contentText(entry.message.content);
  }
  return undefined;
}

/**
 * The lines `sessions show` prints for a branch (root → leaf): roles, text, abbreviated tool traffic,
 * compaction and branch summaries in full (up to the text limit), settings dimmed; the tool journal's
 * entries only with `filter.journal`.
 */
export function renderTranscript(
  entries: readonly SessionEntry[],
  style: TerminalStyle,
  filter: EntryFilter = {},
): string[] {
  const lines: string[] = [];
  for (const entry of entries) {
    if (!filter.journal && isJournalEntry(entry)) continue;
    if (entry.type === "message") lines.push(...renderMessage(entry.message, style));
    else if (entry.type === "compaction") {
      lines.push(style.bold(`── compaction (${entry.tokensBefore} tokens before)`), cut(entry.summary));
    } else if (entry.type === "branch_summary") {
      lines.push(style.bold("── branch summary"), cut(entry.summary));
    } else lines.push(style.dim(`· ${describeSetting(entry)}`));
  }
  return lines;
}

function renderMessage(message: AgentMessage, style: TerminalStyle): string[] {
  const heading = (title: string) => style.bold(`── ${title}`);
  switch (message.role) {
    case "user":
      return [heading("user"), cut(contentText(message.content))];
    case "assistant": {
      const lines = [heading(`assistant (${message.provider}/${message.model})`)];
      for (const block of message.content) {
        if (block.type === "thinking") lines.push(style.dim(`[thinking] ${abbreviate(block.thinking, 200)}`));
        else if (block.type === "text") lines.push(cut(block.text));
        else lines.push(style.yellow(`→ ${block.name} ${abbreviate(JSON.stringify(block.arguments), 120)}`));
      }
      if (message.stopReason === "error") lines.push(style.red(`error: ${message.errorMessage ?? ""}`));
      if (message.stopReason === "aborted") lines.push(style.yellow("(aborted)"));
      return lines;
    }
    case "toolResult": {
      const text = contentText(message.content);
      const all = text === "" ? [] : text.split("\n");
      const shown = all.slice(0, 5).map((line) => `  ${abbreviate(line, 160)}`);
      if (all.length > shown.length) shown.push(style.dim(`  … ${all.length - shown.length} more lines`));
      const status = message.isError ? style.red("error") : `${all.length} lines`;
      const child = subAgentSessionOf(message);
      const link = child === undefined ? [] : [style.cyan(`  ↳ sub-agent session ${child}`)];
      return [heading(`tool result ${message.toolName} (${status})`), ...shown, ...link];
    }
    case "compactionSummary":
      return [heading("compaction summary"), cut(message.summary)];
    case "branchSummary":
      return [heading("branch summary"), cut(message.summary)];
    case "custom":
      return [heading(`custom ${message.customType}`), cut(contentText(message.content))];
    default:
      return [
        heading((message as { role?: string }).role ?? "message"),
        abbreviate(JSON.stringify(message), 200),
      ];
  }
}

/**
 * The sub-agent session an agent tool's result links (`details.session`, written by a harness that
 * records sub-agents), if any.
 */
export function subAgentSessionOf(message: AgentMessage): string | undefined {
  if (message.role !== "toolResult") return undefined;
  const details = message.details as { session?: unknown } | undefined;
  return typeof details?.session === "string" ? details.session : undefined;
}

/** A sub-agent's session under the session of the agent that called it (`sessions tree`). */
export interface SubAgentSessionNode {
  id: string;
  /** The call of the parent's agent that ran this sub-agent (header `parentToolCallId`). */
  toolCallId: string;
  /** Its first prompt (the task it was given). */
  prompt: string | undefined;
  messages: number;
  children: SubAgentSessionNode[];
}

/** The lines of the sub-agent sessions under a session, one per session, nested by depth. */
export function renderSubAgentSessions(
  nodes: readonly SubAgentSessionNode[],
  style: TerminalStyle,
): string[] {
  const lines: string[] = [];
  const walk = (node: SubAgentSessionNode, indent: string) => {
    const prompt = node.prompt === undefined ? "" : ` ${JSON.stringify(abbreviate(node.prompt, 50))}`;
    const count = `${node.messages} ${node.messages === 1 ? "message" : "messages"}`;
    lines.push(`${indent}↳ ${node.id} ${style.dim(`call ${node.toolCallId} · ${count}`)}${prompt}`);
    for (const child of node.children) walk(child, `${indent}    `);
  };
  for (const node of nodes) walk(node, "");
  return lines;
}

/** A one-line description of an entry for `sessions tree`. */
export function describeEntry(entry: SessionEntry): string {
  if (entry.type !== "message") return describeSetting(entry);
  const message = entry.message;
  switch (message.role) {
    case "user":
      return `user: ${abbreviate(contentText(message.content), 60)}`;
    case "assistant": {
      const text = message.content
        .map((block) => (block.type === "text" ? block.text : ""))
        .join(" ")
        .trim();
      const calls = message.content.flatMap((block) => (block.type === "toolCall" ? [block.name] : []));
      const parts = [
        text === "" ? "" : abbreviate(text, 60),
        calls.length > 0 ? `→ ${calls.join(", ")}` : "",
      ];
      const stop =
        message.stopReason === "error" || message.stopReason === "aborted" ? ` (${message.stopReason})` : "";
      return `assistant: ${parts.filter(Boolean).join(" ")}${stop}`;
    }
    case "toolResult": {
      const child = subAgentSessionOf(message);
      const link = child === undefined ? "" : ` ↳ session ${child}`;
      return `toolResult ${message.toolName}${message.isError ? " (error)" : ""}${link}`;
    }
    default:
      return (message as { role?: string }).role ?? "message";
  }
}

function describeSetting(entry: SessionEntry): string {
  switch (entry.type) {
    case "model_change":
      return `model ${entry.provider}/${entry.modelId}`;
    case "thinking_level_change":
      return `thinking ${entry.thinkingLevel}`;
    case "active_tools_change":
      return `tools ${entry.activeToolNames.join(", ")}`;
    case "compaction":
      return `compaction (${entry.tokensBefore} tokens before)`;
    case "branch_summary":
      return `branch summary: ${abbreviate(entry.summary, 60)}`;
    case "custom":
      return `custom ${entry.customType}`;
    case "custom_message":
      return `custom message ${entry.customType}`;
    case "label":
      return entry.label === undefined
        ? `label cleared on ${entry.targetId}`
        : `label "${entry.label}" on ${entry.targetId}`;
    case "session_info":
      return `name "${entry.name ?? ""}"`;
    case "message":
      return describeEntry(entry);
    default:
      return (entry as { type: string }).type;
  }
}

/**
 * The session tree in ASCII: a chain of single children stays in one column, each branch point
 * opens `+--`/`` `-- `` arms; entries show their id, a summary and their label, and the current leaf
 * is marked `<- leaf`. The tool journal's entries are left out (their children shown in their place)
 * unless `filter.journal`, or when one is the leaf.
 */
export function renderTree(view: SessionTreeView, style: TerminalStyle, filter: EntryFilter = {}): string[] {
  const lines: string[] = [];
  const leafId = view.leafId;
  const hidden = (node: SessionTreeNode) =>
    !filter.journal && isJournalEntry(node.entry) && node.entry.id !== leafId;
  const describe = (node: SessionTreeNode) => {
    const label = node.label === undefined ? "" : ` ${style.cyan(`[${node.label}]`)}`;
    const leaf = node.entry.id === leafId ? ` ${style.green("<- leaf")}` : "";
    return `${style.dim(node.entry.id)} ${describeEntry(node.entry)}${label}${leaf}`;
  };
  const walk = (node: SessionTreeNode, prefix: string, arm: string, rest: string) => {
    const only = node.children.length === 1 ? node.children[0] : undefined;
    if (hidden(node) && only) return walk(only, prefix, arm, rest);
    lines.push(`${prefix}${arm}${hidden(node) ? style.dim("(journal)") : describe(node)}`);
    const below = prefix + rest;
    let current = node;
    while (current.children.length === 1) {
      current = current.children[0] as SessionTreeNode;
      if (!hidden(current)) lines.push(`${below}${describe(current)}`);
    }
    current.children.forEach((child, index) => {
      const last = index === current.children.length - 1;
      walk(child, below, last ? "`-- " : "+-- ", last ? "    " : "|   ");
    });
  };
  const roots = view.getTree();
  if (roots.length === 1) walk(roots[0] as SessionTreeNode, "", "", "");
  else {
    roots.forEach((root, index) => {
      const last = index === roots.length - 1;
      walk(root, "", last ? "`-- " : "+-- ", last ? "    " : "|   ");
    });
  }
  return lines;
}

function contentText(content: string | (TextContent | ImageContent)[]): string {
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");
}

function cut(text: string): string {
  return text.length <= SHOW_TEXT_LIMIT
    ? text
    : `${text.slice(0, SHOW_TEXT_LIMIT)}… (${text.length} characters)`;
}

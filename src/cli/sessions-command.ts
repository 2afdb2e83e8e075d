import { readFileSync } from "node:fs";
import type { SessionHeader } from "../storage/entries.js";
import { JsonlSessionRepo } from "../storage/jsonl-session-repo.js";
import { parseSessionText } from "../storage/session-file.js";
import type { SessionInfo, SessionRepo } from "../storage/session-repo.js";
import type { SessionTree } from "../storage/session-tree.js";
import { CliError } from "./cli-error.js";
import { abbreviate } from "./event-renderer.js";
import { forkEntryOf } from "./fork-at-step.js";
import {
  firstPromptOf,
  renderSubAgentSessions,
  renderTranscript,
  renderTree,
  type SubAgentSessionNode,
} from "./session-view.js";
import type { TerminalStyle } from "./terminal-style.js";

/** A stored session as read for display: its header and tree. */
export interface StoredSession {
  header: SessionHeader;
  tree: SessionTree;
}

/** What the `sessions` subcommands need: the repo, where to print, and how to style it. */
export interface SessionsCommandContext {
  repo: SessionRepo;
  /** Where the sessions are, for messages: a folder, or a database. */
  where: string;
  /** Reads a stored session without opening it for writing (no lock or lease, no rewrite). */
  read(info: SessionInfo): Promise<StoredSession>;
  /** The session as pi's JSONL text. */
  exportJsonl(info: SessionInfo): Promise<string>;
  /** Stores a pi JSONL file as a new session and returns its id (`CliError` where unsupported). */
  importJsonl(file: string): Promise<string>;
  print: (line: string) => void;
  style: TerminalStyle;
  /** Releases the repo's connections, if any. */
  close?: () => Promise<void>;
}

/** The `sessions` context on a folder of JSONL files (`--sessions-dir`). */
export function jsonlSessionsContext(
  root: string,
  print: (line: string) => void,
  style: TerminalStyle,
): SessionsCommandContext {
  const fileOf = (info: SessionInfo) => {
    if (info.path === undefined) throw new CliError(`session "${info.id}" has no file`);
    return readFileSync(info.path, "utf8");
  };
  return {
    repo: new JsonlSessionRepo({ root }),
    where: root,
    read: async (info) => parseSessionText(fileOf(info)),
    exportJsonl: async (info) => fileOf(info),
    importJsonl: async () => {
      throw new CliError("`sessions import` stores a JSONL file in a database: add --database-url <url>");
    },
    print,
    style,
  };
}

/**
 * Finds a stored session by its id or a unique prefix of it.
 * @throws CliError when no session or several sessions match.
 */
export async function resolveSessionInfo(
  context: Pick<SessionsCommandContext, "repo" | "where">,
  idOrPrefix: string,
): Promise<SessionInfo> {
  const infos = await context.repo.list();
  const exact = infos.find((info) => info.id === idOrPrefix);
  if (exact) return exact;
  const matches = infos.filter((info) => idOrPrefix !== "" && info.id.startsWith(idOrPrefix));
  if (matches.length === 1) return matches[0] as SessionInfo;
  if (matches.length === 0) {
    throw new CliError(`no session "${idOrPrefix}" in ${context.where} (see: agentchart sessions list)`);
  }
  throw new CliError(
    `"${idOrPrefix}" matches ${matches.length} sessions: ${matches.map((info) => info.id).join(", ")}`,
  );
}

/**
 * `sessions list`: newest first, one line each: id, last change, the number of messages on the
 * current branch, the name (or else the first prompt), and the folder.
 */
export async function listSessions(context: SessionsCommandContext): Promise<void> {
  const infos = await context.repo.list();
  if (infos.length === 0) {
    context.print(`no sessions in ${context.where}`);
    return;
  }
  for (const info of infos) {
    const { tree } = await context.read(info);
    const messages = tree.getBranch().filter((entry) => entry.type === "message").length;
    const prompt = firstPromptOf(tree.getBranch());
    const title =
      info.name !== undefined
        ? context.style.cyan(info.name)
        : prompt === undefined
          ? context.style.dim("(no prompt)")
          : JSON.stringify(abbreviate(prompt, 50));
    const count = `${messages} ${messages === 1 ? "message" : "messages"}`;
    context.print(
      `${info.id}  ${formatTime(info.modifiedAt)}  ${count.padStart(12)}  ${title}  ${context.style.dim(info.cwd)}`,
    );
  }
}

/** What `sessions show` and `sessions tree` print besides the conversation. */
export interface SessionViewOptions {
  /** Also the tool journal's entries (`custom agentchart.tool_call`, one per started tool call). */
  journal?: boolean;
}

/** `sessions show <id>`: the header, then the current branch as a readable transcript. */
export async function showSession(
  context: SessionsCommandContext,
  idOrPrefix: string,
  options: SessionViewOptions = {},
): Promise<void> {
  const info = await resolveSessionInfo(context, idOrPrefix);
  const { header, tree } = await context.read(info);
  const name = tree.name === undefined ? "" : ` "${tree.name}"`;
  context.print(context.style.bold(`session ${header.id}${name}`));
  context.print(context.style.dim(`cwd ${header.cwd} · created ${formatTime(new Date(header.timestamp))}`));
  if (header.parentToolCallId !== undefined)
    context.print(
      context.style.dim(
        `sub-agent session of ${header.parentSession ?? "?"} (call ${header.parentToolCallId})`,
      ),
    );
  else if (header.parentSession !== undefined)
    context.print(context.style.dim(`forked from ${header.parentSession}`));
  const branch = tree.getBranch();
  if (branch.length === 0) context.print(context.style.dim("(empty)"));
  for (const line of renderTranscript(branch, context.style, options)) context.print(line);
}

/**
 * `sessions tree <id>`: every branch, labels, and the current leaf; then the sessions of its
 * sub-agents (recorded by a harness), each under the session of the agent that called it.
 */
export async function showSessionTree(
  context: SessionsCommandContext,
  idOrPrefix: string,
  options: SessionViewOptions = {},
): Promise<void> {
  const info = await resolveSessionInfo(context, idOrPrefix);
  const { tree } = await context.read(info);
  if (tree.size === 0) context.print("(empty)");
  else for (const line of renderTree(tree, context.style, options)) context.print(line);
  const children = await subAgentSessionsOf(context, info, await context.repo.list());
  if (children.length === 0) return;
  context.print(context.style.bold("sub-agent sessions"));
  for (const line of renderSubAgentSessions(children, context.style)) context.print(line);
}

/**
 * The sessions whose header links `parent` (its path or id in `parentSession`, with a
 * `parentToolCallId`), each with its own sub-agent sessions, in the order they were created.
 */
async function subAgentSessionsOf(
  context: SessionsCommandContext,
  parent: SessionInfo,
  infos: readonly SessionInfo[],
): Promise<SubAgentSessionNode[]> {
  const links = new Set([parent.id, ...(parent.path === undefined ? [] : [parent.path])]);
  const nodes: { createdAt: number; node: SubAgentSessionNode }[] = [];
  for (const info of infos) {
    if (info.parentSession === undefined || !links.has(info.parentSession) || info.id === parent.id) continue;
    const { header, tree } = await context.read(info);
    if (header.parentToolCallId === undefined) continue; // a fork, not a sub-agent
    const branch = tree.getBranch();
    nodes.push({
      createdAt: info.createdAt.getTime(),
      node: {
        id: info.id,
        toolCallId: header.parentToolCallId,
        prompt: firstPromptOf(branch),
        messages: branch.filter((entry) => entry.type === "message").length,
        children: await subAgentSessionsOf(context, info, infos),
      },
    });
  }
  return nodes.sort((a, b) => a.createdAt - b.createdAt).map(({ node }) => node);
}

/**
 * `sessions fork <id> [--at entry|step] [--before]`: prints the new session's id. `--at` takes an entry
 * id or, for a session recorded with `record: true`, a recorded step's number (`forkEntryOf`).
 */
export async function forkSession(
  context: SessionsCommandContext,
  idOrPrefix: string,
  options: { at?: string; before?: boolean },
): Promise<void> {
  const info = await resolveSessionInfo(context, idOrPrefix);
  if (options.before && options.at === undefined) throw new CliError("--before needs --at <entry>");
  const forkOptions: { entryId?: string; position?: "before" | "at" } = {};
  if (options.at !== undefined)
    forkOptions.entryId = forkEntryOf((await context.read(info)).tree, options.at);
  if (options.before) forkOptions.position = "before";
  const forked = await context.repo.fork(info.id, forkOptions);
  try {
    context.print(forked.id);
  } finally {
    await forked.close();
  }
}

/** `sessions delete <id>`. */
export async function deleteSession(context: SessionsCommandContext, idOrPrefix: string): Promise<void> {
  const info = await resolveSessionInfo(context, idOrPrefix);
  await context.repo.delete(info.id);
  context.print(`deleted ${info.id}`);
}

/** `sessions export <id>`: the session as pi's JSONL text on stdout. */
export async function exportSession(context: SessionsCommandContext, idOrPrefix: string): Promise<void> {
  const info = await resolveSessionInfo(context, idOrPrefix);
  const text = await context.exportJsonl(info);
  context.print(text.endsWith("\n") ? text.slice(0, -1) : text);
}

/** `sessions import <file>`: stores a pi JSONL file (v1/v2 migrated) under its own id; prints the id. */
export async function importSession(context: SessionsCommandContext, file: string): Promise<void> {
  context.print(await context.importJsonl(file));
}

function formatTime(date: Date): string {
  return date.toISOString().replace("T", " ").slice(0, 19);
}

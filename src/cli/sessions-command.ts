import { readFileSync } from "node:fs";
import type { SessionHeader } from "../storage/entries.js";
import type { JsonlSessionRepo } from "../storage/jsonl-session-repo.js";
import { parseSessionText } from "../storage/session-file.js";
import type { SessionInfo } from "../storage/session-repo.js";
import type { SessionTree } from "../storage/session-tree.js";
import { CliError } from "./cli-error.js";
import { renderTranscript, renderTree } from "./session-view.js";
import type { TerminalStyle } from "./terminal-style.js";

/** What the `sessions` subcommands need: the repo, where to print, and how to style it. */
export interface SessionsCommandContext {
  repo: JsonlSessionRepo;
  root: string;
  print: (line: string) => void;
  style: TerminalStyle;
}

/**
 * Finds a stored session by its id or a unique prefix of it.
 * @throws CliError when no session or several sessions match.
 */
export async function resolveSessionInfo(
  context: SessionsCommandContext,
  idOrPrefix: string,
): Promise<SessionInfo> {
  const infos = await context.repo.list();
  const exact = infos.find((info) => info.id === idOrPrefix);
  if (exact) return exact;
  const matches = infos.filter((info) => idOrPrefix !== "" && info.id.startsWith(idOrPrefix));
  if (matches.length === 1) return matches[0] as SessionInfo;
  if (matches.length === 0) {
    throw new CliError(`no session "${idOrPrefix}" in ${context.root} (see: agentchart sessions list)`);
  }
  throw new CliError(
    `"${idOrPrefix}" matches ${matches.length} sessions: ${matches.map((info) => info.id).join(", ")}`,
  );
}

/** Reads a stored session without opening it for writing (no lock, no migration rewrite). */
function readStored(info: SessionInfo): { header: SessionHeader; tree: SessionTree } {
  if (info.path === undefined) throw new CliError(`session "${info.id}" has no file`);
  const { header, tree } = parseSessionText(readFileSync(info.path, "utf8"));
  return { header, tree };
}

/** `sessions list`: newest first, one line each. */
export async function listSessions(context: SessionsCommandContext): Promise<void> {
  const infos = await context.repo.list();
  if (infos.length === 0) {
    context.print(`no sessions in ${context.root}`);
    return;
  }
  for (const info of infos) {
    const name = info.name === undefined ? "" : `  ${context.style.cyan(info.name)}`;
    context.print(`${info.id}  ${formatTime(info.modifiedAt)}  ${info.cwd}${name}`);
  }
}

/** `sessions show <id>`: the header, then the current branch as a readable transcript. */
export async function showSession(context: SessionsCommandContext, idOrPrefix: string): Promise<void> {
  const info = await resolveSessionInfo(context, idOrPrefix);
  const { header, tree } = readStored(info);
  const name = tree.name === undefined ? "" : ` "${tree.name}"`;
  context.print(context.style.bold(`session ${header.id}${name}`));
  context.print(context.style.dim(`cwd ${header.cwd} · created ${formatTime(new Date(header.timestamp))}`));
  if (header.parentSession !== undefined)
    context.print(context.style.dim(`forked from ${header.parentSession}`));
  const branch = tree.getBranch();
  if (branch.length === 0) context.print(context.style.dim("(empty)"));
  for (const line of renderTranscript(branch, context.style)) context.print(line);
}

/** `sessions tree <id>`: every branch, labels, and the current leaf. */
export async function showSessionTree(context: SessionsCommandContext, idOrPrefix: string): Promise<void> {
  const info = await resolveSessionInfo(context, idOrPrefix);
  const { tree } = readStored(info);
  if (tree.size === 0) {
    context.print("(empty)");
    return;
  }
  for (const line of renderTree(tree, context.style)) context.print(line);
}

/** `sessions fork <id> [--at entry] [--before]`: prints the new session's id. */
export async function forkSession(
  context: SessionsCommandContext,
  idOrPrefix: string,
  options: { at?: string; before?: boolean },
): Promise<void> {
  const info = await resolveSessionInfo(context, idOrPrefix);
  if (options.before && options.at === undefined) throw new CliError("--before needs --at <entry>");
  const forkOptions: { entryId?: string; position?: "before" | "at" } = {};
  if (options.at !== undefined) forkOptions.entryId = options.at;
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

function formatTime(date: Date): string {
  return date.toISOString().replace("T", " ").slice(0, 19);
}

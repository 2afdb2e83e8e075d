import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { type BuiltinToolContext, requireCwd, resolveInCwd } from "./path-guard.js";
import { DEFAULT_MAX_BYTES, formatBytes, truncateHead } from "./truncate.js";

/** Entries listed when no `limit` is given. */
export const DEFAULT_LS_LIMIT = 500;

/** What `ls` reports besides its text. */
export interface LsDetails {
  path: string;
  totalEntries: number;
  shownEntries: number;
  truncated: boolean;
}

const lsParameters = z.object({
  path: z.string().optional().describe("Folder to list, relative to the working directory (default: it)"),
  limit: z.number().int().min(1).optional().describe(`Maximum entries to show (default ${DEFAULT_LS_LIMIT})`),
});

/**
 * `ls {path?, limit?}`: lists a folder's entries, one per line, sorted case-insensitively, with a
 * trailing `/` on folders (symlinks to folders included) and dotfiles shown. At most `limit`
 * entries (default 500) and 50 KB are shown; a note says how many were left out.
 */
export const lsTool = defineTool<typeof lsParameters, LsDetails, BuiltinToolContext>({
  name: "ls",
  label: "List folder",
  description:
    "List a folder's entries (folders end with /, dotfiles included), sorted by name. " +
    `At most ${DEFAULT_LS_LIMIT} entries unless limit is given.`,
  parameters: lsParameters,
  async execute(args, { context }) {
    const shownPath = args.path ?? ".";
    const dirPath = await resolveInCwd(requireCwd(context), shownPath);
    const stat = await fs.stat(dirPath).catch((error: NodeJS.ErrnoException) => {
      throw new Error(error.code === "ENOENT" ? `Folder not found: ${shownPath}` : error.message);
    });
    if (!stat.isDirectory()) throw new Error(`${shownPath} is not a folder; use read to see a file`);

    const entries = await fs.readdir(dirPath, { withFileTypes: true });
    const names = await Promise.all(
      entries.map(async (entry) => {
        const isDirectory =
          entry.isDirectory() ||
          (entry.isSymbolicLink() &&
            (await fs.stat(path.join(dirPath, entry.name)).catch(() => undefined))?.isDirectory());
        return isDirectory ? `${entry.name}/` : entry.name;
      }),
    );
    names.sort(byNameIgnoringCase);

    const limit = args.limit ?? DEFAULT_LS_LIMIT;
    const listed = names.slice(0, limit);
    const truncation = truncateHead(listed.join("\n"));
    const shown = truncation.keptLines;
    let text = names.length === 0 ? "(empty folder)" : truncation.text;
    if (shown < names.length) {
      const why = truncation.truncated ? ` (${formatBytes(DEFAULT_MAX_BYTES)} limit)` : "";
      text += `\n\n[${names.length - shown} more entries not shown${why}; ${names.length} in total. Use limit=${names.length} to see all.]`;
    }
    return {
      content: [{ type: "text", text }],
      details: {
        path: dirPath,
        totalEntries: names.length,
        shownEntries: shown,
        truncated: shown < names.length,
      },
    };
  },
});

function byNameIgnoringCase(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  if (left !== right) return left < right ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

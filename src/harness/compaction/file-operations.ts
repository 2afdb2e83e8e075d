import type { AgentMessage } from "../../types/index.js";

/** Files the summarised conversation touched; stored as a compaction's or branch summary's `details`. */
export interface FileOperations {
  /** Files only read (sorted). */
  readFiles: string[];
  /** Files written or edited (sorted). */
  modifiedFiles: string[];
}

/**
 * Collects file operations from `read`, `write` and `edit` tool calls (their string `path`
 * argument). A file both read and modified counts as modified only.
 */
export class FileOperationTracker {
  private readonly read = new Set<string>();
  private readonly modified = new Set<string>();

  /** Adds the tool calls of an assistant message; other messages are ignored. */
  addMessage(message: AgentMessage): void {
    if (message.role !== "assistant") return;
    for (const block of message.content) {
      if (block.type !== "toolCall") continue;
      const path = block.arguments?.path;
      if (typeof path !== "string" || path === "") continue;
      if (block.name === "read") this.read.add(path);
      else if (block.name === "write" || block.name === "edit") this.modified.add(path);
    }
  }

  /**
   * Adds the `details` of an earlier compaction or branch summary when they have the
   * {@link FileOperations} shape; anything else (e.g. details written by a hook) is ignored.
   */
  addDetails(details: unknown): void {
    if (typeof details !== "object" || details === null) return;
    const { readFiles, modifiedFiles } = details as Partial<Record<keyof FileOperations, unknown>>;
    for (const path of stringsOf(readFiles)) this.read.add(path);
    for (const path of stringsOf(modifiedFiles)) this.modified.add(path);
  }

  /** The collected operations, as plain sorted arrays. */
  toFileOperations(): FileOperations {
    return {
      readFiles: [...this.read].filter((path) => !this.modified.has(path)).sort(),
      modifiedFiles: [...this.modified].sort(),
    };
  }
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * The file lists as text appended to a summary, so the model keeps knowing which files matter:
 * `<read-files>` and `<modified-files>` blocks, one path per line; empty lists are left out.
 */
export function formatFileOperations(files: FileOperations): string {
  const blocks: string[] = [];
  if (files.readFiles.length > 0) blocks.push(`<read-files>\n${files.readFiles.join("\n")}\n</read-files>`);
  if (files.modifiedFiles.length > 0) {
    blocks.push(`<modified-files>\n${files.modifiedFiles.join("\n")}\n</modified-files>`);
  }
  return blocks.length > 0 ? `\n\n${blocks.join("\n\n")}` : "";
}

import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { writeFileAtomic } from "./atomic-write.js";
import { type BuiltinToolContext, requireCwd, resolveInCwd } from "./path-guard.js";
import { openRegularFile } from "./regular-file.js";

/** What `edit` reports besides its text. */
export interface EditDetails {
  path: string;
  replacements: number;
  /** 1-based line of the first change in the new file. */
  firstChangedLine: number;
  /** Short `-`/`+` summary of each replaced block (long blocks are abbreviated). */
  diff: string;
}

const replacement = z.object({
  oldText: z.string().describe("Exact text to replace; must occur exactly once in the file"),
  newText: z.string().describe("Replacement text"),
});

const editParameters = z.object({
  path: z.string().describe("File to edit, relative to the working directory"),
  oldText: z.string().optional().describe("Exact text to replace; must occur exactly once in the file"),
  newText: z.string().optional().describe("Replacement text"),
  edits: z
    .array(replacement)
    .optional()
    .describe("Several replacements at once, each matched against the original file; they must not overlap"),
});

const DIFF_LINES_PER_SIDE = 12;

interface Located {
  index: number;
  oldText: string;
  newText: string;
}

/**
 * `edit {path, oldText, newText}` (or `edits: [{oldText, newText}, …]`): replaces text that must
 * occur exactly once in the file. No match or several matches are errors that say so (with the
 * count); the file is then left untouched. CRLF files and a UTF-8 BOM are preserved: matching is
 * done on LF-normalised text. `details.diff` summarises the change. Folders, FIFOs, sockets and
 * devices are refused before they are opened; the tool's signal aborts the read and the write.
 */
export const editTool = defineTool<typeof editParameters, EditDetails, BuiltinToolContext>({
  name: "edit",
  label: "Edit file",
  description:
    "Replace exact text in a file. oldText must match the file exactly (whitespace included) and occur " +
    "exactly once; add surrounding lines to make it unique. Use edits for several replacements in one call.",
  parameters: editParameters,
  executionMode: "sequential",
  async execute(args, { context, signal }) {
    const filePath = await resolveInCwd(requireCwd(context), args.path);
    const requested = collectEdits(args);
    const { handle } = await openRegularFile(filePath, {
      shownPath: args.path,
      signal,
      ifDirectory: "edit changes files",
    });
    let raw: string;
    try {
      raw = await handle.readFile({ encoding: "utf8", signal });
    } finally {
      await handle.close();
    }
    const usesCrlf = raw.includes("\r\n");
    const original = toLf(raw); // a BOM stays where it is: it is text no edit touches

    const located = requested.map((edit, i) =>
      locate(original, edit, args.path, requested.length > 1 ? i : -1),
    );
    located.sort((a, b) => a.index - b.index);
    for (let i = 1; i < located.length; i++) {
      const previous = located[i - 1] as Located;
      if ((located[i] as Located).index < previous.index + previous.oldText.length) {
        throw new Error(`Edits overlap in ${args.path}; merge them into one edit`);
      }
    }
    let updated = original;
    for (const edit of [...located].reverse()) {
      updated = updated.slice(0, edit.index) + edit.newText + updated.slice(edit.index + edit.oldText.length);
    }
    if (updated === original) throw new Error(`No changes: newText equals oldText in ${args.path}`);

    await writeFileAtomic(filePath, usesCrlf ? updated.replace(/\n/g, "\r\n") : updated, signal);
    const diff = summarise(original, located);
    const firstChangedLine = lineOf(original, (located[0] as Located).index);
    const count = located.length;
    return {
      content: [{ type: "text", text: `Edited ${args.path}: ${count} replacement${count === 1 ? "" : "s"}` }],
      details: { path: filePath, replacements: count, firstChangedLine, diff },
    };
  },
});

function collectEdits(args: z.output<typeof editParameters>): { oldText: string; newText: string }[] {
  const edits = [...(args.edits ?? [])];
  if (args.oldText !== undefined || args.newText !== undefined) {
    if (args.oldText === undefined || args.newText === undefined) {
      throw new Error("oldText and newText must be given together");
    }
    edits.unshift({ oldText: args.oldText, newText: args.newText });
  }
  if (edits.length === 0) throw new Error("Nothing to edit: give oldText and newText, or edits");
  return edits.map((edit) => ({ oldText: toLf(edit.oldText), newText: toLf(edit.newText) }));
}

function locate(
  text: string,
  edit: { oldText: string; newText: string },
  shownPath: string,
  position: number,
) {
  const which = position >= 0 ? ` (edit ${position + 1})` : "";
  if (edit.oldText === "") throw new Error(`oldText is empty${which}; it must be text from the file`);
  const first = text.indexOf(edit.oldText);
  if (first === -1) {
    throw new Error(
      `oldText not found in ${shownPath}${which}. It must match the file exactly, including whitespace ` +
        "and indentation; read the file again to see its current content.",
    );
  }
  let count = 1;
  for (let at = text.indexOf(edit.oldText, first + 1); at !== -1; at = text.indexOf(edit.oldText, at + 1))
    count++;
  if (count > 1) {
    throw new Error(
      `oldText occurs ${count} times in ${shownPath}${which}; include more surrounding lines so it matches exactly once.`,
    );
  }
  return { index: first, ...edit };
}

/** Renders each replacement as `@@ line N @@` followed by `-` old and `+` new lines. */
function summarise(original: string, located: Located[]): string {
  const blocks: string[] = [];
  let shift = 0;
  for (const edit of located) {
    const oldLine = lineOf(original, edit.index);
    blocks.push(
      [`@@ line ${oldLine + shift} @@`, ...side("-", edit.oldText), ...side("+", edit.newText)].join("\n"),
    );
    shift += edit.newText.split("\n").length - edit.oldText.split("\n").length;
  }
  return blocks.join("\n");
}

function side(marker: string, text: string): string[] {
  const lines = text.split("\n").map((line) => `${marker}${line}`);
  if (lines.length <= DIFF_LINES_PER_SIDE) return lines;
  return [
    ...lines.slice(0, DIFF_LINES_PER_SIDE),
    `${marker}… (${lines.length - DIFF_LINES_PER_SIDE} more lines)`,
  ];
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < index; at = text.indexOf("\n", at + 1)) line++;
  return line;
}

function toLf(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { writeFileAtomic } from "./atomic-write.js";
import { type BuiltinToolContext, requireCwd, resolveInCwd } from "./path-guard.js";
import { assertRegularFile, throwIfAborted } from "./regular-file.js";

/** What `write` reports besides its text. */
export interface WriteDetails {
  path: string;
  bytes: number;
  /** False when an existing file was replaced. */
  created: boolean;
}

const writeParameters = z.object({
  path: z.string().describe("File to write, relative to the working directory"),
  content: z.string().describe("The complete new content of the file"),
});

/**
 * `write {path, content}`: creates or replaces a file (UTF-8), creating missing parent folders.
 * The file is written to a temporary sibling and renamed into place. Returns the number of bytes
 * written. Paths outside the working directory and existing folders, FIFOs, sockets and devices are
 * errors (checked with `stat`, never opened); the tool's signal aborts the write.
 */
export const writeTool = defineTool<typeof writeParameters, WriteDetails, BuiltinToolContext>({
  name: "write",
  label: "Write file",
  description:
    "Create or overwrite a file with the given content. Missing parent folders are created. " +
    "Prefer edit for changing part of an existing file.",
  parameters: writeParameters,
  executionMode: "sequential",
  async execute(args, { context, signal }) {
    const filePath = await resolveInCwd(requireCwd(context), args.path);
    const existing = await fs.stat(filePath).catch(() => undefined);
    if (existing !== undefined) assertRegularFile(existing, args.path, "cannot write a file there");
    throwIfAborted(signal);
    await fs.mkdir(path.dirname(filePath), { recursive: true });
    await writeFileAtomic(filePath, args.content, signal);
    const bytes = Buffer.byteLength(args.content, "utf8");
    return {
      content: [{ type: "text", text: `Wrote ${bytes} bytes to ${args.path}` }],
      details: { path: filePath, bytes, created: existing === undefined },
    };
  },
});

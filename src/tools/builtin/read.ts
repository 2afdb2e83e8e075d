import fs from "node:fs/promises";
import { z } from "zod";
import type { ImageContent, TextContent } from "../../types/messages.js";
import { defineTool } from "../define-tool.js";
import { type BuiltinToolContext, requireCwd, resolveInCwd } from "./path-guard.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatBytes, splitLines, truncateHead } from "./truncate.js";

/** Images larger than this are refused rather than sent to the model. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** What `read` reports besides its text. */
export interface ReadDetails {
  path: string;
  kind: "text" | "image";
  totalLines?: number;
  startLine?: number;
  endLine?: number;
  truncated?: boolean;
  mimeType?: string;
  bytes?: number;
}

const readParameters = z.object({
  path: z.string().describe("File to read, relative to the working directory"),
  offset: z.number().int().min(1).optional().describe("First line to show (1-based)"),
  limit: z.number().int().min(1).optional().describe("Maximum number of lines to show"),
});

/**
 * `read {path, offset?, limit?}`: returns a text file's content as plain text (no line numbers),
 * from line `offset` (1-based) for at most `limit` lines, cut at 2,000 lines or 50 KB with a note
 * giving the `offset=` to continue. PNG, JPEG, GIF and WebP files (recognised by their first bytes)
 * come back as image content. Other binary files, folders and paths outside the working directory
 * are errors.
 */
export const readTool = defineTool<typeof readParameters, ReadDetails, BuiltinToolContext>({
  name: "read",
  label: "Read file",
  description:
    `Read a file. Text is returned as-is, at most ${DEFAULT_MAX_LINES} lines or ${formatBytes(DEFAULT_MAX_BYTES)} per call; ` +
    "use offset/limit (lines, 1-based) for large files. PNG, JPEG, GIF and WebP images are returned as images.",
  parameters: readParameters,
  async execute(args, { context }) {
    const filePath = await resolveInCwd(requireCwd(context), args.path);
    const stat = await fs.stat(filePath).catch((error: NodeJS.ErrnoException) => {
      throw new Error(error.code === "ENOENT" ? `File not found: ${args.path}` : error.message);
    });
    if (stat.isDirectory()) throw new Error(`${args.path} is a directory; use ls to list it`);
    const buffer = await fs.readFile(filePath);

    const mimeType = detectImageType(buffer);
    if (mimeType !== undefined) {
      if (buffer.length > MAX_IMAGE_BYTES) {
        throw new Error(
          `${args.path} is a ${formatBytes(buffer.length)} image; the limit is ${formatBytes(MAX_IMAGE_BYTES)}`,
        );
      }
      const image: ImageContent = { type: "image", data: buffer.toString("base64"), mimeType };
      const note: TextContent = {
        type: "text",
        text: `Read image ${args.path} [${mimeType}, ${formatBytes(buffer.length)}]`,
      };
      return {
        content: [note, image],
        details: { path: filePath, kind: "image", mimeType, bytes: buffer.length },
      };
    }
    if (looksBinary(buffer)) {
      throw new Error(
        `${args.path} is a binary file (${formatBytes(buffer.length)}); read shows text files and PNG/JPEG/GIF/WebP images only`,
      );
    }
    return readText(args, filePath, buffer.toString("utf8"));
  },
});

function readText(
  args: z.output<typeof readParameters>,
  filePath: string,
  text: string,
): { content: TextContent[]; details: ReadDetails } {
  const lines = splitLines(text);
  const totalLines = lines.length;
  const startLine = args.offset ?? 1;
  const details: ReadDetails = { path: filePath, kind: "text", totalLines, startLine, truncated: false };
  if (totalLines === 0) {
    return { content: [{ type: "text", text: "(empty file)" }], details: { ...details, endLine: 0 } };
  }
  if (startLine > totalLines) {
    throw new Error(`offset ${startLine} is beyond the end of ${args.path} (${totalLines} lines)`);
  }
  const end = args.limit === undefined ? totalLines : Math.min(totalLines, startLine - 1 + args.limit);
  const selected = lines.slice(startLine - 1, end).join("\n");
  const truncation = truncateHead(selected);

  if (truncation.keptLines === 0) {
    const lineBytes = formatBytes(Buffer.byteLength(lines[startLine - 1] ?? "", "utf8"));
    const note =
      `[Line ${startLine} is ${lineBytes}, over the ${formatBytes(DEFAULT_MAX_BYTES)} limit of read. ` +
      `Use bash to see part of it, e.g. sed -n '${startLine}p' ${args.path} | head -c ${DEFAULT_MAX_BYTES}]`;
    return {
      content: [{ type: "text", text: note }],
      details: { ...details, endLine: startLine - 1, truncated: true },
    };
  }
  const endLine = startLine + truncation.keptLines - 1;
  let shown = truncation.text;
  if (truncation.truncated || endLine < totalLines) {
    const why = truncation.truncatedBy === "bytes" ? ` (${formatBytes(DEFAULT_MAX_BYTES)} limit)` : "";
    shown += `\n\n[Showing lines ${startLine}-${endLine} of ${totalLines}${why}. Use offset=${endLine + 1} to continue.]`;
  }
  return {
    content: [{ type: "text", text: shown }],
    details: { ...details, endLine, truncated: truncation.truncated },
  };
}

/** Recognises PNG, JPEG, GIF and WebP by their signatures. */
export function detectImageType(buffer: Buffer): string | undefined {
  if (
    buffer.length >= 8 &&
    buffer.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  ) {
    return "image/png";
  }
  if (buffer.length >= 3 && buffer[0] === 0xff && buffer[1] === 0xd8 && buffer[2] === 0xff)
    return "image/jpeg";
  const head = buffer.subarray(0, 12).toString("latin1");
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return "image/gif";
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/** A NUL byte in the first 8 KB marks a file as binary (the heuristic git and grep use). */
function looksBinary(buffer: Buffer): boolean {
  return buffer.subarray(0, 8192).includes(0);
}

import type { FileHandle } from "node:fs/promises";
import { z } from "zod";
import type { ImageContent, TextContent } from "../../types/messages.js";
import { defineTool } from "../define-tool.js";
import { type LineWindow, readLineWindow } from "./line-window.js";
import { type BuiltinToolContext, requireCwd, resolveInCwd } from "./path-guard.js";
import { openRegularFile } from "./regular-file.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatBytes } from "./truncate.js";

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

/** Files up to this size are scanned to the end so the note can give their number of lines. */
const READ_COUNTS_LINES_UP_TO = 8 * 1024 * 1024;
/** The first bytes that tell an image or a binary file (the NUL heuristic looks at 8 KB). */
const SNIFF_BYTES = 8192;

/**
 * `read {path, offset?, limit?}`: returns a text file's content as plain text (no line numbers),
 * from line `offset` (1-based) for at most `limit` lines, cut at 2,000 lines or 50 KB with a note
 * giving the `offset=` to continue. The file is read in chunks and reading stops once those lines
 * are read, so memory stays bounded whatever its size; a line over 50 KB is cut. PNG, JPEG, GIF and
 * WebP files (recognised by their first bytes) come back as image content. Other binary files,
 * folders, FIFOs, sockets, devices and paths outside the working directory are errors; the tool's
 * signal aborts the read between chunks.
 */
export const readTool = defineTool<typeof readParameters, ReadDetails, BuiltinToolContext>({
  name: "read",
  label: "Read file",
  description:
    `Read a file. Text is returned as-is, at most ${DEFAULT_MAX_LINES} lines or ${formatBytes(DEFAULT_MAX_BYTES)} per call; ` +
    "use offset/limit (lines, 1-based) for large files. PNG, JPEG, GIF and WebP images are returned as images.",
  parameters: readParameters,
  async execute(args, { context, signal }) {
    const filePath = await resolveInCwd(requireCwd(context), args.path);
    const { handle, stats } = await openRegularFile(filePath, {
      shownPath: args.path,
      signal,
      ifDirectory: "use ls to list it",
    });
    try {
      const head = Buffer.alloc(Math.min(SNIFF_BYTES, stats.size));
      await handle.read(head, 0, head.length, 0);
      const mimeType = detectImageType(head);
      if (mimeType !== undefined)
        return await readImage(args.path, filePath, handle, stats.size, mimeType, signal);
      if (looksBinary(head)) {
        throw new Error(
          `${args.path} is a binary file (${formatBytes(stats.size)}); read shows text files and PNG/JPEG/GIF/WebP images only`,
        );
      }
      const window = await readLineWindow(handle, {
        startLine: args.offset ?? 1,
        ...(args.limit === undefined ? {} : { limit: args.limit }),
        maxLines: DEFAULT_MAX_LINES,
        maxBytes: DEFAULT_MAX_BYTES,
        countLinesUpTo: READ_COUNTS_LINES_UP_TO,
        size: stats.size,
        signal,
      });
      return readText(args, filePath, stats.size, window);
    } finally {
      await handle.close();
    }
  },
});

async function readImage(
  shownPath: string,
  filePath: string,
  handle: FileHandle,
  size: number,
  mimeType: string,
  signal: AbortSignal,
): Promise<{ content: (TextContent | ImageContent)[]; details: ReadDetails }> {
  if (size > MAX_IMAGE_BYTES) {
    throw new Error(
      `${shownPath} is a ${formatBytes(size)} image; the limit is ${formatBytes(MAX_IMAGE_BYTES)}`,
    );
  }
  const buffer = await handle.readFile({ signal });
  const image: ImageContent = { type: "image", data: buffer.toString("base64"), mimeType };
  const note: TextContent = {
    type: "text",
    text: `Read image ${shownPath} [${mimeType}, ${formatBytes(buffer.length)}]`,
  };
  return {
    content: [note, image],
    details: { path: filePath, kind: "image", mimeType, bytes: buffer.length },
  };
}

function readText(
  args: z.output<typeof readParameters>,
  filePath: string,
  size: number,
  window: LineWindow,
): { content: TextContent[]; details: ReadDetails } {
  const { totalLines, lines } = window;
  const startLine = args.offset ?? 1;
  const details: ReadDetails = { path: filePath, kind: "text", startLine, truncated: false };
  if (totalLines !== undefined) details.totalLines = totalLines;
  if (totalLines === 0) {
    return { content: [{ type: "text", text: "(empty file)" }], details: { ...details, endLine: 0 } };
  }
  if (lines.length === 0) {
    throw new Error(`offset ${startLine} is beyond the end of ${args.path} (${totalLines} lines)`);
  }
  const endLine = startLine + lines.length - 1;
  const truncated = window.truncatedBy !== undefined;
  const of = totalLines === undefined ? ` of a ${formatBytes(size)} file` : ` of ${totalLines}`;
  let shown = lines.join("\n");
  if (window.lineCut) {
    const rest = `sed -n '${startLine}p' ${args.path} | tail -c +${DEFAULT_MAX_BYTES + 1} | head -c ${DEFAULT_MAX_BYTES}`;
    const after =
      window.more || totalLines === undefined ? ` Use offset=${endLine + 1} for the lines after it.` : "";
    shown +=
      `\n\n[Line ${startLine} is longer than ${formatBytes(DEFAULT_MAX_BYTES)}, the limit of read: showing its first ` +
      `${formatBytes(DEFAULT_MAX_BYTES)}. Use bash for the rest, e.g. ${rest}.${after}]`;
  } else if (window.more) {
    const why = window.truncatedBy === "bytes" ? ` (${formatBytes(DEFAULT_MAX_BYTES)} limit)` : "";
    shown += `\n\n[Showing lines ${startLine}-${endLine}${of}${why}. Use offset=${endLine + 1} to continue.]`;
  }
  return { content: [{ type: "text", text: shown }], details: { ...details, endLine, truncated } };
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

import { constants, type Stats } from "node:fs";
import fs, { type FileHandle } from "node:fs/promises";

/**
 * Thrown by `read`, `edit` and `write` for a path that is not a regular file: a FIFO, a socket, a
 * device. Opening one could block a thread of Node's file pool forever (a FIFO waits for a writer),
 * so the tools refuse it before opening it.
 */
export class NotRegularFileError extends Error {
  override name = "NotRegularFileError";
  readonly code = "not_regular_file";
}

/** `O_NONBLOCK` where the platform has it: opening a FIFO then returns at once instead of waiting. */
const OPEN_WITHOUT_BLOCKING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** What a built-in tool needs to open a file it reads. */
export interface OpenRegularFileOptions {
  /** The path as the model gave it, for error messages. */
  shownPath: string;
  /** The tool's signal: an abort before the file is open rejects with "Operation aborted". */
  signal: AbortSignal;
  /** The advice given when the path is a folder, e.g. "use ls to list it". */
  ifDirectory: string;
}

/**
 * Opens an existing regular file for reading. The path is checked with `stat` first, so a FIFO,
 * socket or device is refused without being opened; it is then opened with `O_NONBLOCK` and checked
 * again on the handle (`fstat`), so one swapped in between is refused too and the open cannot block.
 * The caller closes the handle.
 *
 * Contract: async; rejects with "File not found: <path>", `<path> is a directory; <ifDirectory>`,
 * {@link NotRegularFileError}, "Operation aborted", or the system's error.
 *
 * ```ts
 * const { handle, stats } = await openRegularFile("/work/a.txt", { shownPath: "a.txt", signal, ifDirectory: "use ls" });
 * try {
 *   console.log(stats.size, await handle.readFile("utf8"));
 * } finally {
 *   await handle.close();
 * }
 * ```
 */
export async function openRegularFile(
  filePath: string,
  options: OpenRegularFileOptions,
): Promise<{ handle: FileHandle; stats: Stats }> {
  throwIfAborted(options.signal);
  const before = await fs.stat(filePath).catch((error: NodeJS.ErrnoException) => {
    throw new Error(error.code === "ENOENT" ? `File not found: ${options.shownPath}` : error.message);
  });
  assertRegularFile(before, options.shownPath, options.ifDirectory);
  const handle = await fs.open(filePath, OPEN_WITHOUT_BLOCKING);
  try {
    const stats = await handle.stat();
    assertRegularFile(stats, options.shownPath, options.ifDirectory);
    throwIfAborted(options.signal);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Throws unless `stats` describe a regular file: `<path> is a directory; <ifDirectory>` for a folder,
 * {@link NotRegularFileError} naming the kind of file otherwise.
 *
 * Contract: synchronous; throws as said, returns nothing.
 *
 * ```ts
 * import { stat } from "node:fs/promises";
 * assertRegularFile(await stat("/work/notes.txt"), "notes.txt", "cannot write a file there");
 * ```
 */
export function assertRegularFile(stats: Stats, shownPath: string, ifDirectory: string): void {
  if (stats.isFile()) return;
  if (stats.isDirectory()) throw new Error(`${shownPath} is a directory; ${ifDirectory}`);
  throw new NotRegularFileError(
    `${shownPath} is ${kindOf(stats)}, not a regular file; read, edit and write work on regular files only`,
  );
}

/**
 * Throws "Operation aborted" (the loop's own text for an aborted call) when `signal` is aborted.
 *
 * Contract: synchronous; throws an Error or returns nothing.
 *
 * ```ts
 * const { handle } = await openRegularFile("/work/a.txt", { shownPath: "a.txt", signal, ifDirectory: "use ls" });
 * const buffer = Buffer.alloc(64 * 1024);
 * for (let read = 1; read > 0; ) {
 *   throwIfAborted(signal);
 *   ({ bytesRead: read } = await handle.read(buffer, 0, buffer.length));
 * }
 * ```
 */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new Error("Operation aborted");
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "of an unknown kind";
}

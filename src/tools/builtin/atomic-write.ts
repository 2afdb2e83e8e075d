import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { throwIfAborted } from "./regular-file.js";

/**
 * Writes `content` to `filePath` through a temporary file in the same folder and a rename, so
 * readers see the old or the new file, never a half-written one. An existing file keeps its mode;
 * a symlink is written through (its target is replaced, the link stays). The temporary file is
 * created exclusively (`wx`), so a file of that name is never opened; an abort of `signal` stops the
 * write and removes it.
 *
 * Contract: async; rejects with "Operation aborted" or the system's error, leaving the target as
 * it was.
 *
 * ```ts
 * await writeFileAtomic("/work/notes.txt", "new content", signal);
 * ```
 */
export async function writeFileAtomic(
  filePath: string,
  content: string | Buffer,
  signal: AbortSignal,
): Promise<void> {
  let target = filePath;
  let mode: number | undefined;
  try {
    target = await fs.realpath(filePath);
    mode = (await fs.stat(target)).mode & 0o7777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`,
  );
  try {
    await fs.writeFile(temp, content, { flag: "wx", signal, ...(mode === undefined ? {} : { mode }) });
    throwIfAborted(signal);
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throwIfAborted(signal);
    throw error;
  }
}

import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/**
 * Writes `content` to `filePath` through a temporary file in the same folder and a rename, so
 * readers see the old or the new file, never a half-written one. An existing file keeps its mode;
 * a symlink is written through (its target is replaced, the link stays).
 */
export async function writeFileAtomic(filePath: string, content: string | Buffer): Promise<void> {
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
    await fs.writeFile(temp, content, mode === undefined ? {} : { mode });
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

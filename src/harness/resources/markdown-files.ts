import fs from "node:fs/promises";
import path from "node:path";
import { failureDiagnostic, withSource } from "./resource-diagnostics.js";
import type { ResourceDiagnostic } from "./skill-types.js";

/**
 * The `*.md` files of a resource folder: its direct children (not recursive, name order, hidden files
 * skipped), or the path itself when it is a `.md` file; nothing for a missing path. A folder that
 * cannot be listed becomes an `error` diagnostic (with `source`).
 *
 * Contract: async, never rejects.
 *
 * ```ts
 * import type { ResourceDiagnostic } from "agentchart/node";
 * const diagnostics: ResourceDiagnostic[] = [];
 * const files = await listMarkdownFiles("/repo/.agentchart/agents", "project", diagnostics);
 * ```
 */
export async function listMarkdownFiles(
  resolved: string,
  source: string | undefined,
  diagnostics: ResourceDiagnostic[],
): Promise<string[]> {
  let stat: Awaited<ReturnType<typeof fs.stat>>;
  try {
    stat = await fs.stat(resolved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      diagnostics.push(withSource(failureDiagnostic("file_info_failed", resolved, error), source));
    }
    return [];
  }
  if (stat.isFile()) return resolved.toLowerCase().endsWith(".md") ? [resolved] : [];
  if (!stat.isDirectory()) return [];
  try {
    const names = (await fs.readdir(resolved)).filter(
      (name) => !name.startsWith(".") && name.toLowerCase().endsWith(".md"),
    );
    names.sort();
    const files: string[] = [];
    for (const name of names) {
      const filePath = path.join(resolved, name);
      const entryStat = await fs.stat(filePath).catch(() => undefined);
      if (entryStat?.isFile()) files.push(filePath);
    }
    return files;
  } catch (error) {
    diagnostics.push(withSource(failureDiagnostic("list_failed", resolved, error), source));
    return [];
  }
}

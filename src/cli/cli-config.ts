import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { errorText } from "../types/error-text.js";
import { CliError } from "./cli-error.js";

/** The CLI's settings file, in `.agentchart/` of the home folder only. */
export const CLI_CONFIG_FILE = "config.json";

/** What `~/.agentchart/config.json` may say. */
export interface CliConfig {
  /** Built-in tools that run without asking for approval (`["bash"]`); `--yes` trusts them all. */
  trust: string[];
}

/**
 * Reads `<home>/.agentchart/config.json` (`{ "trust": ["write", "edit"] }`); a missing file is the
 * empty configuration. Only the home folder's file counts: a project's own `.agentchart/` comes with
 * the code you run the agent on, and must not be able to switch approvals off.
 *
 * Contract: async; rejects with a `CliError` (exit code 2) naming the file when it cannot be read,
 * is not JSON, or `trust` is not a list of tool names.
 *
 * ```ts
 * import os from "node:os";
 * const { trust } = await loadCliConfig(os.homedir()); // ["bash"]
 * ```
 */
export async function loadCliConfig(home: string): Promise<CliConfig> {
  const path = join(home, ".agentchart", CLI_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { trust: [] };
    throw new CliError(`cannot read ${path}: ${errorText(error)}`, 2);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path} is not valid JSON: ${errorText(error)}`, 2);
  }
  const trust =
    typeof value === "object" && value !== null ? (value as { trust?: unknown }).trust : undefined;
  if (trust === undefined) return { trust: [] };
  if (!Array.isArray(trust) || !trust.every((name) => typeof name === "string")) {
    throw new CliError(`${path}: "trust" must be a list of tool names, like ["bash", "write"]`, 2);
  }
  return { trust };
}

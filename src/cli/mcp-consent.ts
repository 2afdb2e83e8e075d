import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isStdioServer, type McpConfig, type McpStdioServerConfig } from "../mcp/mcp-config.js";
import { errorText } from "../types/error-text.js";
import { CliError } from "./cli-error.js";
import type { CliMcpConfig } from "./mcp-setup.js";
import type { AskLine } from "./tool-approvals.js";

/**
 * Where the CLI remembers the project MCP commands you allowed: `~/.agentchart/mcp-consent.json`,
 * `{ "<project folder>": ["<command>", …] }` — in your home folder, never in the project's.
 */
export const MCP_CONSENT_FILE = "mcp-consent.json";

/** How {@link consentToProjectServers} gets your consent. */
export interface McpConsentOptions {
  home: string;
  /** The project's folder (the CLI's working folder). */
  project: string;
  /** `--yes`: start them without asking (not remembered). */
  yes: boolean;
  /** Asks you (a terminal), or `undefined` when nobody can answer (no terminal, CI). */
  ask: AskLine | undefined;
  warn: (line: string) => void;
}

/**
 * The configuration without the project's servers you did not allow to start. A server that the
 * project's `.agentchart/mcp.json` adds and that starts a command needs your consent the first time:
 * asked (`y` allows and remembers it for this project and this exact command — arguments,
 * environment and folder included — in `~/.agentchart/mcp-consent.json`), given by `--yes` for this
 * run, else the server is left out with a warning saying how to allow it. Servers reached over HTTP
 * start nothing and need no consent (their tools still ask before each call).
 *
 * Contract: async; rejects with a `CliError` (exit code 2) naming the consent file when it cannot be
 * read or written.
 *
 * ```ts
 * import os from "node:os";
 * declare const config: Parameters<typeof consentToProjectServers>[0]; // the project's .mcp.json, read
 * const ask = async (question: string) => (await import("node:readline/promises"))
 *   .createInterface({ input: process.stdin, output: process.stderr }).question(question);
 * const options = { home: os.homedir(), project: process.cwd(), yes: false, ask, warn: console.warn };
 * const allowed = await consentToProjectServers(config, options);
 * ```
 */
export async function consentToProjectServers(
  config: CliMcpConfig,
  options: McpConsentOptions,
): Promise<McpConfig> {
  const mcpServers = { ...config.mcpServers };
  const file = join(options.home, ".agentchart", MCP_CONSENT_FILE);
  let consents: Record<string, string[]> | undefined;
  for (const name of config.fromProject) {
    const entry = mcpServers[name];
    if (!entry || !isStdioServer(entry) || entry.disabled === true || options.yes) continue;
    consents ??= await readConsents(file);
    const command = mcpCommandLine(entry);
    if (consents[options.project]?.includes(command)) continue;
    const answer = await options.ask?.(
      `This project's .agentchart/mcp.json starts the MCP server "${name}": ${command}\nStart it (remembered for this project)? [y/N] `,
    );
    if (answer !== undefined && /^y(es)?$/i.test(answer.trim())) {
      consents[options.project] = [...(consents[options.project] ?? []), command];
      await writeConsents(file, consents);
      continue;
    }
    delete mcpServers[name];
    options.warn(
      `warning: MCP server "${name}" of this project was not started (${command}): ` +
        (answer === undefined
          ? "run agentchart in a terminal to allow it, or pass --yes"
          : "not allowed; you will be asked again next time"),
    );
  }
  return { mcpServers };
}

/**
 * What a stdio server runs, as the one line consent is asked and remembered for: its environment,
 * the command and its arguments (quoted where needed), its folder.
 *
 * Contract: synchronous, pure, never throws.
 *
 * ```ts
 * mcpCommandLine({ command: "npx", args: ["server", "a b"] }); // 'npx server "a b"'
 * ```
 */
export function mcpCommandLine(entry: McpStdioServerConfig): string {
  const words = [entry.command, ...(entry.args ?? [])].map((word) =>
    /^[\w./:@=+-]+$/.test(word) ? word : JSON.stringify(word),
  );
  const env = Object.entries(entry.env ?? {}).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  const where = entry.cwd === undefined ? [] : [`(in ${entry.cwd})`];
  return [...env, ...words, ...where].join(" ");
}

async function readConsents(file: string): Promise<Record<string, string[]>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new CliError(`cannot read ${file}: ${errorText(error)}`, 2);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${errorText(error)}`, 2);
  }
  const valid =
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every(
      (commands) => Array.isArray(commands) && commands.every((command) => typeof command === "string"),
    );
  if (!valid) throw new CliError(`${file}: expected { "<project folder>": ["<command>", …] }`, 2);
  return value as Record<string, string[]>;
}

/** Writes the consents whole (a temporary file renamed over the old one). */
async function writeConsents(file: string, consents: Record<string, string[]>): Promise<void> {
  try {
    await mkdir(join(file, ".."), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(consents, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, file);
  } catch (error) {
    throw new CliError(`cannot write ${file}: ${errorText(error)}`, 2);
  }
}

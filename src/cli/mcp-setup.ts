import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { McpConnection } from "../mcp/connect-mcp-servers.js";
import { type McpConfig, type McpServerConfig, parseMcpConfig } from "../mcp/mcp-config.js";
import { isMcpClientError } from "../mcp/mcp-error.js";
import { errorText } from "../types/error-text.js";
import { CliError } from "./cli-error.js";

/** The MCP configuration file the CLI reads in `.agentchart/` of the home folder and of the project. */
export const MCP_CONFIG_FILE = "mcp.json";

/** The MCP servers the CLI is configured with, and which of them the project's own file added. */
export interface CliMcpConfig extends McpConfig {
  /** Names of the servers `<cwd>/.agentchart/mcp.json` added (the project you run in, not you). */
  fromProject: ReadonlySet<string>;
}

/**
 * The MCP servers the CLI connects to: `<home>/.agentchart/mcp.json`, then `<cwd>/.agentchart/mcp.json`,
 * then `configFile` (`--mcp-config`, relative to `cwd`); a later file's server replaces an earlier one
 * of the same name. The project's file (the one in `cwd`, unless `cwd` is the home folder) comes with
 * the code you run the agent on: it can add servers but never trust them (its `trust` and
 * `requiresApproval` are dropped: their tools ask), and its servers are listed in `fromProject` (its
 * commands start only with your consent, see `consentToProjectServers`). Absent default files are
 * skipped; an absent `--mcp-config` file, unreadable JSON or a malformed configuration is a
 * `CliError` naming the file.
 */
export async function loadCliMcpConfig(
  cwd: string,
  home: string,
  configFile?: string,
): Promise<CliMcpConfig> {
  const userFile = join(home, ".agentchart", MCP_CONFIG_FILE);
  const projectFile = join(cwd, ".agentchart", MCP_CONFIG_FILE);
  const files = [
    { path: userFile, required: false, project: false },
    ...(projectFile === userFile ? [] : [{ path: projectFile, required: false, project: true }]),
    ...(configFile === undefined ? [] : [{ path: resolve(cwd, configFile), required: true, project: false }]),
  ];
  const mcpServers: McpConfig["mcpServers"] = {};
  const fromProject = new Set<string>();
  for (const file of files) {
    const config = await readConfigFile(file.path, file.required);
    for (const [name, entry] of Object.entries(config?.mcpServers ?? {})) {
      if (file.project) {
        const { trust: _trust, requiresApproval: _requiresApproval, ...untrusted } = entry;
        mcpServers[name] = untrusted as McpServerConfig;
        fromProject.add(name);
      } else {
        mcpServers[name] = entry;
        fromProject.delete(name);
      }
    }
  }
  return { mcpServers, fromProject };
}

async function readConfigFile(path: string, required: boolean): Promise<McpConfig | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`cannot read the MCP configuration ${path}: ${errorText(error)}`, 2);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path} is not valid JSON: ${errorText(error)}`, 2);
  }
  try {
    return parseMcpConfig(value, path);
  } catch (error) {
    if (isMcpClientError(error, "invalid_config")) throw new CliError(error.message, 2);
    throw error;
  }
}

/**
 * Connects the configured servers (none configured: `undefined`). Their tools wait for approval
 * unless `yes` (`--yes`) or the entry says `"trust": true` (then the entry's own `requiresApproval`
 * applies). Servers that fail and tools left out or renamed are reported through `warn`.
 */
export async function connectCliMcp(
  config: McpConfig,
  options: { cwd: string; yes: boolean; warn: (line: string) => void },
): Promise<McpConnection | undefined> {
  const entries = Object.entries(config.mcpServers);
  if (entries.length === 0) return undefined;
  const withApprovals = Object.fromEntries(
    entries.map(([name, entry]) => [name, { ...entry, requiresApproval: approvalOf(entry, options.yes) }]),
  );
  // Loaded only when servers are configured: the MCP SDK is an optional peer.
  const { connectMcpServers } = await import("../mcp/connect-mcp-servers.js");
  const connection = await connectMcpServers({ mcpServers: withApprovals }, { cwd: options.cwd });
  for (const diagnostic of connection.diagnostics) {
    // A server's own diagnostic already starts with `MCP server "<name>"`; a tool's names neither.
    const about =
      diagnostic.tool === undefined ? "" : `MCP server "${diagnostic.server}" (tool ${diagnostic.tool}): `;
    options.warn(`warning: ${about}${diagnostic.message}`);
  }
  return connection;
}

function approvalOf(entry: McpServerConfig, yes: boolean): McpServerConfig["requiresApproval"] {
  if (yes) return false;
  if (entry.trust === true) return entry.requiresApproval ?? false;
  return true;
}

/** The banner's MCP part: `mcp: fs (14 tools), web (failed)`. */
export function mcpBanner(connection: McpConnection): string {
  const servers = connection.servers.map((server) =>
    server.state === "connected"
      ? `${server.name} (${server.toolNames.length} tools)`
      : `${server.name} (${server.state})`,
  );
  return `mcp: ${servers.join(", ")}`;
}

/** The lines of `/mcp`: each server with its state, transport and tools (or its error). */
export function describeMcpServers(connection: McpConnection | undefined): string[] {
  if (!connection) return [`no MCP servers (add them to .agentchart/${MCP_CONFIG_FILE} or use --mcp-config)`];
  return connection.servers.flatMap((server) => {
    const transport = server.transport === undefined ? "" : ` over ${server.transport}`;
    const restarts = server.restarts > 0 ? `, ${server.restarts} restarts` : "";
    const head = `${server.name}: ${server.state}${transport}${restarts}`;
    const body =
      server.error !== undefined && server.state !== "connected"
        ? [`  ${server.error.split("\n").join("\n  ")}`]
        : server.toolNames.map((name) => `  ${name}`);
    return [head, ...body];
  });
}

import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { McpConnection } from "../mcp/connect-mcp-servers.js";
import { type McpConfig, type McpServerConfig, parseMcpConfig } from "../mcp/mcp-config.js";
import { isMcpClientError } from "../mcp/mcp-error.js";
import { errorText } from "../types/error-text.js";
import { CliError } from "./cli-error.js";

/** The MCP configuration file the CLI reads in `.agentchart/` of the home folder and of the project. */
export const MCP_CONFIG_FILE = "mcp.json";

/**
 * The MCP servers the CLI connects to: `<home>/.agentchart/mcp.json`, then `<cwd>/.agentchart/mcp.json`,
 * then `configFile` (`--mcp-config`, relative to `cwd`); a later file's server replaces an earlier one
 * of the same name. Absent default files are skipped; an absent `--mcp-config` file, unreadable JSON
 * or a malformed configuration is a `CliError` naming the file.
 */
export async function loadCliMcpConfig(cwd: string, home: string, configFile?: string): Promise<McpConfig> {
  const defaults = [
    ...new Set([join(home, ".agentchart", MCP_CONFIG_FILE), join(cwd, ".agentchart", MCP_CONFIG_FILE)]),
  ];
  const files = [
    ...defaults.map((path) => ({ path, required: false })),
    ...(configFile === undefined ? [] : [{ path: resolve(cwd, configFile), required: true }]),
  ];
  const merged: McpConfig = { mcpServers: {} };
  for (const file of files) {
    const config = await readConfigFile(file.path, file.required);
    if (config) Object.assign(merged.mcpServers, config.mcpServers);
  }
  return merged;
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

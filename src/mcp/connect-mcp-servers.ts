import { readFileSync } from "node:fs";
import { defineJsonSchemaTool, InvalidToolSchemaError } from "../tools/define-json-schema-tool.js";
import type { AgentTool } from "../types/tool.js";
import type { ToolSource } from "../types/tool-source.js";
import { type McpConfig, type McpServerConfig, parseMcpConfig } from "./mcp-config.js";
import type { McpToolDetails } from "./mcp-result.js";
import {
  type McpConnectionSettings,
  McpServerConnection,
  type McpServerState,
  type McpTransportKind,
} from "./mcp-server-connection.js";
import { mcpToolName, uniqueToolName } from "./mcp-tool-names.js";

/** Options of {@link connectMcpServers}. */
export interface ConnectMcpServersOptions {
  /** Milliseconds to wait for a server to start, answer `initialize` and list its tools (default 30 000). */
  connectTimeoutMs?: number;
  /** Milliseconds to wait for each answer; progress restarts the wait (default 60 000). */
  requestTimeoutMs?: number;
  /** How many times a crashed server is started again, on the next call of one of its tools (default 2). */
  maxRestarts?: number;
  /** The folder stdio servers start in; relative `cwd`s are resolved against it (default `process.cwd()`). */
  cwd?: string;
  /**
   * Whether a tool's calls wait for approval, for servers whose entry has no `requiresApproval`
   * (default false).
   */
  requiresApproval?: boolean | ((tool: { server: string; tool: string }) => boolean);
  /** The client name and version sent to servers (default agentchart's). */
  clientInfo?: { name: string; version: string };
}

/** What one server is doing, for status lines and `/mcp`. */
export interface McpServerStatus {
  name: string;
  state: McpServerState;
  /** Why it failed or crashed. */
  error?: string;
  transport?: McpTransportKind;
  /** The process id of a running stdio server. */
  pid?: number;
  restarts: number;
  /** The agent-facing names of its tools. */
  toolNames: string[];
}

/**
 * A problem that left a server or a tool out, or renamed a tool. A server's `message` is a sentence
 * that names it (`MCP server "fs" failed to start: …`); a tool's is relative to `server` and `tool`
 * (`left out: …`, `named "…": …`).
 */
export interface McpDiagnostic {
  server: string;
  tool?: string;
  message: string;
}

/** The connected servers and their tools; see {@link connectMcpServers}. */
export interface McpConnection extends ToolSource {
  /** Every tool of every connected server, named `<server>__<tool>`. */
  readonly tools: AgentTool<Record<string, unknown>, McpToolDetails>[];
  readonly servers: McpServerStatus[];
  /** Servers that failed to start, tools renamed after a collision, tools with an unusable schema. */
  readonly diagnostics: McpDiagnostic[];
  /** Ends every server (stdio child processes included) and stops the change notifications. Idempotent. */
  close(): Promise<void>;
}

const DEFAULTS = { connectTimeoutMs: 30_000, requestTimeoutMs: 60_000, maxRestarts: 2 };
/** How the client introduces itself; `package.json` is two folders up from `src/mcp/` and `dist/mcp/`. */
const CLIENT_INFO = {
  name: "agentchart",
  version: (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
  ).version,
};

/**
 * Connects to the MCP servers of `config` (`{ mcpServers: { name: { command, args?, env?, cwd? } |
 * { url, headers? } } }`; stdio child processes, Streamable HTTP falling back to SSE) in parallel
 * and resolves once each has connected or failed. Their tools become ordinary `AgentTool`s named
 * `<server>__<tool>` (characters OpenAI rejects become `_`; a collision gets `_2`… and a
 * diagnostic), with the server's JSON Schema sent to the model and checked before each call. A
 * server that fails to start is left out with a diagnostic, never a rejection; a crashed one is
 * started again on the next call (`maxRestarts`). `tools/list_changed` updates `tools` and calls the
 * `onToolsChanged` listeners. Rejects with `McpClientError("invalid_config")` for a bad `config`.
 *
 * ```ts
 * import { Agent } from "agentchart";
 * const mcp = await connectMcpServers({
 *   mcpServers: { fs: { command: "npx", args: ["@modelcontextprotocol/server-filesystem", "."] } },
 * });
 * const agent = new Agent({ model, streamFn, tools: mcp.tools });
 * // …
 * await mcp.close();
 * ```
 */
export async function connectMcpServers(
  config: McpConfig,
  options: ConnectMcpServersOptions = {},
): Promise<McpConnection> {
  const parsed = parseMcpConfig(config);
  const connection = new McpServerSet(parsed, options);
  await connection.start();
  return connection;
}

class McpServerSet implements McpConnection {
  readonly #servers: McpServerConnection[];
  readonly #listeners = new Set<(tools: AgentTool[]) => void>();
  readonly #options: ConnectMcpServersOptions;
  #tools: AgentTool<Record<string, unknown>, McpToolDetails>[] = [];
  #toolDiagnostics: McpDiagnostic[] = [];
  #toolNames = new Map<McpServerConnection, string[]>();
  #started = false;
  #closed = false;

  constructor(config: McpConfig, options: ConnectMcpServersOptions) {
    this.#options = options;
    const settings: McpConnectionSettings = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
      maxRestarts: options.maxRestarts ?? DEFAULTS.maxRestarts,
      cwd: options.cwd ?? process.cwd(),
      clientInfo: options.clientInfo ?? CLIENT_INFO,
    };
    this.#servers = Object.entries(config.mcpServers)
      .filter(([, entry]) => entry.disabled !== true)
      .map(([name, entry]) => new McpServerConnection(name, entry, settings, () => this.#onServerTools()));
  }

  async start(): Promise<void> {
    await Promise.all(this.#servers.map((server) => server.start()));
    this.#started = true;
    this.#rebuild();
  }

  get tools(): AgentTool<Record<string, unknown>, McpToolDetails>[] {
    return [...this.#tools];
  }

  get servers(): McpServerStatus[] {
    return this.#servers.map((server) => ({
      name: server.name,
      state: server.state,
      ...(server.error !== undefined ? { error: server.error } : {}),
      ...(server.transport !== undefined ? { transport: server.transport } : {}),
      ...(server.pid !== undefined ? { pid: server.pid } : {}),
      restarts: server.restarts,
      toolNames: [...(this.#toolNames.get(server) ?? [])],
    }));
  }

  get diagnostics(): McpDiagnostic[] {
    const failures = this.#servers
      .filter((server) => server.state === "failed" && server.tools.length === 0)
      .map((server) => ({
        server: server.name,
        message: server.error ?? `MCP server "${server.name}" failed to start`,
      }));
    return [...failures, ...this.#toolDiagnostics];
  }

  onToolsChanged(listener: (tools: AgentTool[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    await Promise.all(this.#servers.map((server) => server.close()));
  }

  /** A server listed its tools (first connection, restart, `list_changed`). */
  #onServerTools(): void {
    if (!this.#started || this.#closed) return;
    this.#rebuild();
    const tools = this.tools;
    for (const listener of this.#listeners) listener(tools);
  }

  /** Builds the agent tools of every server in configuration order, so names are stable. */
  #rebuild(): void {
    const taken = new Set<string>();
    const tools: AgentTool<Record<string, unknown>, McpToolDetails>[] = [];
    const diagnostics: McpDiagnostic[] = [];
    this.#toolNames = new Map();
    for (const server of this.#servers) {
      const names: string[] = [];
      for (const listed of server.tools) {
        const wanted = mcpToolName(server.name, listed.name);
        const name = uniqueToolName(wanted, taken);
        try {
          tools.push(this.#agentTool(server, name, listed));
        } catch (error) {
          if (!(error instanceof InvalidToolSchemaError)) throw error;
          diagnostics.push({ server: server.name, tool: listed.name, message: `left out: ${error.message}` });
          continue;
        }
        if (name !== wanted) {
          diagnostics.push({
            server: server.name,
            tool: listed.name,
            message: `named "${name}": "${wanted}" is taken by another tool`,
          });
        }
        taken.add(name);
        names.push(name);
      }
      for (const { tool, reason } of server.unusableTools) {
        diagnostics.push({
          server: server.name,
          tool,
          message: `left out: its definition is not usable (${reason})`,
        });
      }
      this.#toolNames.set(server, names);
    }
    this.#tools = tools;
    this.#toolDiagnostics = diagnostics;
  }

  #agentTool(
    server: McpServerConnection,
    name: string,
    listed: McpServerConnection["tools"][number],
  ): AgentTool<Record<string, unknown>, McpToolDetails> {
    return defineJsonSchemaTool<Record<string, unknown>, McpToolDetails>({
      name,
      label: listed.title ?? listed.annotations?.title ?? listed.name,
      description: listed.description ?? "",
      parameters: listed.inputSchema,
      requiresApproval: this.#requiresApproval(server.name, server.config, listed.name),
      execute: (args, ctx) => server.callTool(listed.name, args, ctx),
    });
  }

  #requiresApproval(server: string, entry: McpServerConfig, tool: string): boolean {
    const own = entry.requiresApproval;
    if (Array.isArray(own)) return own.includes(tool);
    if (typeof own === "boolean") return own;
    const fallback = this.#options.requiresApproval;
    return typeof fallback === "function" ? fallback({ server, tool }) : fallback === true;
  }
}

import { z } from "zod";
import { McpClientError } from "./mcp-error.js";

/** Fields every server entry may have (see `McpServerCommonConfig`). */
const commonFields = {
  requiresApproval: z.union([z.boolean(), z.array(z.string())]).optional(),
  trust: z.boolean().optional(),
  timeout: z.number().int().positive().optional(),
  disabled: z.boolean().optional(),
};

const stdioServerSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  ...commonFields,
});

const httpServerSchema = z.looseObject({
  type: z.enum(["http", "streamable-http", "streamableHttp", "sse"]).optional(),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
  ...commonFields,
});

const configSchema = z.object({
  mcpServers: z.record(z.string().min(1), z.union([stdioServerSchema, httpServerSchema])),
});

/** The fields every `mcpServers` entry may have besides how to reach the server. */
export interface McpServerCommonConfig {
  /** Tool calls of this server wait for approval: all (`true`), none (`false`) or the tools listed. */
  requiresApproval?: boolean | string[];
  /** Read by the CLI: `true` runs this server's tools without asking. The library ignores it. */
  trust?: boolean;
  /** Milliseconds to wait for the connection and for each answer (default: the options' timeouts). */
  timeout?: number;
  /** `true` leaves the server out. */
  disabled?: boolean;
}

/** A server started as a child process that speaks MCP on its stdin/stdout. */
export interface McpStdioServerConfig extends McpServerCommonConfig {
  type?: "stdio";
  command: string;
  args?: string[];
  /** Added to a minimal default environment (PATH, HOME…), as the MCP SDK does. */
  env?: Record<string, string>;
  /** Relative to the `cwd` option of `connectMcpServers`. */
  cwd?: string;
}

/** A server reached over HTTP: Streamable HTTP falling back to SSE, or only SSE with `type: "sse"`. */
export interface McpHttpServerConfig extends McpServerCommonConfig {
  type?: "http" | "streamable-http" | "streamableHttp" | "sse";
  url: string;
  headers?: Record<string, string>;
}

/** One entry of `mcpServers`. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;
/** The configuration other MCP clients use too: `{ "mcpServers": { name: entry } }`. */
export interface McpConfig {
  mcpServers: Record<string, McpServerConfig>;
}

/** True for an entry that starts a child process. */
export function isStdioServer(config: McpServerConfig): config is McpStdioServerConfig {
  return "command" in config;
}

/**
 * Checks that `value` is an MCP configuration (`{ mcpServers: { name: { command, args?, env?, cwd? }
 * | { url, headers? } } }`, plus `requiresApproval`, `trust`, `timeout`, `disabled`) and returns it.
 * Throws `McpClientError("invalid_config")` listing each problem with its path; `source` (a file
 * name) starts the message.
 */
export function parseMcpConfig(value: unknown, source = "MCP configuration"): McpConfig {
  const parsed = configSchema.safeParse(value);
  if (parsed.success) return parsed.data satisfies McpConfig;
  const problems = parsed.error.issues.map(
    (issue) => `  - ${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`,
  );
  throw new McpClientError("invalid_config", undefined, `${source} is invalid:\n${problems.join("\n")}`);
}

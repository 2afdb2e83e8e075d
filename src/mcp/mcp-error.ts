import { errorText } from "../types/error-text.js";

/** Why an MCP operation failed. */
export type McpErrorCode =
  /** The configuration is not of the expected shape. */
  | "invalid_config"
  /** The server could not be started or connected to. */
  | "connect_failed"
  /** The server did not answer in time. */
  | "timeout"
  /** The server exited or closed the connection. */
  | "server_closed"
  /** The server crashed too often (or failed to restart); its tools are unavailable. */
  | "unavailable"
  /** The tool answered with `isError: true`, or the server answered the call with an error. */
  | "tool_error"
  /** The connection was closed with `close()`. */
  | "closed";

/** A failure of an MCP server or of a call to one of its tools; `server` names the server. */
export class McpClientError extends Error {
  override readonly name = "McpClientError";

  constructor(
    readonly code: McpErrorCode,
    readonly server: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `error` is an {@link McpClientError}, optionally with the given code. */
export function isMcpClientError(error: unknown, code?: McpErrorCode): error is McpClientError {
  return error instanceof McpClientError && (code === undefined || error.code === code);
}

/** `MCP error <code>: ` once or more at the start of a text. */
const REPEATED_CODE_PREFIX = /^(MCP error -?\d+: )\1+/;

/**
 * The text of an error met while talking to an MCP server, with the SDK's `MCP error <code>: `
 * prefix at most once. The SDK adds it to every `McpError` message, and a TypeScript server sends
 * that message as its JSON-RPC error text, so the client's `McpError` reads
 * `MCP error -32602: MCP error -32602: …` without this.
 *
 * Contract: never throws (see `errorText`).
 *
 * ```ts
 * import { McpError } from "@modelcontextprotocol/sdk/types.js";
 * mcpErrorText(new McpError(-32602, "MCP error -32602: out of range")); // "MCP error -32602: out of range"
 * ```
 */
export function mcpErrorText(error: unknown): string {
  return errorText(error).replace(REPEATED_CODE_PREFIX, "$1");
}

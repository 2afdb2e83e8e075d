// `agentchart/mcp`: the tools of Model Context Protocol servers as ordinary AgentTools, on the official
// `@modelcontextprotocol/sdk` client (Node: stdio servers are child processes).
export {
  type ConnectMcpServersOptions,
  connectMcpServers,
  type McpConnection,
  type McpDiagnostic,
  type McpServerStatus,
} from "./mcp/connect-mcp-servers.js";
export {
  isStdioServer,
  type McpConfig,
  type McpHttpServerConfig,
  type McpServerCommonConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  parseMcpConfig,
} from "./mcp/mcp-config.js";
export { isMcpClientError, McpClientError, type McpErrorCode } from "./mcp/mcp-error.js";
export type { McpToolDetails } from "./mcp/mcp-result.js";
export type { McpServerState, McpTransportKind } from "./mcp/mcp-server-connection.js";
export { mcpToolName } from "./mcp/mcp-tool-names.js";

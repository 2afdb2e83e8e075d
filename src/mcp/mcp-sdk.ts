import { importOptionalPeer } from "../types/optional-peer.js";

// The MCP SDK (`@modelcontextprotocol/sdk`) is an optional peer of agentchart, loaded when
// `agentchart/mcp` is imported; the import then fails with a message naming the package to install
// when it is missing. Only the values are loaded here; types are imported from the SDK directly.

const sdk = "@modelcontextprotocol/sdk";
const neededBy = "agentchart/mcp";
const [client, sse, stdio, streamableHttp, types] = await Promise.all([
  importOptionalPeer<typeof import("@modelcontextprotocol/sdk/client/index.js")>(
    sdk,
    neededBy,
    `${sdk}/client/index.js`,
  ),
  importOptionalPeer<typeof import("@modelcontextprotocol/sdk/client/sse.js")>(
    sdk,
    neededBy,
    `${sdk}/client/sse.js`,
  ),
  importOptionalPeer<typeof import("@modelcontextprotocol/sdk/client/stdio.js")>(
    sdk,
    neededBy,
    `${sdk}/client/stdio.js`,
  ),
  importOptionalPeer<typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js")>(
    sdk,
    neededBy,
    `${sdk}/client/streamableHttp.js`,
  ),
  importOptionalPeer<typeof import("@modelcontextprotocol/sdk/types.js")>(sdk, neededBy, `${sdk}/types.js`),
]);

/** The SDK's client, transports and error values that the MCP connection uses. */
export const mcpSdk = {
  Client: client.Client,
  SSEClientTransport: sse.SSEClientTransport,
  StdioClientTransport: stdio.StdioClientTransport,
  StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
  ErrorCode: types.ErrorCode,
  McpError: types.McpError,
  ToolSchema: types.ToolSchema,
};

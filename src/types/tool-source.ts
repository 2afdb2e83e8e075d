import type { AgentTool } from "./tool.js";

/**
 * A set of tools that can change while it is in use, such as the tools of connected MCP servers
 * (`connectMcpServers` in `agentchart/mcp` returns one). The harness lists `tools` next to its own
 * and applies each change between runs.
 */
export interface ToolSource {
  /** The tools as they are now. */
  readonly tools: AgentTool[];
  /**
   * Calls `listener` with the new tool list after every change; returns a function that stops the
   * calls. The listener must not throw.
   */
  onToolsChanged(listener: (tools: AgentTool[]) => void): () => void;
}

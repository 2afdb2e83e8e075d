import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ImageContent, TextContent } from "../types/messages.js";
import type { ToolResult } from "../types/tool.js";

/** The `details` of an MCP tool result. */
export interface McpToolDetails {
  /** The server's name in the configuration. */
  server: string;
  /** The tool's name on the server. */
  tool: string;
  /** The result's `structuredContent`, when the server sent one. */
  structuredContent?: Record<string, unknown>;
}

type McpContentBlock = CallToolResult["content"][number];

/** One MCP content block as agent content: text and images as they are, the rest as text. */
function toContent(block: McpContentBlock): TextContent | ImageContent {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", data: block.data, mimeType: block.mimeType };
    case "audio":
      return { type: "text", text: `[audio (${block.mimeType}), ${block.data.length} base64 characters]` };
    case "resource_link": {
      const about = block.description ? `: ${block.description}` : "";
      return { type: "text", text: `[resource link ${block.uri}] ${block.name}${about}` };
    }
    case "resource": {
      const { resource } = block;
      const kind = resource.mimeType ? ` (${resource.mimeType})` : "";
      if ("text" in resource)
        return { type: "text", text: `[resource ${resource.uri}${kind}]\n${resource.text}` };
      return {
        type: "text",
        text: `[resource ${resource.uri}${kind}: ${resource.blob.length} base64 characters of binary data]`,
      };
    }
  }
}

/**
 * The agent result of an MCP `tools/call` answer: content blocks mapped by {@link toContent}
 * (`structuredContent` as JSON text when the server sent no content), `structuredContent` in
 * `details`.
 */
export function toToolResult(
  server: string,
  tool: string,
  result: CallToolResult,
): ToolResult<McpToolDetails> {
  const content = (result.content ?? []).map(toContent);
  if (content.length === 0 && result.structuredContent !== undefined) {
    content.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  }
  const details: McpToolDetails = { server, tool };
  if (result.structuredContent !== undefined) details.structuredContent = result.structuredContent;
  return { content, details };
}

/** The text of an error result (`isError: true`): its text blocks, else a generic sentence. */
export function errorResultText(server: string, tool: string, result: CallToolResult): string {
  const text = toToolResult(server, tool, result)
    .content.filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n")
    .trim();
  return text === "" ? `The tool ${tool} of MCP server "${server}" failed without a message` : text;
}

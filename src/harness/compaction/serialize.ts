import { isBashExecution } from "../../loop/token-estimate.js";
import type { AgentMessage, ImageContent, TextContent } from "../../types/index.js";

/** Tool results and command outputs longer than this are cut in a transcript. */
export const MAX_TOOL_RESULT_CHARS = 2000;

function truncate(text: string, max = MAX_TOOL_RESULT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[... ${text.length - max} more characters truncated]`;
}

function contentText(content: string | readonly (TextContent | ImageContent)[]): string {
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");
}

function toolCallText(name: string, args: Record<string, unknown> | undefined): string {
  const params = Object.entries(args ?? {}).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return `${name}(${params.join(", ")})`;
}

/**
 * A readable transcript of messages for a summarising model, one block per part, blocks separated by
 * blank lines: `[User]: …`, `[Assistant thinking]: …`, `[Assistant]: …`,
 * `[Assistant tool calls]: read(path="a.ts"); …`, `[Tool result]: …` / `[Tool error]: …` (cut after
 * 2,000 characters with "[... N more characters truncated]"), `[Custom message (type)]: …`,
 * `[Branch summary]: …`, `[Earlier summary]: …`, `[User ran command]: $ cmd …`. Images show as
 * `[image]`; unknown roles are left out.
 */
export function serializeConversation(messages: readonly AgentMessage[]): string {
  const blocks: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        blocks.push(`[User]: ${contentText(message.content)}`);
        break;
      case "assistant": {
        const calls: string[] = [];
        for (const block of message.content) {
          if (block.type === "thinking") {
            if (block.thinking && !block.redacted) blocks.push(`[Assistant thinking]: ${block.thinking}`);
          } else if (block.type === "text") {
            if (block.text) blocks.push(`[Assistant]: ${block.text}`);
          } else {
            calls.push(toolCallText(block.name, block.arguments));
          }
        }
        if (calls.length > 0) blocks.push(`[Assistant tool calls]: ${calls.join("; ")}`);
        if (message.stopReason === "error" || message.stopReason === "aborted") {
          blocks.push(`[Assistant ${message.stopReason}]: ${message.errorMessage ?? "no details"}`);
        }
        break;
      }
      case "toolResult":
        blocks.push(
          `[${message.isError ? "Tool error" : "Tool result"}]: ${truncate(contentText(message.content))}`,
        );
        break;
      case "custom":
        blocks.push(`[Custom message (${message.customType})]: ${contentText(message.content)}`);
        break;
      case "branchSummary":
        blocks.push(`[Branch summary]: ${message.summary}`);
        break;
      case "compactionSummary":
        blocks.push(`[Earlier summary]: ${message.summary}`);
        break;
      default: {
        const other: unknown = message;
        if (isBashExecution(other)) {
          const status = other.cancelled ? " (cancelled)" : other.exitCode ? ` (exit ${other.exitCode})` : "";
          blocks.push(`[User ran command]: $ ${other.command}${status}\n${truncate(other.output)}`);
        }
      }
    }
  }
  return blocks.join("\n\n");
}

import type { ToolCall } from "../types/messages.js";
import type { ToolCallOutcome } from "./agent-context.js";
import { errorToolResult } from "./messages.js";

/** The outcome of a call that failed or never ran: an error result made of `text`. */
export function errorOutcome(toolCall: ToolCall, text: string): ToolCallOutcome {
  return { toolCall, result: errorToolResult(text), isError: true };
}

import type { ToolCallOutcome } from "../machines/agent/agent.context.js";
import type { ToolCall } from "../types/messages.js";
import type { ToolResult } from "../types/tool.js";
import { errorToolResult } from "./messages.js";

/** The outcome of a call that failed or never ran: an error result made of `text`. */
export function errorOutcome(toolCall: ToolCall, text: string): ToolCallOutcome {
  return { toolCall, result: errorToolResult(text), isError: true };
}

/** The one text of a denied call: "Tool call denied", then the reason when one was given. */
export function deniedText(reason?: string): string {
  return `Tool call denied${reason ? `: ${reason}` : ""}`;
}

/** The outcome of a call whose approval was refused. */
export function deniedOutcome(toolCall: ToolCall, reason?: string): ToolCallOutcome {
  return errorOutcome(toolCall, deniedText(reason));
}

/** The outcome of a client tool's call from the client's answer (a malformed answer is an error result). */
export function clientAnswerOutcome(
  toolCall: ToolCall,
  answer: { result: ToolResult; isError?: boolean },
): ToolCallOutcome {
  const result = answer.result as Partial<ToolResult> | undefined;
  if (typeof result !== "object" || result === null || !Array.isArray(result.content))
    return errorOutcome(toolCall, `The client's answer to tool call "${toolCall.name}" has no content`);
  return { toolCall, result: result as ToolResult, isError: answer.isError === true };
}

import type { AgentEvent } from "../types/events.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage, Usage } from "../types/messages.js";
import { emptyUsage } from "../types/messages.js";
import type { RunResult } from "../types/output.js";
import type { ToolResult } from "../types/tool.js";
import { messageText } from "./messages.js";

/**
 * Whether a child's own event is also its call's progress (`tool_execution_update`): each reply it
 * finished and each tool execution it started or ended.
 */
export function isSubAgentProgress(event: AgentEvent): boolean {
  if (event.type === "message_end") return (event.message as { role?: string }).role === "assistant";
  return event.type === "tool_execution_start" || event.type === "tool_execution_end";
}

/**
 * The usage of a run's messages: every assistant reply's, plus what tool results carry (an agent
 * tool's result carries its child's total, so totals roll up the whole tree).
 *
 * Contract: pure; messages without usage count zero.
 *
 * ```ts
 * runUsage(agent.state.messages).totalTokens;
 * ```
 */
export function runUsage(messages: readonly AgentMessage[]): Usage {
  const total = emptyUsage();
  for (const message of messages) {
    const role = (message as { role?: string }).role;
    const usage =
      role === "assistant"
        ? (message as AssistantMessage).usage
        : role === "toolResult"
          ? (message as ToolResultMessage).usage
          : undefined;
    if (!usage) continue;
    total.input += usage.input;
    total.output += usage.output;
    total.cacheRead += usage.cacheRead;
    total.cacheWrite += usage.cacheWrite;
    total.totalTokens += usage.totalTokens;
    total.cost.input += usage.cost.input;
    total.cost.output += usage.cost.output;
    total.cost.cacheRead += usage.cost.cacheRead;
    total.cost.cacheWrite += usage.cost.cacheWrite;
    total.cost.total += usage.cost.total;
  }
  return total;
}

/**
 * The default tool result of a sub-agent's run: its typed output as JSON, else its last assistant
 * text; a run that did not end normally (an error, an abort, a guardrail, a budget's stop) is an error
 * result saying how it ended (a budget's stop with the limit, from its last reply's error text).
 *
 * Contract: pure; never throws.
 */
export function defaultSubAgentResult(
  name: string,
  result: RunResult,
): { result: ToolResult; isError: boolean } {
  const last = result.messages.findLast(
    (m): m is AssistantMessage => (m as AssistantMessage).role === "assistant",
  );
  const stop = result.stopReason;
  if (stop === "error" || stop === "aborted" || stop === "guardrail" || stop === "budget") {
    const why =
      result.error?.message ??
      result.guardrail?.reason ??
      (stop === "budget" ? last?.errorMessage : undefined) ??
      stop;
    return { result: textResult(`Sub-agent "${name}" ended with ${stop}: ${why}`), isError: true };
  }
  if (result.output !== undefined)
    return { result: textResult(JSON.stringify(result.output)), isError: false };
  return { result: textResult(last ? messageText(last) : ""), isError: false };
}

export function textResult(text: string): ToolResult {
  return { content: [{ type: "text", text }] };
}

import { messageText } from "../loop/messages.js";
import type { AgentMessage } from "../types/messages.js";
import type { AgUiMessage } from "./ag-ui-events.js";

/**
 * The transcript as AG-UI messages (for `MESSAGES_SNAPSHOT`): message `i` gets id `${prefix}${i}`,
 * the id {@link AgUiTranslator} gives it while it streams. Assistant messages carry their tool calls
 * (arguments as JSON text), tool results become `tool` messages; thinking and app-defined messages are
 * left out (their places still count, so ids stay stable).
 *
 * Contract: pure, synchronous, never throws.
 *
 * ```ts
 * const snapshot = { type: "MESSAGES_SNAPSHOT", messages: toAgUiMessages(agent.state.messages) };
 * ```
 */
export function toAgUiMessages(messages: readonly AgentMessage[], prefix = "m"): AgUiMessage[] {
  const converted: AgUiMessage[] = [];
  messages.forEach((message, index) => {
    const id = `${prefix}${index}`;
    switch ((message as { role?: string }).role) {
      case "user":
        converted.push({ id, role: "user", content: messageText(message) });
        break;
      case "assistant": {
        if (message.role !== "assistant") break;
        const text = messageText(message) || message.errorMessage || "";
        const toolCalls = message.content.flatMap((block) =>
          block.type === "toolCall"
            ? [
                {
                  id: block.id,
                  type: "function" as const,
                  function: { name: block.name, arguments: JSON.stringify(block.arguments) },
                },
              ]
            : [],
        );
        converted.push({
          id,
          role: "assistant",
          ...(text ? { content: text } : {}),
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
        });
        break;
      }
      case "toolResult":
        if (message.role !== "toolResult") break;
        converted.push({
          id,
          role: "tool",
          toolCallId: message.toolCallId,
          content: messageText(message),
          metadata: { agentchart: { isError: message.isError } },
        });
        break;
    }
  });
  return converted;
}

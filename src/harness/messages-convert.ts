import type { BashExecutionMessage } from "../types/harness-messages.js";
import type { AgentMessage, AssistantMessage, Message, TextContent, UserMessage } from "../types/messages.js";

/** Text before a compaction summary when it is sent to the model (pi's wording). */
export const COMPACTION_SUMMARY_PREFIX =
  "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";
/** Text before a branch summary when it is sent to the model (pi's wording). */
export const BRANCH_SUMMARY_PREFIX =
  "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
export const BRANCH_SUMMARY_SUFFIX = "</summary>";

/** How a user-run shell command is shown to the model: the command, its output and how it ended. */
export function bashExecutionToText(message: BashExecutionMessage): string {
  let text = `Ran \`${message.command}\`\n`;
  text += message.output ? `\`\`\`\n${message.output}\n\`\`\`` : "(no output)";
  if (message.cancelled) text += "\n\n(command cancelled)";
  else if (message.exitCode !== undefined && message.exitCode !== null && message.exitCode !== 0) {
    text += `\n\nCommand exited with code ${message.exitCode}`;
  }
  if (message.truncated && message.fullOutputPath) {
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
  }
  return text;
}

function userText(text: string, timestamp: number): UserMessage {
  return { role: "user", content: [{ type: "text", text } satisfies TextContent], timestamp };
}

/**
 * The harness's `convertToLlm`: user, assistant and tool result messages pass through;
 * `bashExecution` (unless `excludeFromContext`), `custom`, `branchSummary` and `compactionSummary`
 * become user messages with pi's texts. Assistant messages that failed (`stopReason: "error"`) without
 * any tool call are left out: they carry no answer, and a retried turn must not show them to the model
 * again after a reopen. Other app-defined roles are dropped.
 */
export function convertHarnessMessagesToLlm(messages: AgentMessage[]): Message[] {
  const converted: Message[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
      case "toolResult":
        converted.push(message);
        break;
      case "assistant":
        if (!isFailedWithoutToolCalls(message)) converted.push(message);
        break;
      case "bashExecution":
        if (!message.excludeFromContext)
          converted.push(userText(bashExecutionToText(message), message.timestamp));
        break;
      case "custom":
        converted.push({
          role: "user",
          content:
            typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
          timestamp: message.timestamp,
        });
        break;
      case "branchSummary":
        converted.push(
          userText(`${BRANCH_SUMMARY_PREFIX}${message.summary}${BRANCH_SUMMARY_SUFFIX}`, message.timestamp),
        );
        break;
      case "compactionSummary":
        converted.push(
          userText(
            `${COMPACTION_SUMMARY_PREFIX}${message.summary}${COMPACTION_SUMMARY_SUFFIX}`,
            message.timestamp,
          ),
        );
        break;
    }
  }
  return converted;
}

function isFailedWithoutToolCalls(message: AssistantMessage): boolean {
  return message.stopReason === "error" && !message.content.some((block) => block.type === "toolCall");
}

import type { ToolResult } from "../types/tool.js";
import type { AgUiMessage, RunAgentInput } from "./ag-ui-events.js";

/** A client's answer to a call of a client tool, read from a run input. */
export interface ClientAnswer {
  toolCallId: string;
  result: ToolResult;
  isError: boolean;
}

/**
 * The answers a run input gives to calls of client tools: its `tool` messages for which `isNew` holds
 * (the content is the result's text; a message with `error` is an error result), then its `resume`
 * entries that name a call in `waitingIds` (`resolved`: the payload — a string, `{ content }`, or any
 * JSON as its text; `cancelled`: an error result). One answer per call, the first given.
 *
 * Contract: pure, synchronous, never throws.
 *
 * ```ts
 * clientAnswersIn(input, (message) => !seen.has(message.id), new Set(["call_1"]));
 * ```
 */
export function clientAnswersIn(
  input: RunAgentInput,
  isNew: (message: AgUiMessage) => boolean,
  waitingIds: ReadonlySet<string>,
): ClientAnswer[] {
  const answers = new Map<string, ClientAnswer>();
  for (const message of input.messages) {
    if (message.role !== "tool" || !isNew(message) || answers.has(message.toolCallId)) continue;
    const text =
      typeof message.content === "string" && message.content !== "" ? message.content : message.error;
    answers.set(message.toolCallId, {
      toolCallId: message.toolCallId,
      result: textResult(text ?? ""),
      isError: message.error !== undefined,
    });
  }
  for (const entry of input.resume ?? []) {
    if (!waitingIds.has(entry.interruptId) || answers.has(entry.interruptId)) continue;
    answers.set(entry.interruptId, {
      toolCallId: entry.interruptId,
      result: textResult(
        entry.status === "cancelled" ? "The client cancelled the call" : payloadText(entry.payload),
      ),
      isError: entry.status === "cancelled",
    });
  }
  return [...answers.values()];
}

function textResult(text: string): ToolResult {
  return { content: [{ type: "text", text }] };
}

function payloadText(payload: unknown): string {
  if (typeof payload === "string") return payload;
  const content = (payload as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  return JSON.stringify(payload ?? null);
}

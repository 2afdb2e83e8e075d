import type { SessionEntry } from "../storage/entries.js";
import type { Session } from "../storage/session.js";
import { errorText } from "../types/error-text.js";
import type { AgentLoopConfig } from "../types/loop.js";
import type { AgentTool } from "../types/tool.js";

/** `customType` of the journal entry appended before a tool executes (a `custom` entry: pi skips it). */
export const TOOL_CALL_JOURNAL_TYPE = "agentchart.tool_call";

/**
 * What to do with a call that started (it has a journal entry) but has no result after a crash:
 * `"safe"` runs it again with the same idempotency key; `"never"` (default) answers it with an error
 * result saying it was interrupted and not re-run.
 */
export type ToolReplayPolicy = "safe" | "never";

/** The data of a journal entry. */
export interface ToolCallJournalData {
  toolCallId: string;
  toolName: string;
  replay: ToolReplayPolicy;
  /** Stable per call: a replay passes the same key, so a tool can make its side effect idempotent. */
  idempotencyKey: string;
}

/** A tool's replay policy: its `replay` field when that is `"safe"`, else `"never"`. */
export function toolReplayPolicy(tool: AgentTool | undefined): ToolReplayPolicy {
  return tool?.replay === "safe" ? "safe" : "never";
}

/** The idempotency key of a call in a session. */
export function idempotencyKeyOf(sessionId: string, toolCallId: string): string {
  return `${sessionId}:${toolCallId}`;
}

/**
 * Appends the journal entry of a call and resolves once it is stored (write-ahead: the tool runs
 * only after its entry is durable as the session's storage makes it).
 * @throws SessionError when the session cannot store it.
 */
export async function journalToolCall(
  session: Session,
  toolCall: { id: string; name: string },
  tool: AgentTool | undefined,
): Promise<ToolCallJournalData> {
  const data: ToolCallJournalData = {
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    replay: toolReplayPolicy(tool),
    idempotencyKey: idempotencyKeyOf(session.id, toolCall.id),
  };
  await session.appendCustom(TOOL_CALL_JOURNAL_TYPE, data);
  return data;
}

/** The journal data of an entry, if it is a journal entry. */
export function journalDataOf(entry: SessionEntry): ToolCallJournalData | undefined {
  if (entry.type !== "custom" || entry.customType !== TOOL_CALL_JOURNAL_TYPE) return undefined;
  const data = entry.data as Partial<ToolCallJournalData> | undefined;
  return typeof data?.toolCallId === "string" ? (data as ToolCallJournalData) : undefined;
}

type BeforeToolCall = NonNullable<AgentLoopConfig["beforeToolCall"]>;

/**
 * Wraps the run's `beforeToolCall` (the `tool_call` hook, if any) so that a call the hook lets
 * through is journaled before it executes. A journal entry that cannot be stored blocks the call
 * (its side effect must not happen unrecorded).
 */
export function journalingBeforeToolCall(
  session: Session,
  tools: () => readonly AgentTool[],
  inner: BeforeToolCall | undefined,
): BeforeToolCall {
  return async (context, signal) => {
    const verdict = inner ? await inner(context, signal) : undefined;
    if (verdict?.block) return verdict;
    const tool = tools().find((candidate) => candidate.name === context.toolCall.name);
    try {
      await journalToolCall(session, context.toolCall, tool);
    } catch (error) {
      return { block: true, reason: `The tool call could not be journaled: ${errorText(error)}` };
    }
    return verdict;
  };
}

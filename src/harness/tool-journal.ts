import { idempotencyKeyOf } from "../loop/idempotency-key.js";
import type { SessionEntry } from "../storage/entries.js";
import type { Session } from "../storage/session.js";
import { errorText } from "../types/error-text.js";
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
  /**
   * `"executing"`: written right before the tool ran (after its preflight and approval). Entries of
   * agentchart 0.2.0 have none: they were written before the approval.
   */
  stage?: "executing";
}

/** A tool's replay policy: its `replay` field when that is `"safe"`, else `"never"`. */
export function toolReplayPolicy(tool: AgentTool | undefined): ToolReplayPolicy {
  return tool?.replay === "safe" ? "safe" : "never";
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
    stage: "executing",
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

const journaled = new WeakMap<Session, WeakMap<AgentTool, AgentTool>>();

/**
 * `tool` with an `execute` that first journals the call in `session` (the `"executing"` entry that
 * `resume()` reads after a crash) — so the entry is written exactly when the tool's body is about to
 * run, after the preflight, the `tool_call` hook and the approval. A journal entry that cannot be
 * stored fails the call before its side effect (the error result says so). The same wrapped object is
 * returned for the same tool and session. Client tools are returned as they are (the agent never runs them).
 */
export function journaledTool(session: Session, tool: AgentTool): AgentTool {
  if (tool.client) return tool;
  let bySession = journaled.get(session);
  if (!bySession) {
    bySession = new WeakMap();
    journaled.set(session, bySession);
  }
  const known = bySession.get(tool);
  if (known) return known;
  const wrapped: AgentTool = {
    ...tool,
    execute: async (args, ctx) => {
      try {
        await journalToolCall(session, { id: ctx.toolCallId, name: tool.name }, tool);
      } catch (error) {
        throw new Error(`The tool call could not be journaled: ${errorText(error)}`);
      }
      return tool.execute(args, ctx);
    },
  };
  bySession.set(tool, wrapped);
  return wrapped;
}

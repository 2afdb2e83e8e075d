import { toolCallsOf } from "../loop/messages.js";
import { INTERRUPTED_CALL_TEXT } from "../loop/tool-batch.js";
import type { ResumedCallState } from "../machines/agent/agent.events.js";
import type { Session } from "../storage/session.js";
import type { AgentMessage, AssistantMessage, ToolCall } from "../types/messages.js";
import type { AgentTool } from "../types/tool.js";
import { journalDataOf, type ToolCallJournalData } from "./tool-journal.js";

/** The text of the error result of a started call whose tool may not run twice (the machine's one text). */
export const INTERRUPTED_NOT_RERUN = INTERRUPTED_CALL_TEXT;

/** A call of the last assistant message that has no result in the session. */
export interface PendingToolCall {
  toolCall: ToolCall;
  /** Its journal entry: the call had started executing when the run was interrupted. */
  journal: ToolCallJournalData | undefined;
}

/** Where an interrupted run stopped: its unanswered calls, and whether the model must be asked again. */
export interface ResumePlan {
  assistant: AssistantMessage | undefined;
  pending: PendingToolCall[];
  /** False when the branch ends with a final assistant reply (or holds no message): nothing to do. */
  needsModel: boolean;
}

/**
 * Reads the current branch of `session` to see where a run stopped: the last assistant message's
 * tool calls without a `toolResult` after it (with their journal entries, if they had started), and
 * whether a model call is due (a user or tool-result tail, or calls to answer).
 */
export function planResume(session: Session): ResumePlan {
  const branch = session.getBranch();
  let assistantAt = -1;
  let lastMessage: AgentMessage | undefined;
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!;
    if (entry.type !== "message") continue;
    lastMessage ??= entry.message;
    if (entry.message.role === "assistant") {
      assistantAt = i;
      break;
    }
  }
  if (lastMessage === undefined) return { assistant: undefined, pending: [], needsModel: false };
  const assistantEntry = assistantAt === -1 ? undefined : branch[assistantAt];
  const assistant =
    assistantEntry?.type === "message" ? (assistantEntry.message as AssistantMessage) : undefined;
  const answered = new Set<string>();
  const journals = new Map<string, ToolCallJournalData>();
  for (const entry of branch.slice(assistantAt + 1)) {
    if (entry.type === "message" && entry.message.role === "toolResult")
      answered.add(entry.message.toolCallId);
    const journal = journalDataOf(entry);
    if (journal) journals.set(journal.toolCallId, journal);
  }
  const pending = (assistant ? toolCallsOf(assistant) : [])
    .filter((call) => !answered.has(call.id))
    .map((toolCall) => ({ toolCall, journal: journals.get(toolCall.id) }));
  return { assistant, pending, needsModel: pending.length > 0 || lastMessage.role !== "assistant" };
}

/**
 * A decision on a call that was waiting for approval when its run was persisted: approved runs it,
 * denied answers it with the error result "Tool call denied: <reason>".
 */
export type ToolCallDecision = { approved: true } | { approved: false; reason?: string };

/**
 * How each pending call goes on when the agent machine answers it (`agent.resumeToolCalls`):
 * - never started (no journal entry): `"pending"` — the whole preflight, hooks and approval included,
 *   so a call of an approval tool waits for a decision again and never runs unasked;
 * - started (journaled right before its tool ran): `"approved"` when its tool is `replay: "safe"` (it
 *   runs again with the journaled `ctx.idempotencyKey`, without asking again), else `"interrupted"`;
 * - an entry written by agentchart 0.2.0 (which journaled before approval, so it cannot tell an
 *   approved call from one still waiting) of a tool that requires approval: `"pending"` — asking a
 *   person again is safe, answering "interrupted" would lose the call they were about to approve.
 */
export function resumedCallStates(
  pending: readonly PendingToolCall[],
  tools: readonly AgentTool[],
): Record<string, ResumedCallState> {
  const states: Record<string, ResumedCallState> = {};
  for (const { toolCall, journal } of pending) {
    const tool = tools.find((candidate) => candidate.name === toolCall.name);
    const asksApproval = tool?.requiresApproval !== undefined && tool.requiresApproval !== false;
    const legacyEntry = journal !== undefined && journal.stage === undefined;
    if (journal === undefined || (legacyEntry && asksApproval)) states[toolCall.id] = "pending";
    else states[toolCall.id] = journal.replay === "safe" ? "approved" : "interrupted";
  }
  return states;
}

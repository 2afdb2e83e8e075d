import { validateToolCall } from "../actors/tool-step.actors.js";
import { type CallAddress, callKey, callOfKey } from "../commands/addressed-command.js";
import { planResume, type ToolCallDecision } from "../harness/resume-run.js";
import type { Session } from "../storage/session.js";
import type { ToolCall } from "../types/messages.js";
import type { AgentTool } from "../types/tool.js";
import type { DecisionCommand } from "./run-store.js";

/**
 * `customType` of the entry a worker stores before a decision on a call waiting for approval takes
 * effect: from then on the call may have started (approved) or is answered (denied).
 */
export const DECISION_ENTRY_TYPE = "agentchart.tool_decision";

/**
 * The data of a decision entry: a sub-agent's call has its `agentPath`; `requestId` names the
 * approval request it answered (absent in entries of earlier versions).
 */
export interface DecisionEntryData extends CallAddress {
  decision: ToolCallDecision;
  requestId?: string;
}

/** A decision command and the approval request it answers (as its row was bound when stored). */
export interface BoundDecision {
  command: DecisionCommand;
  requestId?: string;
}

/**
 * Stores a decision entry for each decision command and resolves once they are stored (one append
 * batch): from then on the call may have started (approved) or is answered (denied).
 * Contract: async; rejects with a `SessionError` when the session cannot store them.
 *
 * ```ts
 * await recordDecisions(session, [{ command: { type: "APPROVE_TOOL", toolCallId: "call-1" } }]);
 * ```
 */
export async function recordDecisions(session: Session, decisions: readonly BoundDecision[]): Promise<void> {
  const stored = decisions.map(({ command, requestId }) =>
    session.appendCustom(DECISION_ENTRY_TYPE, {
      ...callOfKey(callKey(command)),
      decision: decisionOf(command),
      ...(requestId === undefined ? {} : { requestId }),
    } satisfies DecisionEntryData),
  );
  await Promise.all(stored);
}

/** What a decision command decides, as a decision entry stores it. Contract: pure. */
function decisionOf(command: DecisionCommand): ToolCallDecision {
  if (command.type === "APPROVE_TOOL") return { approved: true };
  return command.reason === undefined ? { approved: false } : { approved: false, reason: command.reason };
}

/**
 * The command a stored decision entry (by `callKey`) stands for: what a worker sends again when it
 * finishes the run.
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * decisionCommand("s1/r1", { approved: false, reason: "no" });
 * // { type: "DENY_TOOL", toolCallId: "r1", agentPath: ["s1"], reason: "no" }
 * ```
 */
export function decisionCommand(key: string, decision: ToolCallDecision): DecisionCommand {
  const call = callOfKey(key);
  if (decision.approved) return { type: "APPROVE_TOOL", ...call };
  return {
    type: "DENY_TOOL",
    ...call,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
  };
}

/**
 * The decisions stored in the session's current branch since its last assistant message (those of
 * the calls that may still wait), by `callKey` (a root call's key is its id; the last decision
 * counts): a decision on an earlier reply's call never answers a later call under the same id.
 * Contract: synchronous, never throws.
 */
export function storedDecisions(session: Session): Map<string, ToolCallDecision> {
  const decisions = new Map<string, ToolCallDecision>();
  for (const entry of session.getBranch()) {
    if (entry.type === "message" && entry.message.role === "assistant") decisions.clear();
    if (entry.type !== "custom" || entry.customType !== DECISION_ENTRY_TYPE) continue;
    const data = entry.data as Partial<DecisionEntryData> | undefined;
    if (typeof data?.toolCallId !== "string" || typeof data.decision?.approved !== "boolean") continue;
    const agentPath = Array.isArray(data.agentPath) ? data.agentPath : undefined;
    decisions.set(
      callKey({ toolCallId: data.toolCallId, ...(agentPath ? { agentPath } : {}) }),
      data.decision,
    );
  }
  return decisions;
}

/** Whether the tool asks for approval of this call (evaluated on the arguments the model sent). */
function needsApproval(toolCall: ToolCall, tools: readonly AgentTool[]): boolean {
  const tool = tools.find((candidate) => candidate.name === toolCall.name);
  const validated = validateToolCall(toolCall, tool);
  if (!validated.ok) return false; // answered with the validation error when the run goes on
  const requiresApproval = tool?.requiresApproval;
  try {
    return typeof requiresApproval === "function"
      ? requiresApproval(validated.args as never)
      : requiresApproval === true;
  } catch {
    return true; // cannot tell: the call waits for a human rather than run unasked
  }
}

/**
 * The calls of an interrupted run that still wait for approval: unanswered calls of the last
 * assistant message whose tool requires approval and that have no stored decision — whether or not
 * their journal entry was stored (a call is journaled before its approval wait). A worker that died
 * between the approval request and parking the run left these; they must not run, nor be reported
 * "interrupted", before someone decides. Contract: synchronous, never throws.
 *
 * ```ts
 * const waiting = callsAwaitingApproval(session, harness.tools); // ["call-1"]
 * ```
 */
export function callsAwaitingApproval(session: Session, tools: readonly AgentTool[]): string[] {
  const decided = storedDecisions(session);
  return planResume(session)
    .pending.filter(({ toolCall }) => !decided.has(toolCall.id) && needsApproval(toolCall, tools))
    .map(({ toolCall }) => toolCall.id);
}

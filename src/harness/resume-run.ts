import type { ToolCallOutcome } from "../loop/agent-context.js";
import { toolCallsOf, toolResultMessage } from "../loop/messages.js";
import { executeToolCall, validateToolCall } from "../loop/tool-call-steps.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import type { Session } from "../storage/session.js";
import { errorText } from "../types/error-text.js";
import type { AgentContext } from "../types/loop.js";
import type { AgentMessage, AssistantMessage, ToolCall } from "../types/messages.js";
import type { AgentTool } from "../types/tool.js";
import {
  idempotencyKeyOf,
  journalDataOf,
  journalToolCall,
  type ToolCallJournalData,
} from "./tool-journal.js";

/** The text of the error result of a started call whose tool may not run twice. */
export const INTERRUPTED_NOT_RERUN = "interrupted, not re-run";

/** A call of the last assistant message that has no result in the session. */
export interface PendingToolCall {
  toolCall: ToolCall;
  /** Its journal entry: the call had started when the run was interrupted. */
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
 * A decision on a call that was waiting for approval when its run was persisted: approved runs it
 * (with its journaled `ctx.idempotencyKey`, whatever its `replay` policy: it never started), denied
 * answers it with the error result "Tool call denied: <reason>".
 */
export type ToolCallDecision = { approved: true } | { approved: false; reason?: string };

/** What {@link resumeInterruptedCalls} needs from the harness. */
export interface PendingCallsHost {
  session: Session;
  tools: readonly AgentTool[];
  /** Resolves the tool context option (called once, only if a call is answered). */
  toolContext: () => unknown;
  systemPrompt: string;
  signal: AbortSignal;
  /** Decisions on calls that were waiting for approval, by tool call id. */
  approvals?: Readonly<Record<string, ToolCallDecision>>;
}

interface RunHost {
  session: Session;
  tools: readonly AgentTool[];
  toolContext: unknown;
  context: AgentContext;
  signal: AbortSignal;
}

/**
 * Prepares an interrupted run of `host.session` to go on. Each pending call is answered in source
 * order and its `toolResult` appended: a call that never started runs now (journaled first); a
 * started one runs again only if its tool's `replay` is `"safe"` — with the journaled idempotency
 * key as `ctx.idempotencyKey` — else it gets the error result {@link INTERRUPTED_NOT_RERUN}; a call
 * with a decision in `host.approvals` (it was waiting for approval) runs if approved, else gets the
 * denial as its error result.
 * Resolves, once the results are stored, with whether the model must be asked again (false: the
 * branch ends with a final reply, nothing to resume).
 * @throws SessionError when the results cannot be stored.
 */
export async function resumeInterruptedCalls(host: PendingCallsHost): Promise<boolean> {
  const plan = planResume(host.session);
  if (plan.pending.length === 0) return plan.needsModel;
  const run: RunHost = {
    session: host.session,
    tools: host.tools,
    toolContext: await host.toolContext(),
    context: {
      systemPrompt: host.systemPrompt,
      messages: host.session.buildContext().messages,
      tools: [...host.tools],
    },
    signal: host.signal,
  };
  for (const { toolCall, journal } of plan.pending) {
    const decision = host.approvals?.[toolCall.id];
    const outcome =
      decision?.approved === false
        ? errorOutcome(toolCall, `Tool call denied${decision.reason ? `: ${decision.reason}` : ""}`)
        : decision === undefined && journal !== undefined && journal.replay !== "safe"
          ? errorOutcome(toolCall, INTERRUPTED_NOT_RERUN)
          : await runCall(run, toolCall, journal);
    await host.session.appendMessage(toolResultMessage(toolCall, outcome.result, outcome.isError));
  }
  await host.session.flush();
  return true;
}

async function runCall(
  host: RunHost,
  toolCall: ToolCall,
  journal: ToolCallJournalData | undefined,
): Promise<ToolCallOutcome> {
  const tool = host.tools.find((candidate) => candidate.name === toolCall.name);
  const validated = validateToolCall(toolCall, tool);
  if (!validated.ok) return validated.outcome;
  try {
    if (journal === undefined) await journalToolCall(host.session, toolCall, tool);
  } catch (error) {
    return errorOutcome(toolCall, `The tool call could not be journaled: ${errorText(error)}`);
  }
  // The journaled key reaches the tool as `ctx.idempotencyKey`, the same key on every replay.
  const idempotencyKey = journal?.idempotencyKey ?? idempotencyKeyOf(host.session.id, toolCall.id);
  return executeToolCall(
    {
      tool,
      toolCall,
      args: validated.args,
      toolContext: host.toolContext,
      idempotencyKey,
      onUpdate: () => {},
    },
    host.signal,
  );
}

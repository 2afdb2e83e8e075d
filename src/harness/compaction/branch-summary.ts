import { estimateTokens } from "../../loop/token-estimate.js";
import { entryToMessage } from "../../storage/build-context.js";
import type { SessionEntry } from "../../storage/entries.js";
import type { SessionTreeView } from "../../storage/session-tree.js";
import type { AgentMessage, Usage } from "../../types/index.js";
import { CompactionError } from "./compaction-error.js";
import { type FileOperations, FileOperationTracker, formatFileOperations } from "./file-operations.js";
import { BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_PROMPT, summaryRequestText } from "./prompts.js";
import { serializeConversation } from "./serialize.js";
import { DEFAULT_COMPACTION_SETTINGS } from "./settings.js";
import { requestSummary, type SummaryModelOptions } from "./summarize.js";

/** The abandoned side of a navigation. */
export interface BranchSummaryEntries {
  /** Entries after the common ancestor up to the old leaf, oldest first. */
  entries: SessionEntry[];
  /** Deepest entry on both paths; `null` when they share nothing. */
  commonAncestorId: string | null;
}

/**
 * The entries a navigation from `oldLeafId` to `targetId` leaves behind: those on the old leaf's
 * path after the deepest entry both paths share, in chronological order. Nothing when there is no
 * old leaf or the target lies ahead on the same path.
 */
export function collectEntriesForBranchSummary(
  session: Pick<SessionTreeView, "getBranch">,
  oldLeafId: string | null,
  targetId: string | null,
): BranchSummaryEntries {
  if (oldLeafId === null) return { entries: [], commonAncestorId: null };
  const oldPath = session.getBranch(oldLeafId);
  const targetPath = targetId === null ? [] : session.getBranch(targetId);
  const onOldPath = new Map(oldPath.map((entry, index) => [entry.id, index]));
  for (let i = targetPath.length - 1; i >= 0; i--) {
    const index = onOldPath.get(targetPath[i]!.id);
    if (index !== undefined)
      return { entries: oldPath.slice(index + 1), commonAncestorId: targetPath[i]!.id };
  }
  return { entries: oldPath, commonAncestorId: null };
}

/** The part of a branch that fits a summary request. */
export interface BranchSummaryPreparation {
  /** Messages to summarise, oldest first. */
  messages: AgentMessage[];
  /** Files touched by those messages, merged with earlier branch summaries' details. */
  fileOps: FileOperations;
  /** Estimated tokens of `messages`. */
  totalTokens: number;
}

/** The message an abandoned entry contributes to its summary; tool results are left out to save room. */
function branchMessage(entry: SessionEntry): AgentMessage | undefined {
  if (entry.type === "compaction") {
    return {
      role: "compactionSummary",
      summary: entry.summary,
      tokensBefore: entry.tokensBefore,
      timestamp: Date.parse(entry.timestamp) || 0,
    };
  }
  if (entry.type === "message" && entry.message.role === "toolResult") return undefined;
  return entryToMessage(entry);
}

/**
 * Chooses what of a branch to summarise within `tokenBudget` estimated tokens: walks from the newest
 * entry back and stops when the next message would overflow the budget (an earlier summary — a
 * compaction or branch summary — is still taken while under 90 % of the budget, since it stands for
 * everything before it). Tool results are left out; settings and app entries carry no messages.
 */
export function prepareBranchSummary(
  entries: readonly SessionEntry[],
  tokenBudget: number,
): BranchSummaryPreparation {
  const files = new FileOperationTracker();
  for (const entry of entries) if (entry.type === "branch_summary") files.addDetails(entry.details);
  const messages: AgentMessage[] = [];
  let totalTokens = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    const message = branchMessage(entry);
    if (!message) continue;
    const tokens = estimateTokens(message);
    if (totalTokens + tokens > tokenBudget) {
      const isSummary = entry.type === "compaction" || entry.type === "branch_summary";
      if (isSummary && totalTokens < tokenBudget * 0.9) {
        messages.unshift(message);
        totalTokens += tokens;
      }
      break;
    }
    messages.unshift(message);
    totalTokens += tokens;
  }
  for (const message of messages) files.addMessage(message);
  return { messages, fileOps: files.toFileOperations(), totalTokens };
}

/** Options of {@link generateBranchSummary}. */
export interface GenerateBranchSummaryOptions extends SummaryModelOptions {
  /** Appended as "Additional focus: …", or used instead of the prompt with `replaceInstructions`. */
  customInstructions?: string;
  replaceInstructions?: boolean;
  /** Estimated tokens of the branch to send; default the model's context window − 16,384. */
  tokenBudget?: number;
  /** Output cap, default 2,048 (clamped to the model's `maxTokens`). */
  maxTokens?: number;
}

/** A branch summary, ready for `session.moveTo(target, {summary, details})`. */
export interface BranchSummaryResult {
  /** The summary, introduced as an exploration the user came back from, with the file lists appended. */
  summary: string;
  details: FileOperations;
  usage: Usage;
}

/** Default output cap of a branch summary. */
const BRANCH_SUMMARY_MAX_TOKENS = 2048;

/**
 * Summarises the entries of an abandoned branch (see {@link collectEntriesForBranchSummary}) with the
 * branch prompt (Goal, Constraints & Preferences, Progress, Key Decisions, Next Steps). Writes nothing.
 *
 * Errors (`CompactionError`): `nothing_to_compact` when the entries hold no messages, `aborted`,
 * `summarization_failed`.
 *
 * ```ts
 * const targetId = session.getBranch()[0]!.id; // back to the first entry
 * const { entries } = collectEntriesForBranchSummary(session, session.leafId, targetId);
 * const { summary, details } = await generateBranchSummary(entries, { model, streamFn, signal });
 * await session.moveTo(targetId, { summary, details });
 * ```
 */
export async function generateBranchSummary(
  entries: readonly SessionEntry[],
  options: GenerateBranchSummaryOptions,
): Promise<BranchSummaryResult> {
  const window = options.model.contextWindow > 0 ? options.model.contextWindow : 128_000;
  const budget = options.tokenBudget ?? window - DEFAULT_COMPACTION_SETTINGS.reserveTokens;
  const prepared = prepareBranchSummary(entries, budget);
  if (prepared.messages.length === 0) {
    throw new CompactionError("nothing_to_compact", "The branch has no messages to summarize.");
  }
  const custom = options.customInstructions?.trim();
  const replace = options.replaceInstructions === true && custom !== undefined && custom !== "";
  const text = summaryRequestText({
    transcript: serializeConversation(prepared.messages),
    instruction: replace ? custom : BRANCH_SUMMARY_PROMPT,
    ...(!replace && custom !== undefined && { customInstructions: custom }),
  });
  const generated = await requestSummary(text, {
    ...options,
    maxTokens: options.maxTokens ?? BRANCH_SUMMARY_MAX_TOKENS,
  });
  return {
    summary: BRANCH_SUMMARY_PREFIX + generated.summary + formatFileOperations(prepared.fileOps),
    details: prepared.fileOps,
    usage: generated.usage,
  };
}

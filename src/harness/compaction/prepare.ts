import { estimateContextTokens } from "../../loop/token-estimate.js";
import { buildSessionContext, entryToMessage } from "../../storage/build-context.js";
import type { CompactionEntry, SessionEntry } from "../../storage/entries.js";
import type { AgentMessage } from "../../types/index.js";
import { findCutPoint } from "./cut-point.js";
import { type FileOperations, FileOperationTracker } from "./file-operations.js";
import type { CompactionSettings } from "./settings.js";

/** Everything `compact()` needs, computed from a path without calling a model. Plain data. */
export interface CompactionPreparation {
  /** First entry kept verbatim; the new compaction entry's `firstKeptEntryId`. */
  firstKeptEntryId: string;
  /** Messages replaced by the summary (before the cut, or before the split turn's start). */
  messagesToSummarize: AgentMessage[];
  /** For a split turn, the messages from the turn's start up to the cut; otherwise empty. */
  turnPrefixMessages: AgentMessage[];
  isSplitTurn: boolean;
  /** Estimated context tokens of the whole path before compacting. */
  tokensBefore: number;
  /** Summary of the latest compaction on the path, to be updated rather than rewritten. */
  previousSummary?: string;
  /** Files touched by the summarised messages, merged with the previous compaction's details. */
  fileOps: FileOperations;
  settings: CompactionSettings;
}

/**
 * Plans a compaction of a path (root → leaf, e.g. `session.getBranch()`); calls no model.
 *
 * The compactable range starts where the latest compaction kept entries from (its kept entries were
 * never summarised) or at the root. {@link findCutPoint} chooses the first kept entry; the messages
 * before it (or before the start of a split turn) are to be summarised, `custom_message` and
 * `branch_summary` entries as `custom`/`branchSummary` messages; compaction entries are skipped.
 *
 * Returns `undefined` when there is nothing to compact: an empty path, a path ending in a compaction,
 * or a path whose whole compactable range fits in `keepRecentTokens`.
 */
export function prepareCompaction(
  branchEntries: readonly SessionEntry[],
  settings: CompactionSettings,
): CompactionPreparation | undefined {
  const last = branchEntries[branchEntries.length - 1];
  if (last === undefined || last.type === "compaction") return undefined;

  let previous: CompactionEntry | undefined;
  let rangeStart = 0;
  for (let i = branchEntries.length - 1; i >= 0; i--) {
    const entry = branchEntries[i]!;
    if (entry.type !== "compaction") continue;
    previous = entry;
    const kept = branchEntries.findIndex((candidate) => candidate.id === entry.firstKeptEntryId);
    rangeStart = kept >= 0 && kept < i ? kept : i + 1;
    break;
  }

  const cut = findCutPoint(branchEntries, rangeStart, branchEntries.length, settings.keepRecentTokens);
  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
  const messagesToSummarize = messagesOf(branchEntries, rangeStart, historyEnd);
  const turnPrefixMessages = cut.isSplitTurn
    ? messagesOf(branchEntries, cut.turnStartIndex, cut.firstKeptEntryIndex)
    : [];
  const firstKept = branchEntries[cut.firstKeptEntryIndex];
  if (firstKept === undefined || (messagesToSummarize.length === 0 && turnPrefixMessages.length === 0)) {
    return undefined;
  }

  const files = new FileOperationTracker();
  if (previous) files.addDetails(previous.details);
  for (const message of messagesToSummarize) files.addMessage(message);
  for (const message of turnPrefixMessages) files.addMessage(message);

  const preparation: CompactionPreparation = {
    firstKeptEntryId: firstKept.id,
    messagesToSummarize,
    turnPrefixMessages,
    isSplitTurn: cut.isSplitTurn,
    tokensBefore: estimateContextTokens(buildSessionContext(branchEntries).messages).tokens,
    fileOps: files.toFileOperations(),
    settings: { ...settings },
  };
  if (previous) preparation.previousSummary = previous.summary;
  return preparation;
}

function messagesOf(entries: readonly SessionEntry[], from: number, to: number): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let i = from; i < to; i++) {
    const message = entryToMessage(entries[i]!);
    if (message) messages.push(message);
  }
  return messages;
}

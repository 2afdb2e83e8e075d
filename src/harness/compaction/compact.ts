import { emptyUsage, type Usage } from "../../types/index.js";
import { CompactionError, isCompactionError } from "./compaction-error.js";
import { type FileOperations, formatFileOperations } from "./file-operations.js";
import type { CompactionPreparation } from "./prepare.js";
import { NO_PRIOR_HISTORY, SPLIT_TURN_SEPARATOR, summaryRequestText, TURN_PREFIX_PROMPT } from "./prompts.js";
import { serializeConversation } from "./serialize.js";
import {
  type GeneratedSummary,
  generateSummary,
  requestSummary,
  type SummaryModelOptions,
} from "./summarize.js";

/** Options of {@link compact}. */
export interface CompactOptions extends SummaryModelOptions {
  /** Appended to the summary instruction as "Additional focus: …". */
  customInstructions?: string;
}

/** A finished compaction, ready for `session.appendCompaction({summary, firstKeptEntryId, tokensBefore, details})`. */
export interface CompactionResult {
  /** The summary text, with the `<read-files>` / `<modified-files>` lists appended. */
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  /** The file lists, carried into the next compaction. */
  details: FileOperations;
  /** Tokens and cost of the summary requests (summed over both requests of a split turn). */
  usage: Usage;
}

/** Share of `reserveTokens` a history summary may use. */
const HISTORY_SUMMARY_SHARE = 0.8;
/** Share of `reserveTokens` a split turn's prefix summary may use. */
const TURN_PREFIX_SUMMARY_SHARE = 0.5;

const FILE_LIST_BLOCKS = /\n*<(read-files|modified-files)>\n[\s\S]*?\n<\/\1>/g;

/** A summary without its appended file lists (they are rebuilt from `details`). */
export function stripFileOperations(summary: string): string {
  return summary.replace(FILE_LIST_BLOCKS, "").trimEnd();
}

/**
 * Summarises a {@link CompactionPreparation} with the model. Writes nothing: the caller appends the
 * result to the session.
 *
 * The messages before the cut become a structured summary — an update of `previousSummary` when
 * there is one. For a split turn the beginning of the cut turn gets its own summary (sections
 * Original Request, Early Progress, Context for Suffix), requested after the first one (never in
 * parallel, for providers that allow one request at a time), and the two are joined under
 * "Turn Context (split turn)". When a split turn has nothing before it, the previous summary is
 * carried over unchanged (pi replaced it with "No prior history."). Output caps: 80 % of
 * `reserveTokens` for the history, 50 % for the turn prefix, both clamped to the model's `maxTokens`.
 *
 * Errors (`CompactionError`): `invalid_preparation` without `firstKeptEntryId`, `nothing_to_compact`
 * with no messages, `aborted`, `summarization_failed` (the message says which request failed).
 *
 * ```ts
 * import { DEFAULT_COMPACTION_SETTINGS, prepareCompaction } from "agentchart/compaction";
 * const preparation = prepareCompaction(session.getBranch(), DEFAULT_COMPACTION_SETTINGS);
 * if (preparation) {
 *   const result = await compact(preparation, { model, streamFn, signal });
 *   await session.appendCompaction(result);
 * }
 * ```
 */
export async function compact(
  preparation: CompactionPreparation,
  options: CompactOptions,
): Promise<CompactionResult> {
  if (!preparation.firstKeptEntryId) {
    throw new CompactionError("invalid_preparation", "The compaction preparation has no firstKeptEntryId.");
  }
  const { messagesToSummarize, turnPrefixMessages, isSplitTurn, settings } = preparation;
  if (messagesToSummarize.length === 0 && turnPrefixMessages.length === 0) {
    throw new CompactionError("nothing_to_compact", "Nothing to compact: no messages before the kept part.");
  }
  if (options.signal?.aborted) throw new CompactionError("aborted", "Compaction was aborted.");

  const previousSummary =
    preparation.previousSummary === undefined ? undefined : stripFileOperations(preparation.previousSummary);
  let usage = emptyUsage();
  let summary: string;
  if (messagesToSummarize.length > 0) {
    const history = await generateSummary(messagesToSummarize, {
      ...options,
      maxTokens: settings.reserveTokens * HISTORY_SUMMARY_SHARE,
      ...(previousSummary !== undefined && { previousSummary }),
    });
    usage = addUsage(usage, history.usage);
    summary = history.summary;
  } else {
    summary = previousSummary ?? NO_PRIOR_HISTORY;
  }

  if (isSplitTurn && turnPrefixMessages.length > 0) {
    const prefix = await summarizeTurnPrefix(preparation, options);
    usage = addUsage(usage, prefix.usage);
    summary += SPLIT_TURN_SEPARATOR + prefix.summary;
  }

  return {
    summary: summary + formatFileOperations(preparation.fileOps),
    firstKeptEntryId: preparation.firstKeptEntryId,
    tokensBefore: preparation.tokensBefore,
    details: {
      readFiles: [...preparation.fileOps.readFiles],
      modifiedFiles: [...preparation.fileOps.modifiedFiles],
    },
    usage,
  };
}

async function summarizeTurnPrefix(
  preparation: CompactionPreparation,
  options: CompactOptions,
): Promise<GeneratedSummary> {
  const text = summaryRequestText({
    transcript: serializeConversation(preparation.turnPrefixMessages),
    instruction: TURN_PREFIX_PROMPT,
  });
  try {
    return await requestSummary(text, {
      ...options,
      maxTokens: preparation.settings.reserveTokens * TURN_PREFIX_SUMMARY_SHARE,
    });
  } catch (error) {
    if (isCompactionError(error, "summarization_failed")) {
      throw new CompactionError("summarization_failed", `Turn prefix ${error.message.replace(/^S/, "s")}`, {
        cause: error.cause,
      });
    }
    throw error;
  }
}

/** The sum of two usage records. */
export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return a;
  return {
    input: a.input + (b.input ?? 0),
    output: a.output + (b.output ?? 0),
    cacheRead: a.cacheRead + (b.cacheRead ?? 0),
    cacheWrite: a.cacheWrite + (b.cacheWrite ?? 0),
    totalTokens: a.totalTokens + (b.totalTokens ?? 0),
    cost: {
      input: a.cost.input + (b.cost?.input ?? 0),
      output: a.cost.output + (b.cost?.output ?? 0),
      cacheRead: a.cost.cacheRead + (b.cost?.cacheRead ?? 0),
      cacheWrite: a.cost.cacheWrite + (b.cost?.cacheWrite ?? 0),
      total: a.cost.total + (b.cost?.total ?? 0),
    },
  };
}

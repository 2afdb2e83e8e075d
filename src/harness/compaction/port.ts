import * as compaction from "./index.js";
import type { CompactionSettings } from "./settings.js";

export { type CompactionSettings, DEFAULT_COMPACTION_SETTINGS } from "./settings.js";

import type { SessionEntry } from "../../storage/entries.js";
import type { Session } from "../../storage/session.js";
import type { AgentMessage } from "../../types/messages.js";
import type { Model } from "../../types/model.js";
import type { StreamFn } from "../../types/stream.js";

/** What a compaction produces; `appendCompaction` persists it. */
export interface CompactionResult<TDetails = unknown> {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: TDetails;
}

/** What a branch summary produces; `moveTo(target, {summary, details})` persists it. */
export interface BranchSummaryResult<TDetails = unknown> {
  summary: string;
  details?: TDetails;
}

/** The summariser's request settings: the harness's model and StreamFn, and its abort signal. */
export interface SummaryRequest {
  model: Model;
  streamFn: StreamFn;
  signal: AbortSignal;
  customInstructions?: string;
}

/**
 * The compaction and branch-summary functions the harness needs, as delivered by
 * `src/harness/compaction/`. The harness only calls them through this port, so a different
 * implementation (or a test stand-in) plugs in through the `compaction` port option. Shapes are kept
 * loose where implementations may differ: a token estimate may be a number or `{tokens}`, and the
 * entries to summarise may come as an array or as `{entries}`. The preparation is opaque to the harness.
 */
export interface CompactionPort {
  estimateContextTokens(messages: AgentMessage[]): number | { tokens: number };
  /**
   * Optional: an estimator for one growing transcript (same results as `estimateContextTokens`, but
   * counting only the messages appended since its last call). The harness estimates after every turn.
   */
  createContextEstimator?(): (messages: readonly AgentMessage[]) => number | { tokens: number };
  shouldCompact(contextTokens: number, contextWindow: number, settings: CompactionSettings): boolean;
  prepareCompaction(branchEntries: SessionEntry[], settings: CompactionSettings): unknown;
  compact(preparation: unknown, request: SummaryRequest): Promise<CompactionResult>;
  collectEntriesForBranchSummary(
    session: Session,
    oldLeafId: string | null,
    targetId: string,
  ): SessionEntry[] | { entries: SessionEntry[] };
  generateBranchSummary(entries: SessionEntry[], request: SummaryRequest): Promise<BranchSummaryResult>;
}

/** The port the harness uses when none is given: the functions of `src/harness/compaction/`. */
export const defaultCompactionPort: CompactionPort | undefined = compaction;

/** The token count of an estimate in either shape. */
export function tokensOf(estimate: number | { tokens: number }): number {
  return typeof estimate === "number" ? estimate : estimate.tokens;
}

/** The entries of a branch-summary collection in either shape. */
export function entriesOf(collected: SessionEntry[] | { entries: SessionEntry[] }): SessionEntry[] {
  return Array.isArray(collected) ? collected : collected.entries;
}

// `agentchart/compaction`: the compaction and branch-summary functions (docs/compaction.md) for apps
// that compact outside a harness or write their own `CompactionPort`: pure functions that read
// session entries, call a `StreamFn` and return plain data, and the token estimates they decide by.
// The harness runs them for you (`AgentHarness.compact`, automatic compaction). No `node:` import.

export {
  type BranchSummaryEntries,
  type BranchSummaryPreparation,
  type BranchSummaryResult as GeneratedBranchSummary,
  collectEntriesForBranchSummary,
  type GenerateBranchSummaryOptions,
  generateBranchSummary,
  prepareBranchSummary,
} from "./harness/compaction/branch-summary.js";
export {
  type CompactionResult as CompactOutput,
  type CompactOptions,
  compact,
} from "./harness/compaction/compact.js";
export {
  CompactionError,
  type CompactionErrorCode,
  isCompactionError,
} from "./harness/compaction/compaction-error.js";
export { type CutPoint, findCutPoint } from "./harness/compaction/cut-point.js";
export type { FileOperations } from "./harness/compaction/file-operations.js";
export {
  type BranchSummaryResult,
  type CompactionPort,
  type CompactionResult,
  type CompactionSettings,
  DEFAULT_COMPACTION_SETTINGS,
  defaultCompactionPort,
  type SummaryRequest,
} from "./harness/compaction/port.js";
export { type CompactionPreparation, prepareCompaction } from "./harness/compaction/prepare.js";
export { serializeConversation } from "./harness/compaction/serialize.js";
export { shouldCompact } from "./harness/compaction/settings.js";
export {
  type ContextTokenEstimate,
  calculateContextTokens,
  estimateContextTokens,
  estimateTokens,
  type LastUsage,
  lastUsage,
} from "./loop/token-estimate.js";

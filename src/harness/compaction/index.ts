export type { BashExecutionMessage } from "../../types/harness-messages.js";
export {
  type BranchSummaryEntries,
  type BranchSummaryPreparation,
  type BranchSummaryResult,
  collectEntriesForBranchSummary,
  type GenerateBranchSummaryOptions,
  generateBranchSummary,
  prepareBranchSummary,
} from "./branch-summary.js";
export {
  addUsage,
  type CompactionResult,
  type CompactOptions,
  compact,
  stripFileOperations,
} from "./compact.js";
export { CompactionError, type CompactionErrorCode, isCompactionError } from "./compaction-error.js";
export { type CutPoint, findCutPoint, isCutPointEntry } from "./cut-point.js";
export { type FileOperations, FileOperationTracker, formatFileOperations } from "./file-operations.js";
export { type CompactionPreparation, prepareCompaction } from "./prepare.js";
export * from "./prompts.js";
export { MAX_TOOL_RESULT_CHARS, serializeConversation } from "./serialize.js";
export { type CompactionSettings, DEFAULT_COMPACTION_SETTINGS, shouldCompact } from "./settings.js";
export {
  clampMaxTokens,
  type GeneratedSummary,
  type GenerateSummaryOptions,
  generateSummary,
  requestSummary,
  type SummaryModelOptions,
  type SummaryRequestOptions,
} from "./summarize.js";
export {
  type ContextTokenEstimate,
  calculateContextTokens,
  createContextEstimator,
  estimateContextTokens,
  estimateTokens,
  isBashExecution,
  type LastUsage,
  lastUsage,
} from "./token-estimate.js";

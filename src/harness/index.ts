// The browser-safe harness: AgentHarness and its pieces. Nothing here imports a `node:` module;
// loading skills and prompt templates from disk and the built-in tools live in `agentchart/node`.

export {
  type ContextTokenEstimate,
  calculateContextTokens,
  estimateContextTokens,
  estimateTokens,
  type LastUsage,
  lastUsage,
} from "../loop/token-estimate.js";
export type { SessionCommand, SessionDraft, SessionReply } from "../machines/harness/harness.events.js";
export {
  type BackoffInput,
  type CompactionInput,
  type CompactionOutcome,
  type CompactOperation,
  type HarnessAgentCommand,
  type HarnessMachineContext,
  type HarnessMachineEvent,
  type HarnessMachineInput,
  type HarnessOperation,
  type HarnessPhase,
  harnessMachine,
  type NavigateOperation,
  type NavigateTreeOptions,
  type PromptOperation,
  promptOperationOf,
  RECORDED_AGENT_EVENTS,
  type RecordedAgentEvent,
  type ResumeOperation,
  type TurnInput,
  type TurnOperation,
  type TurnOutcome,
} from "../machines/harness/harness.machine.js";
export {
  AgentHarness,
  type HarnessPromptOptions,
  type HarnessRunResult,
} from "./agent-harness.js";
// The compaction functions themselves (docs/compaction.md), for apps that compact outside a harness.
export {
  type BranchSummaryEntries,
  type BranchSummaryPreparation,
  type BranchSummaryResult as GeneratedBranchSummary,
  collectEntriesForBranchSummary,
  type GenerateBranchSummaryOptions,
  generateBranchSummary,
  prepareBranchSummary,
} from "./compaction/branch-summary.js";
export {
  type CompactionResult as CompactOutput,
  type CompactOptions,
  compact,
} from "./compaction/compact.js";
export {
  CompactionError,
  type CompactionErrorCode,
  isCompactionError,
} from "./compaction/compaction-error.js";
export { type CutPoint, findCutPoint } from "./compaction/cut-point.js";
export type { FileOperations } from "./compaction/file-operations.js";
export {
  type BranchSummaryResult,
  type CompactionPort,
  type CompactionResult,
  type CompactionSettings,
  DEFAULT_COMPACTION_SETTINGS,
  defaultCompactionPort,
  type SummaryRequest,
} from "./compaction/port.js";
export { type CompactionPreparation, prepareCompaction } from "./compaction/prepare.js";
export { serializeConversation } from "./compaction/serialize.js";
export { shouldCompact } from "./compaction/settings.js";
export { createHarnessMachine, type HarnessMachine } from "./create-harness-machine.js";
export { AgentHarnessError, type AgentHarnessErrorCode, isAgentHarnessError } from "./errors.js";
export type { AgentHarnessOptions } from "./harness-options.js";
export {
  applyStreamOptionsPatch,
  type CompactionReason,
  HARNESS_HANDLER_NAMES,
  type HarnessEvent,
  type HarnessHandler,
  type HarnessHookMap,
  type HarnessOwnEvent,
  type HarnessStreamOptions,
  type HookName,
  type HookReturn,
  type ObservedEventName,
  type StreamOptionsPatch,
  type TreePreparation,
} from "./hooks.js";
export {
  BRANCH_SUMMARY_PREFIX,
  BRANCH_SUMMARY_SUFFIX,
  bashExecutionToText,
  COMPACTION_SUMMARY_PREFIX,
  COMPACTION_SUMMARY_SUFFIX,
  convertHarnessMessagesToLlm,
} from "./messages-convert.js";
export type { PromptTemplate } from "./resources/prompt-templates.js";
export type { HarnessResources } from "./resources/resource-set.js";
export type { Skill } from "./resources/skill-types.js";
export { formatSkillsForSystemPrompt, type PromptSkill } from "./resources/skills-prompt.js";
export {
  DEFAULT_SYSTEM_PROMPT,
  resolveSystemPrompt,
  type SystemPromptContext,
  type SystemPromptOption,
} from "./resources/system-prompt.js";
export { expandPromptTemplate, parseTemplateArgs } from "./resources/template-args.js";
export { INTERRUPTED_NOT_RERUN, type ToolCallDecision } from "./resume-run.js";
export {
  DEFAULT_RETRY_POLICY,
  isContextOverflow,
  isRetryableError,
  type RetryPolicy,
  retryDelayMs,
} from "./retry-policy.js";
export { GUARDRAIL_ENTRY, OUTPUT_ENTRY } from "./session-recorder.js";
export type { ToolsChange } from "./settings.js";
export {
  HARNESS_SNAPSHOT_FORMAT,
  HARNESS_SNAPSHOT_VERSION,
  type HarnessResumeStep,
  type PersistedHarness,
} from "./snapshot.js";
export type { PersistedSubAgent } from "./sub-agent-sessions.js";
export type { HarnessCompactResult, NavigateTreeResult } from "./summaries.js";
export {
  TOOL_CALL_JOURNAL_TYPE,
  type ToolCallJournalData,
  type ToolReplayPolicy,
  toolReplayPolicy,
} from "./tool-journal.js";

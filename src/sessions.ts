// `agentchart/sessions`: the session format and the parts a session store is built from — every kind
// of entry, the header, the tree, the writer and its sink, reading and writing the JSONL text, ids,
// the message kinds sessions hold beside the model's (summaries, custom messages, pi's bash
// executions) and the custom entries the harness writes. For apps that read sessions entry by entry
// or store them somewhere new; `Session`, `SessionRepo` and `MemorySessionRepo` are in `agentchart`.
// No `node:` import (docs/sessions.md).

export {
  BRANCH_SUMMARY_PREFIX,
  BRANCH_SUMMARY_SUFFIX,
  bashExecutionToText,
  COMPACTION_SUMMARY_PREFIX,
  COMPACTION_SUMMARY_SUFFIX,
  convertHarnessMessagesToLlm,
} from "./harness/messages-convert.js";
export { INTERRUPTED_NOT_RERUN } from "./harness/resume-run.js";
export { GUARDRAIL_ENTRY, OUTPUT_ENTRY } from "./harness/session-recorder.js";
export {
  TOOL_CALL_JOURNAL_TYPE,
  type ToolCallJournalData,
  type ToolReplayPolicy,
  toolReplayPolicy,
} from "./harness/tool-journal.js";
export { buildSessionContext } from "./storage/build-context.js";
export {
  type ActiveToolsChangeEntry,
  type BranchSummaryEntry,
  type CompactionEntry,
  type CustomEntry,
  type CustomMessageEntry,
  type EntryBase,
  type EntryDraft,
  type LabelEntry,
  type MessageEntry,
  type ModelChangeEntry,
  type RecoveredLine,
  SESSION_ENTRY_TYPES,
  type SessionContext,
  type SessionEntryType,
  type SessionHeader,
  type SessionInfoEntry,
  type SessionTreeNode,
  type ThinkingLevelChangeEntry,
} from "./storage/entries.js";
export { assertValidCwd, assertValidSessionId, createEntryId, createSessionId } from "./storage/ids.js";
export type { MemorySessionRepoOptions } from "./storage/memory-session-repo.js";
export type { CustomMessageInput, SessionInit } from "./storage/session.js";
export {
  type ParsedSession,
  parseSessionText,
  serializeLine,
  serializeSession,
} from "./storage/session-file.js";
export { normalizeSessionName, SessionTree, type SessionTreeView } from "./storage/session-tree.js";
export { type SessionSink, SessionWriter, type SessionWriterStatus } from "./storage/session-writer.js";
export type {
  BashExecutionMessage,
  BranchSummaryMessage,
  CompactionReason,
  CompactionSummaryMessage,
  CustomMessage,
} from "./types/harness-messages.js";

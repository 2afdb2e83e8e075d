import type { AgentMessage, ThinkingLevel } from "../types/index.js";
import type { ImageContent, TextContent } from "../types/messages.js";

/** Fields shared by every entry of the session tree. */
export interface EntryBase {
  id: string;
  /** The entry this one follows; `null` for a root. */
  parentId: string | null;
  /** ISO 8601 time of the append. */
  timestamp: string;
}

export interface MessageEntry extends EntryBase {
  type: "message";
  message: AgentMessage;
}
export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}
export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: ThinkingLevel;
}
export interface ActiveToolsChangeEntry extends EntryBase {
  type: "active_tools_change";
  activeToolNames: string[];
}
export interface CompactionEntry<TDetails = unknown> extends EntryBase {
  type: "compaction";
  summary: string;
  /** First entry kept verbatim after the summary; an ancestor of this entry. */
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: TDetails;
}
export interface BranchSummaryEntry<TDetails = unknown> extends EntryBase {
  type: "branch_summary";
  /** The entry the summarised branch left from, or "root". */
  fromId: string;
  summary: string;
  details?: TDetails;
}
export interface CustomEntry<TData = unknown> extends EntryBase {
  type: "custom";
  customType: string;
  data?: TData;
}
export interface CustomMessageEntry<TDetails = unknown> extends EntryBase {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: TDetails;
}
export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  /** `undefined` clears the label. */
  label?: string;
}
export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  name?: string;
}

/** One line of a session file after the header. */
export type SessionEntry =
  | MessageEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | ActiveToolsChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry;

export type SessionEntryType = SessionEntry["type"];

/** All entry types, for validation. */
export const SESSION_ENTRY_TYPES: ReadonlySet<string> = new Set<SessionEntryType>([
  "message",
  "model_change",
  "thinking_level_change",
  "active_tools_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
]);

/** An entry before the tree assigns `id`, `parentId` and `timestamp`. */
export type EntryDraft = SessionEntry extends infer E
  ? E extends SessionEntry
    ? Omit<E, "id" | "parentId" | "timestamp">
    : never
  : never;

/** First line of a session file (pi format version 3). */
export interface SessionHeader {
  type: "session";
  version: 3;
  id: string;
  /** ISO 8601 creation time. */
  timestamp: string;
  cwd: string;
  /** Path (JSONL) or id (memory) of the session this one was forked from. */
  parentSession?: string;
  /**
   * Set on a sub-agent's session: the id of the tool call (in the `parentSession`'s transcript) whose
   * agent tool ran the agent this session records. Absent on every other session (a fork has none).
   */
  parentToolCallId?: string;
  metadata?: Record<string, unknown>;
}

/** What a model run needs from a session: built from the path root → leaf. */
export interface SessionContext {
  messages: AgentMessage[];
  /** From the later of the last `model_change` and the last assistant message; `null` if neither. */
  model: { provider: string; modelId: string } | null;
  /** Last `thinking_level_change`, default "off". */
  thinkingLevel: ThinkingLevel;
  /** Last `active_tools_change`, `null` if none (= all tools). */
  activeToolNames: string[] | null;
}

/** A node of {@link SessionTreeView.getTree}. */
export interface SessionTreeNode {
  entry: SessionEntry;
  children: SessionTreeNode[];
  label?: string;
}

/** A line skipped by `open(id, {recover: true})` or cut from a torn tail. Nothing is dropped silently. */
export interface RecoveredLine {
  /** 1-based line number in the file (the header is line 1). */
  line: number;
  reason: string;
  /** The raw text of the line. */
  text: string;
}

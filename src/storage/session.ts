import type { AgentMessage, ThinkingLevel } from "../types/index.js";
import { SessionError } from "../types/session-error.js";
import type {
  ActiveToolsChangeEntry,
  BranchSummaryEntry,
  CompactionEntry,
  CustomEntry,
  CustomMessageEntry,
  EntryDraft,
  LabelEntry,
  MessageEntry,
  ModelChangeEntry,
  RecoveredLine,
  SessionContext,
  SessionEntry,
  SessionHeader,
  SessionInfoEntry,
  SessionTreeNode,
  ThinkingLevelChangeEntry,
} from "./entries.js";
import { serializeLine } from "./session-file.js";
import { normalizeSessionName, type SessionTree, type SessionTreeView } from "./session-tree.js";
import type { SessionSink } from "./session-writer.js";
import { SessionWriter, type SessionWriterStatus } from "./session-writer.js";

/** Options of {@link Session.appendCustomMessage}. */
export interface CustomMessageInput<TDetails = unknown> {
  customType: string;
  content: CustomMessageEntry["content"];
  /** Whether a UI should show it (default true). */
  display?: boolean;
  details?: TDetails;
}

/** Everything a repo hands to a new {@link Session}. */
export interface SessionInit {
  header: SessionHeader;
  tree: SessionTree;
  sink: SessionSink;
  /** Where the session is stored (JSONL path), if it is a file. */
  path?: string;
  /** Lines skipped or cut while opening. */
  recovered?: RecoveredLine[];
}

/**
 * An open session: the tree of entries in memory plus the one writer (`SessionWriter`) that persists appends.
 *
 * Reads are answered from in-memory indexes. Appends update the tree synchronously (the new entry
 * is the leaf at once) and return a promise that resolves with the entry once it is persisted, so
 * callers may fire and forget and `flush()` later. Writes are applied strictly in order; after a
 * failed write the session is `failed`, later appends reject with `SessionError("storage")` and do
 * not touch the tree.
 */
export class Session implements SessionTreeView {
  readonly header: SessionHeader;
  /** File path of a JSONL session. */
  readonly path: string | undefined;
  /** Lines skipped (`{recover: true}`) or cut (torn tail) when the session was opened. */
  readonly recovered: readonly RecoveredLine[];
  private readonly tree: SessionTree;
  private readonly writer: SessionWriter;

  constructor(init: SessionInit) {
    this.header = init.header;
    this.tree = init.tree;
    this.path = init.path;
    this.recovered = init.recovered ?? [];
    this.writer = new SessionWriter(init.sink);
  }

  get id(): string {
    return this.header.id;
  }
  get cwd(): string {
    return this.header.cwd;
  }
  get metadata(): Record<string, unknown> | undefined {
    return this.header.metadata;
  }
  get leafId(): string | null {
    return this.tree.leafId;
  }
  get name(): string | undefined {
    return this.tree.name;
  }
  /** "open", "failed" (a write failed; see `error`) or "closed". */
  get status(): SessionWriterStatus {
    return this.writer.status;
  }
  /** The storage error that failed the session, if any. */
  get error(): SessionError | undefined {
    return this.writer.error;
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.tree.getEntry(id);
  }
  getEntries(): SessionEntry[] {
    return this.tree.getEntries();
  }
  getBranch(leafId?: string | null): SessionEntry[] {
    return this.tree.getBranch(leafId);
  }
  getChildren(id: string | null): SessionEntry[] {
    return this.tree.getChildren(id);
  }
  getTree(): SessionTreeNode[] {
    return this.tree.getTree();
  }
  getLabel(id: string): string | undefined {
    return this.tree.getLabel(id);
  }
  buildContext(leafId?: string | null): SessionContext {
    return this.tree.buildContext(leafId);
  }

  /** Appends a transcript message. */
  appendMessage(message: AgentMessage): Promise<MessageEntry> {
    return this.append({ type: "message", message });
  }
  /** Records a model switch. */
  appendModelChange(provider: string, modelId: string): Promise<ModelChangeEntry> {
    return this.append({ type: "model_change", provider, modelId });
  }
  /** Records a thinking-level switch. */
  appendThinkingLevelChange(thinkingLevel: ThinkingLevel): Promise<ThinkingLevelChangeEntry> {
    return this.append({ type: "thinking_level_change", thinkingLevel });
  }
  /** Records the set of active tools. */
  appendActiveToolsChange(activeToolNames: string[]): Promise<ActiveToolsChangeEntry> {
    return this.append({ type: "active_tools_change", activeToolNames: [...activeToolNames] });
  }
  /**
   * Records a compaction: later contexts start with `summary`, then the entries from `firstKeptEntryId`.
   * `firstKeptEntryId` must be on the current branch (`invalid_entry` otherwise).
   */
  appendCompaction<TDetails = unknown>(input: {
    summary: string;
    firstKeptEntryId: string;
    tokensBefore: number;
    details?: TDetails;
  }): Promise<CompactionEntry<TDetails>> {
    return this.guarded(() => {
      if (!this.tree.getBranch().some((entry) => entry.id === input.firstKeptEntryId)) {
        throw new SessionError(
          "invalid_entry",
          `firstKeptEntryId "${input.firstKeptEntryId}" is not on the current branch; keep an entry of the branch being compacted.`,
        );
      }
      return this.write(this.tree.append({ type: "compaction", ...input }) as CompactionEntry<TDetails>);
    });
  }
  /** Appends a summary of a branch left from `fromId` ("root" for the root). */
  appendBranchSummary<TDetails = unknown>(input: {
    fromId: string;
    summary: string;
    details?: TDetails;
  }): Promise<BranchSummaryEntry<TDetails>> {
    return this.append({ type: "branch_summary", ...input }) as Promise<BranchSummaryEntry<TDetails>>;
  }
  /** Appends app data that does not enter the model context. */
  appendCustom<TData = unknown>(customType: string, data?: TData): Promise<CustomEntry<TData>> {
    const draft: EntryDraft =
      data === undefined ? { type: "custom", customType } : { type: "custom", customType, data };
    return this.append(draft) as Promise<CustomEntry<TData>>;
  }
  /** Appends an app message that enters the model context as a `custom` message. */
  appendCustomMessage<TDetails = unknown>(
    input: CustomMessageInput<TDetails>,
  ): Promise<CustomMessageEntry<TDetails>> {
    const draft: EntryDraft = {
      type: "custom_message",
      customType: input.customType,
      content: input.content,
      display: input.display ?? true,
    };
    if (input.details !== undefined) draft.details = input.details;
    return this.append(draft) as Promise<CustomMessageEntry<TDetails>>;
  }
  /**
   * Labels an entry (a blank or missing label clears it). The label is itself an entry on the tree,
   * as in pi's format, so it becomes the leaf. `not_found` if the target does not exist.
   */
  setLabel(targetId: string, label?: string): Promise<LabelEntry> {
    return this.guarded(() => {
      this.tree.require(targetId);
      const trimmed = label?.trim();
      const draft: EntryDraft = trimmed
        ? { type: "label", targetId, label: trimmed }
        : { type: "label", targetId };
      return this.write(this.tree.append(draft) as LabelEntry);
    });
  }
  /** Names the session (newlines collapse to spaces; blank clears). Appends a `session_info` entry. */
  setName(name: string): Promise<SessionInfoEntry> {
    const normalized = normalizeSessionName(name);
    const draft: EntryDraft = normalized
      ? { type: "session_info", name: normalized }
      : { type: "session_info" };
    return this.append(draft) as Promise<SessionInfoEntry>;
  }

  /**
   * Moves the leaf to `entryId` (`null` = before the first root; `not_found` if missing). With a
   * `summary`, appends a `branch_summary` of the branch being left as a child of the target and
   * returns it. Without a summary, nothing is written: pi's format stores no leaf moves, so a reopened
   * session's leaf is its last entry until the next append persists the new branch.
   */
  async moveTo(
    entryId: string | null,
    options: { summary?: string; details?: unknown } = {},
  ): Promise<BranchSummaryEntry | undefined> {
    this.assertWritable();
    this.tree.moveTo(entryId);
    if (options.summary === undefined) return undefined;
    const draft: EntryDraft = { type: "branch_summary", fromId: entryId ?? "root", summary: options.summary };
    if (options.details !== undefined) draft.details = options.details;
    return this.append(draft) as Promise<BranchSummaryEntry>;
  }

  /** Resolves once every append made so far is persisted; rejects with `SessionError("storage")` if one failed. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Writes what is queued, then releases the session (file handle and lock). Idempotent. */
  close(): Promise<void> {
    return this.writer.close();
  }

  private append<TDraft extends EntryDraft>(draft: TDraft): Promise<TDraft & SessionEntry> {
    try {
      this.assertWritable();
      return this.write(this.tree.append(draft) as TDraft & SessionEntry);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private guarded<T>(run: () => Promise<T>): Promise<T> {
    try {
      this.assertWritable();
      return run();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private write<TEntry extends SessionEntry>(entry: TEntry): Promise<TEntry> {
    // The promise is marked handled: fire-and-forget callers learn about storage failures from flush().
    return this.writer.write(serializeLine(entry), entry);
  }

  private assertWritable(): void {
    const status = this.writer.status;
    if (status === "failed" && this.writer.error) throw this.writer.error;
    if (status !== "open")
      throw new SessionError("storage", "The session is closed; open it again to append.");
  }
}

import type { Agent } from "../agent/agent.js";
import { contentText } from "../loop/messages.js";
import type { NavigateTreeOptions } from "../machines/harness/harness.machine.js";
import type { BranchSummaryEntry, CompactionEntry } from "../storage/entries.js";
import type { Session } from "../storage/session.js";
import type { StreamFn } from "../types/stream.js";
import {
  type BranchSummaryResult,
  type CompactionPort,
  type CompactionResult,
  type CompactionSettings,
  entriesOf,
} from "./compaction/port.js";
import { AgentHarnessError, wrapError } from "./errors.js";
import type { HarnessEvents } from "./events.js";
import type { CompactionReason, HookRegistry, TreePreparation } from "./hooks.js";

/** The parts of the harness that compaction and tree navigation work with. */
export interface SummaryHost {
  session: Session;
  /** Its transcript is reloaded from the session after a compaction or a move; its model summarises. */
  agent: Agent;
  port: CompactionPort | undefined;
  hooks: HookRegistry;
  compaction: CompactionSettings;
  /** The StreamFn of summary requests (the harness's stream options, no provider hooks). */
  summaryStreamFn: StreamFn;
  events: HarnessEvents;
}

/**
 * What `AgentHarness.compact` did: compacted (the result as appended to the session), or nothing, because
 * the branch holds nothing old enough to summarise (a short conversation, or one that ends in a compaction).
 */
export type HarnessCompactResult =
  | (CompactionResult & { compacted: true })
  | { compacted: false; reason: "nothing_to_compact" };

/** What `navigateTree` did. `editorText`: the text of a user message that was navigated "into". */
export interface NavigateTreeResult {
  cancelled: boolean;
  editorText?: string;
  summaryEntry?: BranchSummaryEntry;
}

/**
 * Compacts the current branch: prepare → `session_before_compact` (cancel, or supply the result) →
 * summarise → `appendCompaction` → reload the transcript → `session_compact`. With nothing to
 * summarise it writes nothing and resolves `{compacted: false, reason: "nothing_to_compact"}`. Throws
 * `AgentHarnessError` ("compaction": no port, cancelled, aborted or failed; "hook"; "session").
 */
export async function compactSession(
  host: SummaryHost,
  reason: CompactionReason,
  customInstructions: string | undefined,
  signal: AbortSignal,
): Promise<HarnessCompactResult> {
  const { session, port, hooks } = host;
  if (!port) {
    throw new AgentHarnessError(
      "compaction",
      "Compaction is not available: the harness has no compaction port",
    );
  }
  const branchEntries = session.getBranch();
  let preparation: unknown;
  try {
    preparation = port.prepareCompaction(branchEntries, host.compaction);
  } catch (error) {
    throw wrapError("compaction", "Compaction failed", error);
  }
  if (preparation === undefined) return { compacted: false, reason: "nothing_to_compact" };
  const decision = await hooks.run(
    "session_before_compact",
    {} as { cancel?: boolean; compaction?: CompactionResult },
    () => ({ type: "session_before_compact", preparation, branchEntries, customInstructions, reason }),
    (_, result) => ({ state: result, stop: result.cancel === true || result.compaction !== undefined }),
    signal,
  );
  if (decision.cancel) throw new AgentHarnessError("compaction", "Compaction cancelled");
  const fromHook = decision.compaction !== undefined;
  let result = decision.compaction;
  if (!result) {
    try {
      result = await port.compact(preparation, summaryRequest(host, signal, customInstructions));
    } catch (error) {
      throw wrapError("compaction", signal.aborted ? "Compaction was aborted" : "Compaction failed", error);
    }
  }
  if (signal.aborted) throw new AgentHarnessError("compaction", "Compaction was aborted");
  let entry: CompactionEntry;
  try {
    entry = await session.appendCompaction({
      summary: result.summary,
      firstKeptEntryId: result.firstKeptEntryId,
      tokensBefore: result.tokensBefore,
      ...(result.details !== undefined ? { details: result.details } : {}),
    });
  } catch (error) {
    throw wrapError("compaction", "Could not record the compaction", error);
  }
  reloadTranscript(host);
  host.events.emit({ type: "session_compact", compactionEntry: entry, fromHook, reason });
  return { ...result, compacted: true };
}

/**
 * Moves the session to `targetId`: `session_before_tree` (cancel, supply a summary or a label) →
 * optional branch summary → `moveTo` (a user or custom message target moves to its parent and
 * returns its text as `editorText`) → optional label → reload the transcript → `session_tree`.
 * An abort while summarising cancels the navigation.
 */
export async function navigateSession(
  host: SummaryHost,
  targetId: string,
  options: NavigateTreeOptions,
  signal: AbortSignal,
): Promise<NavigateTreeResult> {
  const { session, port, hooks } = host;
  const target = session.getEntry(targetId);
  if (!target) throw new AgentHarnessError("invalid_argument", `Unknown entry: ${targetId}`);
  const oldLeafId = session.leafId;
  let entriesToSummarize: TreePreparation["entriesToSummarize"] = [];
  if (port) {
    try {
      entriesToSummarize = entriesOf(port.collectEntriesForBranchSummary(session, oldLeafId, targetId));
    } catch (error) {
      throw wrapError("branch_summary", "Could not collect the branch", error);
    }
  }
  const preparation: TreePreparation = {
    targetId,
    oldLeafId,
    entriesToSummarize,
    userWantsSummary: options.summarize === true,
    ...(options.customInstructions !== undefined ? { customInstructions: options.customInstructions } : {}),
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
  const decision = await hooks.run(
    "session_before_tree",
    {} as { cancel?: boolean; summary?: BranchSummaryResult; label?: string },
    () => ({ type: "session_before_tree", preparation }),
    (current, result) => ({
      state: { ...current, ...result },
      stop: result.cancel === true || result.summary !== undefined,
    }),
    signal,
  );
  if (decision.cancel) return { cancelled: true };
  let summary = decision.summary;
  const fromHook = summary !== undefined;
  if (!summary && options.summarize && entriesToSummarize.length > 0) {
    if (!port)
      throw new AgentHarnessError("branch_summary", "Branch summaries are not available: no compaction port");
    try {
      summary = await port.generateBranchSummary(
        entriesToSummarize,
        summaryRequest(host, signal, options.customInstructions),
      );
    } catch (error) {
      if (signal.aborted) return { cancelled: true };
      throw wrapError("branch_summary", "Branch summary failed", error);
    }
  }
  if (signal.aborted) return { cancelled: true };

  let newLeafId: string | null = targetId;
  let editorText: string | undefined;
  if (target.type === "message" && target.message.role === "user") {
    newLeafId = target.parentId;
    editorText = contentText(target.message.content, "\n");
  } else if (target.type === "custom_message") {
    newLeafId = target.parentId;
    editorText = contentText(target.content, "\n");
  }
  let summaryEntry: BranchSummaryEntry | undefined;
  let newLeaf: string | null;
  try {
    summaryEntry = await session.moveTo(
      newLeafId,
      summary
        ? { summary: summary.summary, ...(summary.details !== undefined ? { details: summary.details } : {}) }
        : {},
    );
    newLeaf = session.leafId;
    const label = decision.label ?? options.label;
    if (label) await session.setLabel(summaryEntry?.id ?? targetId, label);
  } catch (error) {
    throw wrapError("session", "Could not move the session", error);
  }
  reloadTranscript(host);
  host.events.emit({
    type: "session_tree",
    newLeafId: newLeaf,
    oldLeafId,
    ...(summaryEntry ? { summaryEntry } : {}),
    fromHook,
  });
  return {
    cancelled: false,
    ...(editorText !== undefined ? { editorText } : {}),
    ...(summaryEntry ? { summaryEntry } : {}),
  };
}

/** Replaces the agent's transcript with the session's context. */
function reloadTranscript(host: SummaryHost): void {
  host.agent.setMessages(host.session.buildContext().messages);
}

function summaryRequest(host: SummaryHost, signal: AbortSignal, customInstructions: string | undefined) {
  return {
    model: host.agent.state.model,
    streamFn: host.summaryStreamFn,
    signal,
    ...(customInstructions !== undefined ? { customInstructions } : {}),
  };
}

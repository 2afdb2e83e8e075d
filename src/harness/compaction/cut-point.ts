import { estimateTokens } from "../../loop/token-estimate.js";
import { entryToMessage } from "../../storage/build-context.js";
import type { SessionEntry } from "../../storage/entries.js";

/** Where a compaction cuts a path. */
export interface CutPoint {
  /** First entry kept verbatim after the summary. */
  firstKeptEntryIndex: number;
  /** For a split turn, the entry that starts the cut turn; otherwise -1. */
  turnStartIndex: number;
  /** True when the cut falls inside a turn (at an assistant reply after the turn's start). */
  isSplitTurn: boolean;
}

/**
 * True for entries a kept part may start at: any message except a tool result (a kept part never
 * starts with a result whose call was summarised), and `custom_message` / `branch_summary` entries.
 */
export function isCutPointEntry(entry: SessionEntry): boolean {
  if (entry.type === "custom_message" || entry.type === "branch_summary") return true;
  return entry.type === "message" && entry.message.role !== "toolResult";
}

/** True for entries that start a turn: a cut point that is not the model's reply. */
function isTurnStartEntry(entry: SessionEntry): boolean {
  return isCutPointEntry(entry) && !(entry.type === "message" && entry.message.role === "assistant");
}

/**
 * Chooses where to cut `entries[startIndex, endIndex)` so that about `keepRecentTokens` of the most
 * recent conversation stays verbatim.
 *
 * Walks back from the end summing estimated message tokens; once the sum reaches `keepRecentTokens`
 * the cut is the nearest cut point at or after that entry (or, when only tool results follow, the
 * nearest one before it — so at least `keepRecentTokens` stay). Cut points are user, assistant and
 * other non-tool-result messages plus `custom_message`/`branch_summary` entries, never a tool result,
 * so a tool call and its result always stay on the same side. Settings entries (model changes,
 * labels, …) just before the cut are kept with it. When the cut is an assistant reply, the turn is
 * split and `turnStartIndex` is the entry that started that turn (its user message).
 *
 * Without any cut point the whole range is kept (`firstKeptEntryIndex = startIndex`).
 */
export function findCutPoint(
  entries: readonly SessionEntry[],
  startIndex: number,
  endIndex: number,
  keepRecentTokens: number,
): CutPoint {
  const cutPoints: number[] = [];
  for (let i = startIndex; i < endIndex; i++) if (isCutPointEntry(entries[i]!)) cutPoints.push(i);
  if (cutPoints.length === 0)
    return { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };

  let cutIndex = cutPoints[0]!;
  let accumulated = 0;
  for (let i = endIndex - 1; i >= startIndex; i--) {
    const message = entryToMessage(entries[i]!);
    if (!message) continue;
    accumulated += estimateTokens(message);
    if (accumulated < keepRecentTokens) continue;
    cutIndex = cutPoints.find((point) => point >= i) ?? cutPoints[cutPoints.length - 1]!;
    break;
  }

  let turnStartIndex = -1;
  const cutEntry = entries[cutIndex]!;
  if (cutEntry.type === "message" && cutEntry.message.role === "assistant") {
    for (let i = cutIndex - 1; i >= startIndex; i--) {
      if (isTurnStartEntry(entries[i]!)) {
        turnStartIndex = i;
        break;
      }
    }
  }

  let firstKeptEntryIndex = cutIndex;
  while (firstKeptEntryIndex > startIndex) {
    const previous = entries[firstKeptEntryIndex - 1]!;
    if (previous.type === "compaction" || entryToMessage(previous) !== undefined) break;
    firstKeptEntryIndex--;
  }
  return { firstKeptEntryIndex, turnStartIndex, isSplitTurn: turnStartIndex !== -1 };
}

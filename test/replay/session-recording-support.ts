import type { SessionRecordedStep } from "../../src/harness/session-recording.js";
import { SESSION_RECORDING_PREFIX } from "../../src/harness/session-recording.js";
import type { CustomEntry } from "../../src/storage/entries.js";
import type { SessionTreeView } from "../../src/storage/session-tree.js";

/** The session entry that holds live step `index` of a recorded harness run. */
export function stepEntryId(session: Pick<SessionTreeView, "getBranch">, index: number): string {
  const entry = session
    .getBranch()
    .find(
      (item): item is CustomEntry<SessionRecordedStep> =>
        item.type === "custom" &&
        item.customType === `${SESSION_RECORDING_PREFIX}step` &&
        (item.data as SessionRecordedStep).index === index,
    );
  if (!entry) throw new Error(`no session entry holds step ${index}`);
  return entry.id;
}

/** JSON's view of a snapshot (what the session stores and a restore reads). */
export const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

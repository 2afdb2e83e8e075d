import type { InspectionRecord } from "../../src/inspector/inspection-record.js";

/**
 * The parent session id that the records of actor `sessionId` carry (from its `xstate.init` event
 * record on), or `undefined` when none does (a root).
 *
 * Contract: throws `Error` when two records of the actor name different parents.
 */
export function recordedParentId(
  records: readonly InspectionRecord[],
  sessionId: string,
): string | undefined {
  const parents = new Set(
    records.filter((record) => record.sessionId === sessionId).flatMap((record) => record.parentId ?? []),
  );
  if (parents.size > 1) throw new Error(`records of ${sessionId} name parents ${[...parents].join(", ")}`);
  return [...parents][0];
}

import { SESSION_RECORDING_PREFIX, type SessionRecordedStep } from "../harness/session-recording.js";
import type { SessionTreeView } from "../storage/session-tree.js";
import { CliError } from "./cli-error.js";

/**
 * The entry `sessions fork ID --at AT` forks at: `AT` itself when it is an entry of the session, else,
 * for a number, the entry holding recorded step `AT` (a session recorded with `record: true`; the step
 * numbers are those of `agentchart replay` and `recording.steps`), on any branch of the session.
 *
 * Contract: pure; returns `AT` unchanged unless it is a number that is not an entry id (the fork
 * then refuses a missing entry); throws `CliError` naming `AT` for a number that is no recorded step.
 *
 * ```ts
 * const entryId = forkEntryOf(session, "3"); // the entry that holds step 3
 * ```
 */
export function forkEntryOf(tree: Pick<SessionTreeView, "getEntry" | "getEntries">, at: string): string {
  // An entry id, or anything else that is no step number: the repo's fork names a missing entry.
  if (tree.getEntry(at) || !/^\d+$/.test(at)) return at;
  const steps = tree
    .getEntries()
    .filter((entry) => entry.type === "custom" && entry.customType === `${SESSION_RECORDING_PREFIX}step`);
  if (steps.length === 0)
    throw new CliError(
      `"${at}" is no entry of the session, and the session holds no recorded steps (record: true)`,
    );
  const step = steps.find((entry) => (entry as { data?: SessionRecordedStep }).data?.index === Number(at));
  if (!step)
    throw new CliError(`the session has no recorded step ${at} (its steps are 0 to ${steps.length - 1})`);
  return step.id;
}

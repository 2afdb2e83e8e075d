import type { PersistedAgent } from "../agent/agent-snapshot.js";
import { Recording } from "../replay/recording.js";
import {
  type RecordedStep,
  type RecordingEntry,
  RecordingError,
  type RecordingHeader,
} from "../replay/recording-format.js";
import { checkRecordingEntry, checkRecordingHeader } from "../replay/recording-lines.js";
import type { SessionEntry } from "../storage/entries.js";
import type { SessionTreeView } from "../storage/session-tree.js";
import type { AgentMessage } from "../types/messages.js";
import {
  SESSION_RECORDING_PREFIX,
  type SessionMessageRef,
  type SessionRecordedStep,
} from "./session-recording.js";

/** Where `replaySession` stops: an entry of the session (default: its current leaf). */
export interface ReplaySessionOptions {
  /** The last entry to replay: the branch from the root to it is read, nothing after it. */
  upTo?: string;
}

/** What `replaySession` rebuilt. */
export interface SessionReplay {
  /** The recording the branch holds (steps with their whole snapshots), for `replayModel`, `verifyReplay`. */
  recording: Recording<PersistedAgent>;
  /** The last step at or before `upTo`; `undefined` when the branch holds no step yet. */
  step: RecordedStep<PersistedAgent> | undefined;
  /** That step's persisted agent, exactly as the live agent's was (`Agent.restore` takes it). */
  snapshot: PersistedAgent | undefined;
  /** The id of the session entry that holds that step. */
  entryId: string | undefined;
}

/**
 * Rebuilds the agent's persisted snapshot at an entry of a session recorded with `record: true` (a
 * harness keeps its recording there, see `recordIntoSession`), with no model or tool call: the last
 * step on the branch up to `upTo`, its transcript taken from the session's own message entries.
 *
 * Contract: synchronous and pure (reads the session); throws `RecordingError` naming the session
 * entry when the branch holds no recording header, a recording of another format version, an entry
 * that is not a recording entry, or a step whose message entry is not on the branch; throws the
 * session's `SessionError("not_found")` for an unknown `upTo`.
 *
 * ```ts
 * const { snapshot } = replaySession(session, { upTo: entryId });
 * const agent = Agent.restore(snapshot!, { streamFn, tools });
 * ```
 */
export function replaySession(
  session: Pick<SessionTreeView, "getBranch">,
  options: ReplaySessionOptions = {},
): SessionReplay {
  const { recording, entryIds } = readSessionRecording(session, options.upTo);
  const steps = recording.steps;
  const step = steps.at(-1);
  return {
    recording,
    step,
    snapshot: step?.snapshot,
    entryId: step ? entryIds.get(step) : undefined,
  };
}

/**
 * The recording a session's branch holds, up to `upTo` (default: its leaf): what `replayModel`,
 * `replayTools`, `verifyReplay` and the `agentchart replay` command read.
 *
 * Contract: as `replaySession`.
 *
 * ```ts
 * const recording = recordingOfSession(session);
 * const verdict = await verifyReplay(recording, { agent: { model, tools } });
 * ```
 */
export function recordingOfSession(
  session: Pick<SessionTreeView, "getBranch">,
  options: ReplaySessionOptions = {},
): Recording<PersistedAgent> {
  return readSessionRecording(session, options.upTo).recording;
}

function readSessionRecording(
  session: Pick<SessionTreeView, "getBranch">,
  upTo: string | undefined,
): { recording: Recording<PersistedAgent>; entryIds: Map<RecordingEntry, string> } {
  const messages = new Map<string, AgentMessage>();
  const entries: RecordingEntry<PersistedAgent>[] = [];
  const entryIds = new Map<RecordingEntry, string>();
  let header: RecordingHeader | undefined;
  for (const entry of session.getBranch(upTo)) {
    if (entry.type === "message") messages.set(entry.id, entry.message);
    if (entry.type !== "custom" || !entry.customType.startsWith(SESSION_RECORDING_PREFIX)) continue;
    const where = `session entry ${entry.id}`;
    if (entry.customType === `${SESSION_RECORDING_PREFIX}header`) {
      header ??= checkRecordingHeader(entry.data, undefined, where);
      continue;
    }
    if (!header)
      throw new RecordingError(
        "format",
        "a recording entry comes before the recording header",
        undefined,
        where,
      );
    const checked = checkRecordingEntry(entry.data, undefined, where) as RecordingEntry<PersistedAgent>;
    const rebuilt =
      checked.kind === "step" ? withTranscript(checked as SessionRecordedStep, messages, entry) : checked;
    entries.push(rebuilt);
    entryIds.set(rebuilt, entry.id);
  }
  if (!header)
    throw new RecordingError(
      "empty",
      "the session holds no recording on this branch (record it with `record: true` on its harness)",
    );
  return { recording: new Recording<PersistedAgent>({ source: header.source }, entries), entryIds };
}

/** A stored step with its snapshot's transcript put back from the session's message entries. */
function withTranscript(
  stored: SessionRecordedStep,
  messages: ReadonlyMap<string, AgentMessage>,
  entry: SessionEntry,
): RecordedStep<PersistedAgent> {
  if (!Array.isArray(stored.messages))
    throw new RecordingError(
      "invalid",
      `the step's "messages" must be an array`,
      undefined,
      `session entry ${entry.id}`,
    );
  const transcript = stored.messages.map((ref: SessionMessageRef) => {
    if ("message" in ref) return ref.message;
    const message = messages.get(ref.entry);
    if (!message)
      throw new RecordingError(
        "invalid",
        `step ${stored.index} refers to message entry ${ref.entry}, which is not on this branch before it`,
        undefined,
        `session entry ${entry.id}`,
      );
    return message;
  });
  const { messages: _refs, ...step } = stored;
  const machine = step.snapshot.snapshot;
  return {
    ...step,
    snapshot: {
      ...step.snapshot,
      snapshot: { ...machine, context: { ...machine.context, messages: transcript } },
    },
  };
}

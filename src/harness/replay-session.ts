import type { PersistedAgent } from "../agent/agent-snapshot.js";
import { withoutTimestamp } from "../replay/canonical-request.js";
import { Recording } from "../replay/recording.js";
import {
  type RecordedModelCall,
  type RecordedStep,
  type RecordingEntry,
  RecordingError,
  type RecordingHeader,
} from "../replay/recording-format.js";
import { checkRecordingEntry, checkRecordingHeader } from "../replay/recording-lines.js";
import type { SessionEntry } from "../storage/entries.js";
import type { SessionTreeView } from "../storage/session-tree.js";
import type { AgentMessage, Message } from "../types/messages.js";
import {
  SESSION_RECORDING_PREFIX,
  type SessionMessageRef,
  type SessionRecordedModelCall,
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
 * import { Agent } from "agentchart";
 * const { snapshot } = replaySession(session, { upTo: session.getBranch().at(-3)?.id });
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
 * import { verifyReplay } from "agentchart/testing";
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
  const messages: BranchMessages = { byId: new Map(), order: [], position: new Map() };
  const entries: RecordingEntry<PersistedAgent>[] = [];
  const entryIds = new Map<RecordingEntry, string>();
  let header: RecordingHeader | undefined;
  for (const entry of session.getBranch(upTo)) {
    if (entry.type === "message") {
      messages.byId.set(entry.id, entry.message);
      messages.position.set(entry.id, messages.order.push(entry.id) - 1);
    }
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
      checked.kind === "step"
        ? withTranscript(checked as SessionRecordedStep, messages, entry)
        : checked.kind === "model_call"
          ? withRequestMessages(checked as SessionRecordedModelCall, messages, entry)
          : checked;
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

/** The message entries read so far on the branch: by id, in order, and the position of each id. */
interface BranchMessages {
  byId: Map<string, AgentMessage>;
  order: string[];
  position: Map<string, number>;
}

/** A stored step with its snapshot's transcript put back from the session's message entries. */
function withTranscript(
  stored: SessionRecordedStep,
  messages: BranchMessages,
  entry: SessionEntry,
): RecordedStep<PersistedAgent> {
  const { messages: refs, ...step } = stored;
  const transcript = expandRefs(refs, messages, `step ${stored.index}`, entry);
  const machine = step.snapshot.snapshot;
  return {
    ...step,
    snapshot: {
      ...step.snapshot,
      snapshot: { ...machine, context: { ...machine.context, messages: transcript } },
    },
  };
}

/** A stored model call with its request's messages put back (without timestamps) from the session's entries. */
function withRequestMessages(
  stored: SessionRecordedModelCall,
  messages: BranchMessages,
  entry: SessionEntry,
): RecordedModelCall {
  const { messages: refs, ...call } = stored;
  const request = expandRefs(refs, messages, "the model call", entry).map((message) =>
    withoutTimestamp(message as Message),
  );
  return { ...call, request: { ...call.request, messages: request } };
}

/** The messages `refs` stand for; throws `RecordingError` for a reference to no earlier message entry. */
function expandRefs(
  refs: SessionMessageRef[] | undefined,
  messages: BranchMessages,
  what: string,
  entry: SessionEntry,
): AgentMessage[] {
  const where = `session entry ${entry.id}`;
  if (!Array.isArray(refs))
    throw new RecordingError("invalid", `the entry's "messages" must be an array`, undefined, where);
  const missing = (id: string) =>
    new RecordingError(
      "invalid",
      `${what} refers to message entry ${id}, which is not on this branch before it`,
      undefined,
      where,
    );
  return refs.flatMap((ref): AgentMessage[] => {
    if ("message" in ref) return [ref.message];
    const from = messages.position.get(ref.entry);
    const through = ref.through === undefined ? from : messages.position.get(ref.through);
    if (from === undefined) throw missing(ref.entry);
    if (through === undefined || through < from) throw missing(ref.through ?? ref.entry);
    return messages.order.slice(from, through + 1).map((id) => messages.byId.get(id)!);
  });
}

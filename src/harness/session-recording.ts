import type { PersistedAgent } from "../agent/agent-snapshot.js";
import { requestKeyOf } from "../replay/canonical-request.js";
import type { Recording } from "../replay/recording.js";
import {
  RECORDING_FORMAT,
  RECORDING_FORMAT_VERSION,
  type RecordedModelCall,
  type RecordedStep,
  type RecordingEntry,
  type RecordingHeader,
} from "../replay/recording-format.js";
import type { Session } from "../storage/session.js";
import type { AgentMessage } from "../types/messages.js";

/**
 * The custom type prefix of a recording kept in a session: the header is `agentchart.recording.header`,
 * each entry `agentchart.recording.<kind>` (`model_call`, `tool_call`, `command`, `step`).
 */
export const SESSION_RECORDING_PREFIX = "agentchart.recording.";

/**
 * Messages of a step's snapshot as the session keeps them: a reference to the session's message entry
 * that holds the same message — with `through`, to the run of message entries of the branch from
 * `entry` to `through`, one message each — or the message itself when the session holds none (a
 * compaction's summary, a message whose entry was not written yet when the step was).
 */
export type SessionMessageRef = { entry: string; through?: string } | { message: AgentMessage };

/**
 * A step as the session keeps it: the snapshot without its transcript (`context.messages` is empty),
 * and `messages`, the transcript as references to the session's own message entries.
 */
export interface SessionRecordedStep extends RecordedStep<PersistedAgent> {
  messages: SessionMessageRef[];
}

/**
 * A model call as the session keeps it: the request without its messages (`request.messages` is
 * empty), and `messages`, them as references to the session's message entries (without timestamps).
 */
export interface SessionRecordedModelCall extends RecordedModelCall {
  messages: SessionMessageRef[];
}

/**
 * Keeps what `recording` records in `session`, as custom entries (`SESSION_RECORDING_PREFIX`): the
 * harness's `record` does it, so a harness run's session — JSONL file or PostgreSQL rows — is its
 * recording (`replaySession`, `recordingOfSession`). Entries are written in the recording's order, each
 * once it is complete (a model call when its reply ended, a tool call when it settled); a step's
 * transcript and a model request's messages are written as references to the session's message
 * entries, never a second time. On a session whose branch already holds a recording, it goes on with
 * it (its steps numbered after the branch's last step). Returns the function that stops it.
 *
 * Contract: synchronous; never throws; a write the session refuses (closed, failed) is dropped — the
 * session's own writes report that failure.
 *
 * ```ts
 * const stop = recordIntoSession(harness.recording!, session);
 * ```
 */
export function recordIntoSession(recording: Recording<PersistedAgent>, session: Session): () => void {
  const pending: RecordingEntry<PersistedAgent>[] = [];
  // A harness reopened on a recorded session (a restore, a resume after a crash) goes on with its
  // recording: no second header, step numbers after the branch's last.
  const earlier = session
    .getBranch()
    .filter((entry) => entry.type === "custom" && entry.customType.startsWith(SESSION_RECORDING_PREFIX));
  let headerWritten = earlier.length > 0;
  const stepOffset = earlier.filter(
    (entry) => entry.type === "custom" && entry.customType.endsWith(".step"),
  ).length;
  const write = (customType: string, data: unknown) => {
    session.appendCustom(`${SESSION_RECORDING_PREFIX}${customType}`, data).catch(() => {});
  };
  const drain = () => {
    // What a drain writes are recording entries only: the branch's message entries stay as they are.
    let branch: BranchMessages | undefined;
    const messagesOfBranch = () => {
      branch ??= branchMessages(session);
      return branch;
    };
    while (pending.length > 0 && isComplete(pending[0]!)) {
      const entry = pending.shift()!;
      if (!headerWritten) {
        const header: RecordingHeader = {
          kind: "header",
          format: RECORDING_FORMAT,
          version: RECORDING_FORMAT_VERSION,
          source: recording.source,
        };
        write("header", header);
        headerWritten = true;
      }
      if (entry.kind === "model_call" && entry.key === "") entry.key = requestKeyOf(entry.request);
      write(
        entry.kind,
        entry.kind === "step"
          ? storedStep({ ...entry, index: entry.index + stepOffset }, messagesOfBranch())
          : entry.kind === "model_call"
            ? storedModelCall(entry, messagesOfBranch())
            : entry,
      );
    }
  };
  return recording.onEntry((entry) => {
    pending.push(entry);
    drain();
  });
}

/** Whether an entry holds all it will: a model call's reply ended, a tool call settled. */
function isComplete(entry: RecordingEntry): boolean {
  if (entry.kind === "model_call") {
    const last = entry.events.at(-1)?.type;
    return entry.error !== undefined || last === "done" || last === "error";
  }
  if (entry.kind === "tool_call") return entry.result !== undefined || entry.error !== undefined;
  return true;
}

/** `step` with its transcript moved out of its snapshot into references to `session`'s message entries. */
function storedStep(step: RecordedStep<PersistedAgent>, branch: BranchMessages): SessionRecordedStep {
  const machine = step.snapshot.snapshot;
  return {
    ...step,
    snapshot: { ...step.snapshot, snapshot: { ...machine, context: { ...machine.context, messages: [] } } },
    messages: messageRefs(machine.context.messages, branch, sameMessage),
  };
}

/**
 * `call` with its request's messages (the transcript again, without timestamps) moved out into
 * references to `session`'s message entries.
 */
function storedModelCall(call: RecordedModelCall, branch: BranchMessages): SessionRecordedModelCall {
  return {
    ...call,
    request: { ...call.request, messages: [] },
    messages: messageRefs(call.request.messages, branch, sameWithoutTimestamp),
  };
}

/**
 * `messages` as references to the message entries on `session`'s branch holding the same message
 * (`same`), each entry used once; consecutive entries become one run (`through`); a message no entry
 * holds is kept as it is. Candidates are found by the message's content (the same array, or the same
 * text), so a step costs one pass over the branch, not a comparison of every pair.
 */
function messageRefs(
  messages: readonly AgentMessage[],
  { position, candidates }: BranchMessages,
  same: (entryMessage: AgentMessage, message: AgentMessage) => boolean,
): SessionMessageRef[] {
  const used = new Set<string>();
  const refs: SessionMessageRef[] = [];
  for (const message of messages) {
    const entry = candidates
      .get(contentOf(message))
      ?.find((candidate) => !used.has(candidate.id) && same(candidate.message, message))?.id;
    const last = refs.at(-1);
    const run = last && "entry" in last ? last : undefined;
    if (entry === undefined) refs.push({ message });
    else {
      used.add(entry);
      if (run && position.get(entry) === position.get(run.through ?? run.entry)! + 1) run.through = entry;
      else refs.push({ entry });
    }
  }
  return refs;
}

/** The message entries of a session's branch: the position of each, and the candidates of each content. */
interface BranchMessages {
  position: Map<string, number>;
  candidates: Map<unknown, { id: string; message: AgentMessage }[]>;
}

/** Indexes the message entries on `session`'s current branch (one pass). */
function branchMessages(session: Session): BranchMessages {
  const position = new Map<string, number>();
  const candidates = new Map<unknown, { id: string; message: AgentMessage }[]>();
  for (const entry of session.getBranch()) {
    if (entry.type !== "message") continue;
    position.set(entry.id, position.size);
    const key = contentOf(entry.message);
    const list = candidates.get(key);
    if (list) list.push({ id: entry.id, message: entry.message });
    else candidates.set(key, [{ id: entry.id, message: entry.message }]);
  }
  return { position, candidates };
}

/** What identifies a message's candidates: its content (array or text), else the message itself. */
function contentOf(message: AgentMessage): unknown {
  return "content" in message ? message.content : message;
}

/** The same message: the same object, or the same JSON (a session read back from storage). */
function sameMessage(entryMessage: AgentMessage, message: AgentMessage): boolean {
  return entryMessage === message || JSON.stringify(entryMessage) === JSON.stringify(message);
}

/**
 * A request's message (`withoutTimestamp` of the transcript's, its fields the same values) is the
 * entry's message without its timestamp: every field but `timestamp` the same value, none missing.
 */
function sameWithoutTimestamp(entryMessage: AgentMessage, message: AgentMessage): boolean {
  const entryFields = Object.entries(entryMessage).filter(([key]) => key !== "timestamp");
  const fields = message as unknown as Record<string, unknown>;
  return (
    entryFields.length === Object.keys(fields).length &&
    entryFields.every(([key, value]) => Object.is(fields[key], value))
  );
}

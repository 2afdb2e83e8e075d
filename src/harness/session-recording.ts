import type { PersistedAgent } from "../agent/agent-snapshot.js";
import { canonicalJson, requestKeyOf, withoutTimestamp } from "../replay/canonical-request.js";
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
import type { AgentMessage, Message } from "../types/messages.js";

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
          ? storedStep({ ...entry, index: entry.index + stepOffset }, session)
          : entry.kind === "model_call"
            ? storedModelCall(entry, session)
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
function storedStep(step: RecordedStep<PersistedAgent>, session: Session): SessionRecordedStep {
  const machine = step.snapshot.snapshot;
  return {
    ...step,
    snapshot: { ...step.snapshot, snapshot: { ...machine, context: { ...machine.context, messages: [] } } },
    messages: messageRefs(machine.context.messages, session, jsonOf),
  };
}

/**
 * `call` with its request's messages (the transcript again, without timestamps) moved out into
 * references to `session`'s message entries.
 */
function storedModelCall(call: RecordedModelCall, session: Session): SessionRecordedModelCall {
  return {
    ...call,
    request: { ...call.request, messages: [] },
    messages: messageRefs(call.request.messages, session, canonicalJsonOf),
  };
}

/**
 * `messages` as references to the message entries on `session`'s branch whose message has the same
 * `keyOf`, each entry used once; consecutive entries become one run (`through`); a message no entry
 * holds is kept as it is.
 */
function messageRefs<TMessage extends AgentMessage>(
  messages: readonly TMessage[],
  session: Session,
  keyOf: (message: AgentMessage) => string,
): SessionMessageRef[] {
  const order: string[] = [];
  const ids = new Map<string, string[]>();
  for (const entry of session.getBranch()) {
    if (entry.type !== "message") continue;
    order.push(entry.id);
    const key = keyOf(entry.message);
    ids.set(key, [...(ids.get(key) ?? []), entry.id]);
  }
  const position = new Map(order.map((id, index) => [id, index]));
  const refs: SessionMessageRef[] = [];
  for (const message of messages) {
    const entry = ids.get(keyOf(message))?.shift();
    const last = refs.at(-1);
    const run = last && "entry" in last ? last : undefined;
    if (entry === undefined) refs.push({ message });
    else if (run && position.get(entry) === position.get(run.through ?? run.entry)! + 1) run.through = entry;
    else refs.push({ entry });
  }
  return refs;
}

/** Messages are not changed once in a transcript or a session entry: their JSON is made once. */
const jsonOfMessage = new WeakMap<AgentMessage, string>();
function jsonOf(message: AgentMessage): string {
  let json = jsonOfMessage.get(message);
  if (json === undefined) {
    json = JSON.stringify(message);
    jsonOfMessage.set(message, json);
  }
  return json;
}

/** A message as a model request holds it: canonical JSON without its timestamp, made once per message. */
const canonicalJsonOfMessage = new WeakMap<AgentMessage, string>();
function canonicalJsonOf(message: AgentMessage): string {
  let json = canonicalJsonOfMessage.get(message);
  if (json === undefined) {
    json = canonicalJson(withoutTimestamp(message as Message));
    canonicalJsonOfMessage.set(message, json);
  }
  return json;
}

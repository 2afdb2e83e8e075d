import { applyReplyDelta, deltasOfMessage } from "../storage/reply-delta.js";
import type { SessionRunState, SessionStreamUpdate } from "../storage/session-stream-update.js";
import { type AgentMessage, type AssistantMessage, emptyUsage } from "../types/messages.js";
import { AG_UI_PROTOCOL_VERSION, type AgUiEvent } from "./ag-ui-events.js";
import { runOutcomeEvent } from "./run-outcome.js";
import type { StoredRun } from "./session-run-source.js";
import type { PendingApproval, SharedAgentState } from "./shared-state.js";
import { AgUiTranslator } from "./to-ag-ui-events.js";
import { toAgUiMessages } from "./to-ag-ui-messages.js";

/** Event ids per stream position: an event's id is `position × EVENTS_PER_POSITION + its index`. */
export const EVENTS_PER_POSITION = 4096;

/** An AG-UI event and its SSE id. */
export interface IdentifiedEvent {
  id: number;
  event: AgUiEvent;
}

/** The reply being rebuilt from recorded deltas. */
interface OpenReply {
  key: string;
  partial: AssistantMessage;
  /** The arguments text streamed so far, by content index. */
  args: Map<number, string>;
}

/**
 * The AG-UI events of one run of a session served elsewhere, derived from the session's stream (its
 * entries, the recorded deltas of the streaming reply, its run states) alone, so that every process
 * derives the same events with the same ids: an event's id is its stream position × 4096 + its index
 * among the events of that position. A reader resuming after id N gets the events above N; events
 * that replace state (`STATE_SNAPSHOT`, a resetting `MESSAGES_SNAPSHOT`) carry the id before them.
 *
 * The run: `RUN_STARTED`; at its prompt's entry a `MESSAGES_SNAPSHOT` of the transcript; the
 * translated entries and reply deltas (message ids are places in the transcript, as in
 * `toAgUiMessages`); `STATE_SNAPSHOT`s as the run state changes; `RUN_FINISHED` or `RUN_ERROR` once it
 * is idle. A reply the reader holds part of but which cannot go on — deltas it missed were deleted once
 * the message was stored, it was abandoned by a dead worker and made again, or its stored message is
 * not exactly what the deltas said — is replaced: a `MESSAGES_SNAPSHOT` without it, then the reply as
 * stored (or re-streamed).
 *
 * ```ts
 * import { createClient } from "agentchart/postgres";
 * const client = await createClient({ connectionString: process.env.DATABASE_URL! });
 * declare const run: ConstructorParameters<typeof SessionRunEvents>[0]["run"]; // the stored run asked for
 * const send = (events: unknown[]) => console.log(events);
 * const events = new SessionRunEvents({ threadId: "t1", run, resumeAfter: 0 });
 * send(events.start());
 * client.watch("t1", { afterSeq: 0, deltas: true }).subscribe((update) => send(events.apply(update)));
 * ```
 */
export class SessionRunEvents {
  readonly #threadId: string;
  readonly #run: StoredRun;
  readonly #resumeAfter: number;
  readonly #cursorPosition: number;
  readonly #messages: AgentMessage[] = [];
  #runMessagesFrom = -1;
  #translator: AgUiTranslator | undefined;
  #reply: OpenReply | undefined;
  #position: number;
  #index = 0;
  #lastId = 0;
  #cursorSeen: boolean;
  /** The reader's cursor named a delta that is gone: it holds part of a reply that cannot go on. */
  #resetPending = false;
  #sawPrompt = false;
  #lastState = "";
  #ended = false;

  constructor(input: { threadId: string; run: StoredRun; resumeAfter: number }) {
    this.#threadId = input.threadId;
    this.#run = input.run;
    this.#resumeAfter = input.resumeAfter;
    this.#position = input.run.afterPosition;
    this.#cursorPosition = Math.floor(input.resumeAfter / EVENTS_PER_POSITION);
    this.#cursorSeen = this.#cursorPosition <= input.run.afterPosition;
  }

  /** Whether the run's last event was produced. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The run's first event (`RUN_STARTED`) unless the reader has it. */
  start(): IdentifiedEvent[] {
    const out: IdentifiedEvent[] = [];
    this.#push(out, {
      type: "RUN_STARTED",
      threadId: this.#threadId,
      runId: this.#run.runId,
      protocolVersion: AG_UI_PROTOCOL_VERSION,
    });
    return out;
  }

  /**
   * The events an update of the session's stream gives (none for what precedes or follows the run).
   * `awaiting` are the calls a parked run waits on (for a run state `awaiting_approval`).
   *
   * Contract: synchronous, never throws; call in stream order.
   */
  apply(update: SessionStreamUpdate, awaiting: readonly string[] = []): IdentifiedEvent[] {
    const out: IdentifiedEvent[] = [];
    if (this.#ended) return out;
    if (update.type === "entry") {
      if (update.seq <= this.#run.afterSeq) {
        if (update.entry.type === "message") this.#messages.push(update.entry.message);
      } else if (this.#run.endSeq === undefined || update.seq <= this.#run.endSeq) {
        this.#at(update.position);
        if (update.entry.type === "message") this.#message(update.entry.message, out);
      }
    } else if (update.type === "delta") {
      const inRun =
        update.afterSeq >= this.#run.afterSeq &&
        (this.#run.endSeq === undefined || update.afterSeq < this.#run.endSeq);
      if (inRun) {
        this.#at(update.position);
        this.#delta(update.reply, update, out);
      }
    } else {
      this.#state(update.state, awaiting, out);
      if (update.state === "idle") this.#finish(out);
    }
    return out;
  }

  /** Ends the run now (its end was learnt otherwise: a later run of the session began). */
  finish(): IdentifiedEvent[] {
    const out: IdentifiedEvent[] = [];
    if (!this.#ended) this.#finish(out);
    return out;
  }

  #finish(out: IdentifiedEvent[]): void {
    if (this.#reply) this.#reset(out); // a reply that never got its message: the reader drops it
    this.#state("idle", [], out);
    const messages = this.#runMessagesFrom < 0 ? [] : this.#messages.slice(this.#runMessagesFrom);
    const outcome = runOutcomeEvent({ threadId: this.#threadId, runId: this.#run.runId, messages });
    // A reader whose cursor is past every position left (deltas deleted since) still gets the end.
    this.#index = Math.max(this.#index, this.#resumeAfter - this.#position * EVENTS_PER_POSITION);
    this.#push(out, outcome);
    this.#ended = true;
  }

  #message(message: AgentMessage, out: IdentifiedEvent[]): void {
    const translator = this.#translatorNow();
    const role = (message as { role?: string }).role;
    if (role === "user" && !this.#sawPrompt) {
      this.#sawPrompt = true;
      translator.translate({ type: "message_start", message }); // skipped: the snapshot carries it
      this.#messages.push(message);
      this.#push(out, { type: "MESSAGES_SNAPSHOT", messages: toAgUiMessages(this.#messages) });
      return;
    }
    if (role === "assistant") {
      const stored = message as AssistantMessage;
      const reply = this.#reply;
      if (reply && completes(reply, stored)) {
        this.#pushAll(out, this.#translatorNow().translate({ type: "message_end", message }));
      } else {
        if (reply) this.#reset(out);
        const replayed = this.#translatorNow();
        const partial = emptyReply();
        this.#pushAll(out, replayed.translate({ type: "message_start", message: partial }));
        for (const delta of deltasOfMessage(stored)) {
          const assistantMessageEvent = applyReplyDelta(partial, delta);
          this.#pushAll(
            out,
            replayed.translate({ type: "message_update", message: partial, assistantMessageEvent }),
          );
        }
        this.#pushAll(out, replayed.translate({ type: "message_end", message }));
      }
      this.#reply = undefined;
      this.#messages.push(message);
      return;
    }
    this.#pushAll(out, translator.translate({ type: "message_start", message }));
    this.#pushAll(out, translator.translate({ type: "message_end", message }));
    this.#messages.push(message);
  }

  #delta(key: string, update: Extract<SessionStreamUpdate, { type: "delta" }>, out: IdentifiedEvent[]): void {
    if (this.#reply && this.#reply.key !== key) this.#reset(out); // abandoned, made again
    if (!this.#reply) {
      this.#reply = { key, partial: emptyReply(), args: new Map() };
      this.#pushAll(
        out,
        this.#translatorNow().translate({ type: "message_start", message: this.#reply.partial }),
      );
    }
    const { partial, args } = this.#reply;
    const delta = update.delta;
    if (delta.type === "toolcall_delta")
      args.set(delta.contentIndex, (args.get(delta.contentIndex) ?? "") + delta.delta);
    const assistantMessageEvent = applyReplyDelta(partial, delta);
    this.#pushAll(
      out,
      this.#translatorNow().translate({ type: "message_update", message: partial, assistantMessageEvent }),
    );
  }

  #state(state: SessionRunState, awaiting: readonly string[], out: IdentifiedEvent[]): void {
    const snapshot: SharedAgentState = {
      phase: state === "idle" ? "idle" : state === "awaiting_approval" ? "waiting" : "running",
      awaitingApproval: state === "awaiting_approval" ? this.#pendingApprovals(awaiting) : [],
      awaitingClient: [],
      queued: { steering: [], followUp: [] },
    };
    const text = JSON.stringify(snapshot);
    if (text === this.#lastState) return;
    this.#lastState = text;
    this.#pushUnpositioned(out, { type: "STATE_SNAPSHOT", snapshot });
  }

  #pendingApprovals(awaiting: readonly string[]): PendingApproval[] {
    const calls = new Map<string, PendingApproval>();
    for (const message of this.#messages) {
      if (message.role !== "assistant") continue;
      for (const block of message.content)
        if (block.type === "toolCall")
          calls.set(block.id, { toolCallId: block.id, toolName: block.name, args: block.arguments });
    }
    return awaiting.flatMap((id) => {
      const call = calls.get(id);
      return call ? [call] : [];
    });
  }

  /** Drops the open reply: a snapshot of the transcript without it, and a translator from there. */
  #reset(out: IdentifiedEvent[]): void {
    this.#reply = undefined;
    this.#translator = new AgUiTranslator({
      firstMessageIndex: this.#messages.length,
      skipUserMessages: this.#sawPrompt ? 0 : 1,
    });
    this.#pushUnpositioned(out, { type: "MESSAGES_SNAPSHOT", messages: toAgUiMessages(this.#messages) });
  }

  /** The run's translator, made at its first entry or delta (message ids continue the transcript). */
  #translatorNow(): AgUiTranslator {
    if (!this.#translator) {
      this.#runMessagesFrom = this.#messages.length;
      this.#translator = new AgUiTranslator({
        firstMessageIndex: this.#messages.length,
        skipUserMessages: 1,
      });
    }
    return this.#translator;
  }

  /** The events from here on belong to stream position `position`. */
  #at(position: number): void {
    if (position !== this.#position) {
      this.#position = position;
      this.#index = 0;
    }
    if (this.#cursorSeen) return;
    if (position === this.#cursorPosition) this.#cursorSeen = true;
    else if (position > this.#cursorPosition) {
      this.#cursorSeen = true;
      this.#resetPending = true; // the position the reader stopped at is gone: a deleted delta
    }
  }

  #pushAll(out: IdentifiedEvent[], events: readonly AgUiEvent[]): void {
    for (const event of events) this.#push(out, event);
  }

  /** An event at the current position: sent unless the reader has it. */
  #push(out: IdentifiedEvent[], event: AgUiEvent): void {
    const id = this.#position * EVENTS_PER_POSITION + ++this.#index;
    this.#lastId = id;
    if (id <= this.#resumeAfter) return;
    if (this.#resetPending) {
      this.#resetPending = false;
      out.push({
        id: this.#resumeAfter,
        event: { type: "MESSAGES_SNAPSHOT", messages: toAgUiMessages(this.#messages) },
      });
    }
    out.push({ id, event });
  }

  /** An event that replaces state, with the id before it: sent once the reader is past its cursor. */
  #pushUnpositioned(out: IdentifiedEvent[], event: AgUiEvent): void {
    if (this.#lastId < this.#resumeAfter) return;
    out.push({ id: this.#lastId, event });
  }
}

/** An assistant reply with no content yet (the recorded deltas fill it in). */
function emptyReply(): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: "",
    provider: "",
    model: "",
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: 0,
  };
}

/**
 * Whether the deltas the reader got are the whole stored reply (the same blocks, texts and argument
 * texts). Not so when deltas were missed — deleted because the message was stored between two reads,
 * or lost by a failed write — or the reply was made again: then the reader's partial is replaced.
 */
function completes(reply: OpenReply, stored: AssistantMessage): boolean {
  const { partial, args } = reply;
  if (partial.content.length !== stored.content.length) return false;
  return partial.content.every((block, index) => {
    const final = stored.content[index];
    if (block.type === "text") return final?.type === "text" && final.text === block.text;
    if (block.type === "thinking") return final?.type === "thinking" && final.thinking === block.thinking;
    return (
      final?.type === "toolCall" &&
      final.id === block.id &&
      args.get(index) === JSON.stringify(final.arguments)
    );
  });
}

import { messageText } from "../loop/messages.js";
import { SessionError } from "../types/session-error.js";
import { AgUiError } from "./ag-ui-error.js";
import type { AgUiMessage, RunAgentInput } from "./ag-ui-events.js";
import type { AgentCommand } from "./agent-command.js";
import { SessionRunEvents } from "./session-run-events.js";
import type { SessionRunSource, StoredRun } from "./session-run-source.js";
import { sseFrame } from "./sse-frame.js";

/** Runs and commands of the AG-UI endpoint served from a session store (see {@link SessionRunSource}). */
export interface SessionRuns {
  /** The SSE body of the run the input names (started once), from the event after `lastEventId`. */
  run(input: RunAgentInput, lastEventId: number): Promise<ReadableStream<Uint8Array>>;
  /** Sends a command to the thread's session (the worker running it applies it). */
  command(threadId: string, command: AgentCommand): Promise<void>;
}

/**
 * The endpoint's runs when the agent runs elsewhere (workers of a session store): a run request
 * starts the run once, by `threadId` (the session) + `runId`, with the input's new user messages as
 * its prompt (messages whose ids the server did not give, `m<index>`), and streams the
 * {@link SessionRunEvents} of the session's stream. The events depend on the store alone, so a
 * reconnect with `Last-Event-ID` on any process serving the same store resumes exactly.
 *
 * Contract: async; rejects with `AgUiError` for refused requests, with the codes of the in-process
 * mode — `invalid_request` (a malformed thread id or text), `unknown_thread` (a command for a thread
 * that has no session), `not_awaiting` (a decision for a call that does not wait), `thread_busy`,
 * `no_new_message` — and with the store's other errors otherwise.
 *
 * ```ts
 * import { createClient } from "agentchart/postgres";
 * const runs = sessionRuns(await createClient({ connectionString: process.env.DATABASE_URL! }));
 * declare const input: Parameters<typeof runs.run>[0]; // the request's RunAgentInput
 * const body = await runs.run(input, 0);
 * ```
 */
export function sessionRuns(source: SessionRunSource): SessionRuns {
  const runs: SessionRuns = {
    async run(input, lastEventId) {
      const threadId = input.threadId;
      let run = await source.run(threadId, input.runId);
      if (!run) {
        const prompt = newUserText(input.messages);
        if (prompt === undefined)
          throw new AgUiError("no_new_message", "The input has no user message the thread has not seen yet");
        ({ run } = await source.startRun(threadId, input.runId, prompt));
      }
      if (input.resume?.length) {
        const awaiting = new Set(await source.awaitingApproval(threadId));
        for (const entry of input.resume) {
          // Answers already applied (a reconnect sends the same request again) are skipped.
          if (!awaiting.has(entry.interruptId)) continue;
          const payload = entry.payload as { approved?: unknown; reason?: unknown } | undefined;
          if (entry.status === "resolved" && payload?.approved !== false)
            await source.approve(threadId, entry.interruptId);
          else
            await source.deny(
              threadId,
              entry.interruptId,
              typeof payload?.reason === "string" ? payload.reason : undefined,
            );
        }
      }
      return streamOfRun(source, threadId, run, lastEventId);
    },
    async command(threadId, command) {
      switch (command.type) {
        case "approve":
          return source.approve(threadId, command.toolCallId);
        case "deny":
          return source.deny(threadId, command.toolCallId, command.reason);
        case "steer":
          return source.steer(threadId, command.text);
        case "followUp":
          return source.followUp(threadId, command.text);
        case "abort":
          return source.abort(threadId);
      }
    },
  };
  return {
    run: (input, lastEventId) => runs.run(input, lastEventId).catch(refusal),
    command: (threadId, command) => runs.command(threadId, command).catch(refusal),
  };
}

/** The store's refusal as the endpoint's `AgUiError` (the in-process mode's codes); other errors as they are. */
function refusal(error: unknown): never {
  if (!(error instanceof SessionError)) throw error;
  const code =
    error.code === "not_found"
      ? "unknown_thread"
      : error.code === "invalid_id" || error.code === "invalid_entry"
        ? "invalid_request"
        : error.code === "not_awaiting"
          ? "not_awaiting"
          : error.code === "locked"
            ? "thread_busy"
            : undefined;
  if (code === undefined) throw error;
  throw new AgUiError(code, error.message, { cause: error });
}

/** The SSE stream of a run, from the session's stream; cancelling it only stops reading. */
function streamOfRun(
  source: SessionRunSource,
  threadId: string,
  run: StoredRun,
  lastEventId: number,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let stop: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const events = new SessionRunEvents({ threadId, run, resumeAfter: lastEventId });
      let closed = false;
      const send = (list: ReturnType<SessionRunEvents["start"]>) => {
        if (closed) return;
        for (const { id, event } of list) controller.enqueue(encoder.encode(sseFrame(id, event)));
        if (events.ended) {
          closed = true;
          stop?.();
          controller.close();
        }
      };
      send(events.start());
      // Updates are handled one at a time, in order (a run state may need a read of the store first).
      let handled = Promise.resolve();
      const subscription = source.watch(threadId, { afterSeq: 0, deltas: true }).subscribe({
        next: (update) => {
          handled = handled
            .then(async () => {
              if (closed) return;
              if (update.type !== "run_state") return send(events.apply(update));
              const awaiting =
                update.state === "awaiting_approval" ? await source.awaitingApproval(threadId) : [];
              send(events.apply(update, awaiting));
              if (update.state === "idle" || run.endSeq !== undefined) return;
              // The state belongs to a later run when one has begun: this one is over.
              const now = await source.run(threadId, run.runId);
              if (now?.endSeq !== undefined) send(events.finish());
            })
            .catch((error: unknown) => {
              if (closed) return;
              closed = true;
              stop?.();
              controller.error(error);
            });
        },
        error: (error: unknown) => {
          if (closed) return;
          closed = true;
          controller.error(error);
        },
      });
      stop = () => subscription.unsubscribe();
      if (closed) stop();
    },
    cancel() {
      stop?.();
    },
  });
}

/** The text of the input's user messages the server did not name (`m<index>`), or `undefined`. */
function newUserText(messages: readonly AgUiMessage[]): string | undefined {
  const texts = messages
    .filter((message) => message.role === "user" && !/^m\d+$/.test(message.id))
    .map((message) => messageText(message as never));
  return texts.length > 0 ? texts.join("\n\n") : undefined;
}

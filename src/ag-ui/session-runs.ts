import type { AddressedCommand } from "../commands/addressed-command.js";
import { CommandError } from "../commands/command-error.js";
import { messageText } from "../loop/messages.js";
import { SessionError } from "../types/session-error.js";
import { AgUiError } from "./ag-ui-error.js";
import type { AgUiMessage, RunAgentInput } from "./ag-ui-events.js";
import { BUDGET_INTERRUPT_ID, resumeCommands } from "./request-decision.js";
import { SessionRunEvents } from "./session-run-events.js";
import type { SessionRunSource, StoredRun } from "./session-run-source.js";
import { sseFrame } from "./sse-frame.js";

/** Runs and commands of the AG-UI endpoint served from a session store (see {@link SessionRunSource}). */
export interface SessionRuns {
  /** The SSE body of the run the input names (started once), from the event after `lastEventId`. */
  run(input: RunAgentInput, lastEventId: number): Promise<ReadableStream<Uint8Array>>;
  /** Sends a command to the thread's session (the worker running it applies it). */
  command(threadId: string, command: AddressedCommand): Promise<void>;
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
 * that has no session), `thread_busy`, `no_new_message` — with `CommandError` `not_waiting` for a
 * decision on a call that does not wait and `refused` for a command the store does not take
 * (`ANSWER_TOOL`, `RAISE_BUDGET`, `CONTINUE_ONCE`, and `STEER` / `FOLLOW_UP` / `ABORT` addressed to a
 * sub-agent), and with the store's other errors otherwise. Resume entries answer approvals only.
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
      const approvals = input.resume?.filter((entry) => entry.interruptId !== BUDGET_INTERRUPT_ID);
      if (approvals?.length) {
        // Answers already applied (a reconnect sends the same request again) give no command.
        const awaiting = (await source.awaitingApproval(threadId)).map((toolCallId) => ({ toolCallId }));
        for (const command of resumeCommands(approvals, awaiting)) await runs.command(threadId, command);
      }
      return streamOfRun(source, threadId, run, lastEventId);
    },
    async command(threadId, command) {
      const path = command.agentPath?.length ? { agentPath: command.agentPath } : undefined;
      switch (command.type) {
        case "APPROVE_TOOL":
          return source.approve(threadId, command.toolCallId, path);
        case "DENY_TOOL":
          return source.deny(threadId, command.toolCallId, command.reason, path);
        case "STEER":
          if (!path) return source.steer(threadId, messageText(command.message));
          break;
        case "FOLLOW_UP":
          if (!path) return source.followUp(threadId, messageText(command.message));
          break;
        case "ABORT":
          if (!path) return source.abort(threadId);
          break;
      }
      throw new CommandError(
        "refused",
        `${command.type}${path ? ` to a sub-agent` : ""}: a thread served from a session store takes APPROVE_TOOL, DENY_TOOL, and STEER, FOLLOW_UP and ABORT to the root agent`,
        { command: command.type, agentPath: command.agentPath ?? [] },
      );
    },
  };
  return {
    run: (input, lastEventId) => runs.run(input, lastEventId).catch(refusal),
    command: (threadId, command) => runs.command(threadId, command).catch(refusal),
  };
}

/** The store's refusal as the in-process mode's error (`AgUiError`, `CommandError`); other errors as they are. */
function refusal(error: unknown): never {
  // A CommandError (the PostgreSQL client refuses a decision for a call that does not wait) passes as it is.
  if (!(error instanceof SessionError)) throw error;
  if (error.code === "not_awaiting") throw new CommandError("not_waiting", error.message);
  const code =
    error.code === "not_found"
      ? "unknown_thread"
      : error.code === "invalid_id" || error.code === "invalid_entry"
        ? "invalid_request"
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

import type { ToolResult } from "../types/tool.js";
import { AgUiError } from "./ag-ui-error.js";
import type { AgUiMessage, RunAgentInput } from "./ag-ui-events.js";
import { type RunTarget, waitsForClientOnly } from "./run-target.js";

/** A client's answer to a call of a client tool, read from a run input. */
export interface ClientAnswer {
  toolCallId: string;
  result: ToolResult;
  isError: boolean;
}

/**
 * The answers a run input gives to calls of client tools: its `tool` messages for which `isNew` holds
 * (the content is the result's text; a message with `error` is an error result), then its `resume`
 * entries that name a call in `waitingIds` (`resolved`: the payload — a string, `{ content }`, or any
 * JSON as its text; `cancelled`: an error result). One answer per call, the first given.
 *
 * Contract: pure, synchronous, never throws.
 *
 * ```ts
 * declare const input: Parameters<typeof clientAnswersIn>[0]; // the request's RunAgentInput
 * const seen = new Set<string>(); // the ids of the messages the thread has
 * clientAnswersIn(input, (message) => !seen.has(message.id), new Set(["call_1"]));
 * ```
 */
export function clientAnswersIn(
  input: RunAgentInput,
  isNew: (message: AgUiMessage) => boolean,
  waitingIds: ReadonlySet<string>,
): ClientAnswer[] {
  const answers = new Map<string, ClientAnswer>();
  for (const message of input.messages) {
    if (message.role !== "tool" || !isNew(message) || answers.has(message.toolCallId)) continue;
    const text =
      typeof message.content === "string" && message.content !== "" ? message.content : message.error;
    answers.set(message.toolCallId, {
      toolCallId: message.toolCallId,
      result: textResult(text ?? ""),
      isError: message.error !== undefined,
    });
  }
  for (const entry of input.resume ?? []) {
    if (!waitingIds.has(entry.interruptId) || answers.has(entry.interruptId)) continue;
    answers.set(entry.interruptId, {
      toolCallId: entry.interruptId,
      result: textResult(
        entry.status === "cancelled" ? "The client cancelled the call" : payloadText(entry.payload),
      ),
      isError: entry.status === "cancelled",
    });
  }
  return [...answers.values()];
}

/**
 * The input's answers to calls of client tools not answered before (new messages by `thread.known`,
 * calls not in `thread.answeredToolCallIds` nor with a result in the transcript). Every one must name a
 * call that waits for the client: a call of the last reply that has not asked yet (a restored run goes
 * through its preflight again) is waited for; any other is `not_awaiting`.
 *
 * Contract: async; rejects only with `AgUiError` `not_awaiting`.
 */
export async function clientAnswers(
  target: RunTarget,
  input: RunAgentInput,
  thread: { known: (messageId: string) => boolean; answeredToolCallIds: ReadonlySet<string> },
): Promise<ClientAnswer[]> {
  const waitingIds = () => new Set(target.state().awaitingClient.map((call) => call.toolCallId));
  const transcript = target.messages();
  const resulted = new Set(
    transcript.flatMap((message) => (message.role === "toolResult" ? [message.toolCallId] : [])),
  );
  const answers = clientAnswersIn(input, (message) => !thread.known(message.id), waitingIds()).filter(
    (answer) => !resulted.has(answer.toolCallId) && !thread.answeredToolCallIds.has(answer.toolCallId),
  );
  if (answers.length === 0) return [];
  const lastReply = transcript.findLast((message) => message.role === "assistant");
  const unansweredCalls = new Set(
    lastReply?.role === "assistant"
      ? lastReply.content.flatMap((block) =>
          block.type === "toolCall" && !resulted.has(block.id) ? [block.id] : [],
        )
      : [],
  );
  const asking = waitingIds();
  if (
    target.running() &&
    answers.some((answer) => !asking.has(answer.toolCallId) && unansweredCalls.has(answer.toolCallId))
  )
    await settled(target);
  const waiting = waitingIds();
  const stray = answers.find((answer) => !waiting.has(answer.toolCallId));
  if (stray) throw notAwaiting(input.threadId, stray.toolCallId);
  return answers;
}

/**
 * Gives the answers to their calls, remembering them in `answered`. An answer to a call answered
 * already or no longer waiting (another request answered it first) is `AgUiError` `not_awaiting`
 * (409), and the answers after it are not given.
 *
 * Contract: synchronous; throws only `AgUiError` `not_awaiting`.
 */
export function applyAnswers(
  target: RunTarget,
  answers: readonly ClientAnswer[],
  answered: Set<string>,
  threadId: string,
): void {
  for (const answer of answers) {
    if (answered.has(answer.toolCallId)) throw notAwaiting(threadId, answer.toolCallId);
    try {
      target.answer(answer.toolCallId, answer.result, answer.isError);
    } catch (error) {
      throw new AgUiError("not_awaiting", notAwaiting(threadId, answer.toolCallId).message, { cause: error });
    }
    answered.add(answer.toolCallId);
  }
}

/** The `not_awaiting` error of an answer for a call that does not wait for the client. */
export function notAwaiting(threadId: string, toolCallId: string): AgUiError {
  return new AgUiError(
    "not_awaiting",
    `No tool call "${toolCallId}" of thread ${threadId} waits for the client's answer`,
  );
}

/** Settles once the target cannot go on by itself: it is idle, or a call waits for approval or the client. */
function settled(target: RunTarget): Promise<void> {
  return new Promise((resolve) => {
    const stuck = () => {
      const state = target.state();
      return !target.running() || state.awaitingApproval.length > 0 || waitsForClientOnly(state);
    };
    if (stuck()) return resolve();
    const subscription = target.events$.subscribe(() => {
      if (!stuck()) return;
      subscription.unsubscribe();
      resolve();
    });
    void target.idle().then(() => {
      subscription.unsubscribe();
      resolve();
    });
  });
}

function textResult(text: string): ToolResult {
  return { content: [{ type: "text", text }] };
}

function payloadText(payload: unknown): string {
  if (typeof payload === "string") return payload;
  const content = (payload as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  return JSON.stringify(payload ?? null);
}

import type { AddressedCommand } from "../commands/addressed-command.js";
import { CommandError } from "../commands/command-error.js";
import type { AgentSurface } from "../harness/agent-surface.js";
import type { ToolResult } from "../types/tool.js";
import type { AgUiMessage, RunAgentInput } from "./ag-ui-events.js";
import { waitsForClientOnly } from "./waits-for-client-only.js";

/** A client's answer to a call of a client tool, read from a run input: the machine's `ANSWER_TOOL`. */
export type ClientAnswer = Extract<AddressedCommand, { type: "ANSWER_TOOL" }>;

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
    answers.set(
      message.toolCallId,
      answerOf(message.toolCallId, textResult(text ?? ""), message.error !== undefined),
    );
  }
  for (const entry of input.resume ?? []) {
    if (!waitingIds.has(entry.interruptId) || answers.has(entry.interruptId)) continue;
    const cancelled = entry.status === "cancelled";
    answers.set(
      entry.interruptId,
      answerOf(
        entry.interruptId,
        textResult(cancelled ? "The client cancelled the call" : payloadText(entry.payload)),
        cancelled,
      ),
    );
  }
  return [...answers.values()];
}

/**
 * The input's answers to calls of client tools not answered before (new messages by `thread.known`,
 * calls not in `thread.answeredToolCallIds` nor with a result in the transcript), each addressed to
 * the agent whose call it answers (`state.awaitingClient` gives the path). Every one must name a call
 * that waits for the client: a call of the last reply that has not asked yet (a restored run goes
 * through its preflight again) is waited for; any other is `CommandError` `not_waiting`.
 *
 * Contract: async; rejects only with `CommandError` `not_waiting` naming the call.
 *
 * ```ts
 * declare const input: Parameters<typeof clientAnswers>[1]; // a run request's RunAgentInput
 * const seen = new Set<string>();
 * const answers = await clientAnswers(agent, input, { known: (id) => seen.has(id), answeredToolCallIds: new Set() });
 * ```
 */
export async function clientAnswers(
  surface: AgentSurface,
  input: RunAgentInput,
  thread: { known: (messageId: string) => boolean; answeredToolCallIds: ReadonlySet<string> },
): Promise<ClientAnswer[]> {
  const waitingIds = () => new Set(surface.state.awaitingClient.map((call) => call.toolCallId));
  const transcript = surface.state.messages;
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
    surface.isRunning &&
    answers.some((answer) => !asking.has(answer.toolCallId) && unansweredCalls.has(answer.toolCallId))
  )
    await settled(surface);
  const waiting = new Map(surface.state.awaitingClient.map((call) => [call.toolCallId, call]));
  return answers.map((answer) => {
    const call = waiting.get(answer.toolCallId);
    if (!call) throw notWaitingForClient(answer);
    return call.agentPath?.length ? { ...answer, agentPath: call.agentPath } : answer;
  });
}

/** The `not_waiting` error of an answer for a call that does not wait for the client. */
function notWaitingForClient(answer: ClientAnswer): CommandError {
  return new CommandError(
    "not_waiting",
    `ANSWER_TOOL: no tool call "${answer.toolCallId}" is awaiting the client`,
    { command: answer.type, agentPath: answer.agentPath ?? [], toolCallId: answer.toolCallId },
  );
}

/** Settles once the agent cannot go on by itself: it is idle, or a call waits for approval or the client. */
function settled(surface: AgentSurface): Promise<void> {
  return new Promise((resolve) => {
    const stuck = () => {
      const state = surface.state;
      return !surface.isRunning || state.awaitingApproval.length > 0 || waitsForClientOnly(state);
    };
    if (stuck()) return resolve();
    const subscription = surface.events$.subscribe(() => {
      if (!stuck()) return;
      subscription.unsubscribe();
      resolve();
    });
    void surface.waitForIdle().then(() => {
      subscription.unsubscribe();
      resolve();
    });
  });
}

function answerOf(toolCallId: string, result: ToolResult, isError: boolean): ClientAnswer {
  return { type: "ANSWER_TOOL", toolCallId, result, isError };
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

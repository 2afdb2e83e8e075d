import type { WaitingToolCall } from "../agent/agent-state.js";
import type { AddressedCommand, CallAddress } from "../commands/addressed-command.js";
import { CommandError } from "../commands/command-error.js";
import { parseAgentCommand } from "../commands/parse-command.js";
import { userMessage } from "../loop/messages.js";
import { AgUiError } from "./ag-ui-error.js";
import type { RunAgentInput } from "./ag-ui-events.js";
import type { ClientAnswer } from "./client-answers.js";

/** The `interruptId` of a resume entry that answers a run held at a budget limit or a loop breaker. */
export const BUDGET_INTERRUPT_ID = "budget";

/** What the endpoint knows of a thread when a run request comes, as data. */
export interface ThreadView {
  threadId: string;
  /** The AG-UI run the request names, when the thread has it (going on or finished). */
  requestedRunExists: boolean;
  /** The thread's AG-UI run going on, if one does. */
  liveRunId: string | undefined;
  /** Whether the agent's run goes on (`surface.isRunning`: also one parked on client tools' calls). */
  agentRunning: boolean;
  /** Calls of client tools waiting for the client (`surface.state.awaitingClient`). */
  awaitingClient: readonly WaitingToolCall[];
}

/** What a run request asks, as data: its new user text, its answers to client tools, whether it resumes. */
export interface RunRequestView {
  runId: string;
  /** The text of the input's new user messages (`undefined`: none). */
  prompt: string | undefined;
  /** The input's answers to calls of client tools (`ANSWER_TOOL` commands). */
  answers: readonly ClientAnswer[];
  /** Whether the input has `resume` entries (approvals, budget answers: applied before deciding). */
  resumes: boolean;
}

/**
 * What the endpoint does with a run request:
 * - `join`: stream the thread's run `runId` (the one requested, or the one going on), after sending
 *   `commands` (the request's answers to client tools);
 * - `start`: a new AG-UI run that prompts the agent with `prompt`;
 * - `continue`: a new AG-UI run that continues the agent's run waiting for the client, by sending
 *   `commands` (new text as `STEER` first, so it comes right after the results, then the answers);
 * - `refuse`: answer with `error`.
 */
export type RunDecision =
  | { type: "join"; runId: string; commands: AddressedCommand[] }
  | { type: "start"; prompt: string }
  | { type: "continue"; commands: AddressedCommand[] }
  | { type: "refuse"; error: AgUiError | CommandError };

/**
 * Decides what to do with a run request, from the thread's state and the request as data. In order: a
 * run that exists is joined (it never starts twice); while an AG-UI run goes on, a request with
 * answers and no new text joins it, any other is `thread_busy`; while the agent's run goes on without
 * one (it waits for the client), answers continue it (new text with them only once every waiting call
 * is answered: else `awaiting_client`), none is `thread_busy`; an idle agent takes no answers
 * (`not_waiting`) and needs new text (`no_new_message`) to start.
 *
 * Contract: pure; never throws (a refusal is a decision).
 *
 * ```ts
 * decideRunRequest(
 *   { threadId: "t1", requestedRunExists: false, liveRunId: undefined, agentRunning: false, awaitingClient: [] },
 *   { runId: "r1", prompt: "Hello", answers: [], resumes: false },
 * ); // { type: "start", prompt: "Hello" }
 * ```
 */
export function decideRunRequest(thread: ThreadView, request: RunRequestView): RunDecision {
  const { threadId } = thread;
  const { prompt, answers } = request;
  if (thread.requestedRunExists) return { type: "join", runId: request.runId, commands: [] };
  if (thread.liveRunId !== undefined) {
    if (prompt === undefined && (request.resumes || answers.length > 0))
      return { type: "join", runId: thread.liveRunId, commands: [...answers] };
    return refuse(
      new AgUiError(
        "thread_busy",
        `Thread ${threadId} is running ${thread.liveRunId}; join it, steer it, or wait for it to end`,
      ),
    );
  }
  if (thread.agentRunning) {
    const answered = new Set(answers.map((answer) => answer.toolCallId));
    const unanswered = thread.awaitingClient.filter((call) => !answered.has(call.toolCallId));
    if (prompt !== undefined && unanswered.length > 0)
      return refuse(
        new AgUiError(
          "awaiting_client",
          `Thread ${threadId} waits for the client's answer to ${unanswered.map((call) => `"${call.toolCallId}"`).join(", ")}: send tool messages (toolCallId, content) answering every waiting call with a new message, or before it`,
        ),
      );
    if (answers.length === 0)
      return refuse(new AgUiError("thread_busy", `Thread ${threadId} is running; wait for it to end`));
    const steer: AddressedCommand[] =
      prompt === undefined ? [] : [{ type: "STEER", message: userMessage(prompt) }];
    return { type: "continue", commands: [...steer, ...answers] };
  }
  const [stray] = answers;
  if (stray)
    return refuse(
      new CommandError(
        "not_waiting",
        `ANSWER_TOOL: no tool call "${stray.toolCallId}" is awaiting the client`,
        {
          command: stray.type,
          agentPath: stray.agentPath ?? [],
          toolCallId: stray.toolCallId,
        },
      ),
    );
  if (prompt === undefined)
    return refuse(
      new AgUiError("no_new_message", "The input has no user message the thread has not seen yet"),
    );
  return { type: "start", prompt };
}

/**
 * The commands a run input's `resume` entries give, in the machine's vocabulary: an entry for a call
 * waiting for approval (`interruptId` = its tool call id; `payload.agentPath` names a sub-agent's, else
 * the one call of that id in `awaitingApproval`) is `APPROVE_TOOL` when `resolved` with
 * `payload.approved !== false`, else `DENY_TOOL` (with `payload.reason`); an entry
 * `interruptId: "budget"` (a sub-agent's: `payload.agentPath`) is `RAISE_BUDGET` with `payload.limits`,
 * else `CONTINUE_ONCE`, and `ABORT` when `cancelled`. Entries for calls that do not wait for approval
 * (a client tool's call: an answer; one answered already: a reconnect) give nothing.
 *
 * Contract: pure; throws `CommandError` `invalid_command` for a budget answer's bad `limits`.
 *
 * ```ts
 * resumeCommands([{ interruptId: "call_1", status: "resolved" }], agent.state.awaitingApproval);
 * // [{ type: "APPROVE_TOOL", toolCallId: "call_1" }]
 * ```
 */
export function resumeCommands(
  resume: RunAgentInput["resume"],
  awaitingApproval: readonly CallAddress[],
): AddressedCommand[] {
  return (resume ?? []).flatMap((entry): AddressedCommand[] => {
    const payload = (entry.payload ?? {}) as { approved?: unknown; reason?: unknown; limits?: unknown };
    const named = pathOf(entry.payload);
    if (entry.interruptId === BUDGET_INTERRUPT_ID) {
      if (entry.status === "cancelled") return [{ type: "ABORT" }];
      const path = named?.length ? { agentPath: named } : {};
      return [
        parseAgentCommand(
          payload.limits === undefined
            ? { type: "CONTINUE_ONCE", ...path }
            : { type: "RAISE_BUDGET", limits: payload.limits, ...path },
        ),
      ];
    }
    const calls = awaitingApproval.filter(
      (call) =>
        call.toolCallId === entry.interruptId &&
        (named === undefined || (call.agentPath ?? []).join("/") === named.join("/")),
    );
    if (calls.length !== 1) return [];
    const { agentPath } = calls[0]!;
    const address = { toolCallId: entry.interruptId, ...(agentPath?.length ? { agentPath } : {}) };
    if (entry.status === "resolved" && payload.approved !== false)
      return [{ type: "APPROVE_TOOL", ...address }];
    return [
      {
        type: "DENY_TOOL",
        ...address,
        ...(typeof payload.reason === "string" ? { reason: payload.reason } : {}),
      },
    ];
  });
}

function refuse(error: AgUiError | CommandError): RunDecision {
  return { type: "refuse", error };
}

/** The `agentPath` a resume payload names (`{ agentPath }`), if it is one. */
function pathOf(payload: unknown): string[] | undefined {
  const agentPath = (payload as { agentPath?: unknown } | undefined)?.agentPath;
  return Array.isArray(agentPath) && agentPath.every((id) => typeof id === "string")
    ? (agentPath as string[])
    : undefined;
}

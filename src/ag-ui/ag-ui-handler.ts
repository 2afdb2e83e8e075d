import type { Agent } from "../agent/agent.js";
import type { AgentHarness } from "../harness/agent-harness.js";
import { messageText } from "../loop/messages.js";
import type { AgentTool } from "../types/tool.js";
import { AgUiError } from "./ag-ui-error.js";
import type { AgUiMessage, RunAgentInput } from "./ag-ui-events.js";
import { AgUiRun, type AgUiRunInput } from "./ag-ui-run.js";
import { budgetLimitsOf, parseCommandRequest } from "./agent-command.js";
import { type Authorize, checkAuthorization } from "./authorization.js";
import { applyAnswers, clientAnswers, notAwaiting } from "./client-answers.js";
import { clientToolsOf, sameClientTools } from "./client-tools.js";
import {
  type AgUiErrorListener,
  errorResponse,
  logAgUiError,
  reportInternalError,
} from "./error-response.js";
import { readJsonBody } from "./request-body.js";
import { type AgUiLimits, checkTextLength, resolveLimits } from "./request-limits.js";
import { allowedCrossOrigin, corsHeaders, preflightResponse } from "./request-origin.js";
import { parseRunInput } from "./run-input.js";
import { type RunTarget, runTargetOf } from "./run-target.js";
import type { SessionRunSource } from "./session-run-source.js";
import { sessionRuns } from "./session-runs.js";
import { ThreadTable } from "./thread-table.js";

/** A fetch-style request handler: a Web-standard `Request` in, a `Response` out. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** What the handler tells `agentFor` / `harnessFor` about the request that opens a thread. */
export interface ThreadOpening {
  /**
   * The client tools declared by that request (`RunAgentInput.tools`, see `clientToolsOf`). The handler
   * gives them to the agent itself; pass them to an agent or harness you **restore**
   * (`tools: [...yours, ...clientTools]`) so that a call that was waiting for the client waits again.
   */
  clientTools: AgentTool[];
}

/**
 * Options of {@link createAgUiHandler}: where each thread's agent comes from — an agent or harness
 * in this process, or `sessions`: a session store whose workers run the agent (e.g. the
 * `agentchart/postgres` client; each thread is a session, see {@link sessionRuns}).
 */
export type AgUiHandlerOptions = (
  | {
      agentFor: (threadId: string, opening: ThreadOpening) => Agent | Promise<Agent>;
      harnessFor?: undefined;
      sessions?: undefined;
    }
  | {
      harnessFor: (threadId: string, opening: ThreadOpening) => AgentHarness | Promise<AgentHarness>;
      agentFor?: undefined;
      sessions?: undefined;
    }
  | { sessions: SessionRunSource; agentFor?: undefined; harnessFor?: undefined }
) & {
  /** Finished runs kept per thread for late joins and replays (default 16; the oldest go first). */
  keepFinishedRuns?: number;
  /**
   * Origins of pages served elsewhere that may use the endpoint (`["https://app.example.com"]`),
   * answered with CORS headers (preflights included). Requests without `Origin` and from the
   * endpoint's own host are always allowed; any other `Origin` is refused (403 `origin_not_allowed`).
   */
  allowedOrigins?: readonly string[];
  /**
   * Decides whether the request may use the thread, before anything of the thread is read, run or
   * created (the body has been read: use its headers and cookies). Called for every run and command
   * request, in both modes. Without it, whoever knows a thread id may read and drive the thread.
   * A throw refuses the request as an internal error (500, reported to `onError`).
   */
  authorize?: Authorize;
  /** Request size limits and the threads kept in memory (see {@link AgUiLimits} for the defaults). */
  limits?: AgUiLimits;
  /**
   * Called when an idle thread is evicted (see `limits`), with what `agentFor` / `harnessFor` gave
   * for it: release what you opened for it (`await harness.close(); await harness.session?.close()`),
   * so that the thread's next request can open it again. A rejection goes to `onError`.
   */
  onThreadEvicted?: (threadId: string, evicted: Agent | AgentHarness) => void | Promise<void>;
  /**
   * Told of internal errors (a failing `agentFor`, harness or store, a bug) with the correlation id
   * the client gets in their place (default: logged with `console.error`). Must not throw.
   */
  onError?: AgUiErrorListener;
};

/** A thread served by the handler: its agent and its runs, from memory. */
interface Thread {
  /** What `agentFor` / `harnessFor` gave. */
  made: Promise<Agent | AgentHarness>;
  target: Promise<RunTarget>;
  runs: Map<string, AgUiRun>;
  current: AgUiRun | undefined;
  /** Ids of the input messages already taken (the client sends the whole conversation each time). */
  seenMessageIds: Set<string>;
  /** Calls of client tools answered here (their results may not be in the transcript yet). */
  answeredToolCallIds: Set<string>;
  /** The agent's run the handler started (a prompt), until it settles: the runs that continue it end with it. */
  operation: Promise<unknown> | undefined;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/**
 * An AG-UI 1.0 endpoint over agents or harnesses, one per thread (`agentFor` / `harnessFor` is called
 * once per thread id and its result kept). `POST` a `RunAgentInput` to start a run and read its events
 * as Server-Sent Events; `POST { threadId, command }` to approve, deny, steer, follow up or abort.
 *
 * Runs are resumable: every SSE event has an id, a run is named by `threadId` + `runId`, and a request
 * for a run that is going on or finished joins it (it never starts twice), getting the events after its
 * `Last-Event-ID` header (all of them without one) and then the live ones. A client that disconnects
 * only stops reading: the run goes on until it ends or an `abort` command stops it. New user messages
 * of the input (ids not seen before on the thread) become the prompt; `resume` entries answer approvals
 * (`interruptId` = tool call id; `resolved` with `payload.approved !== false` approves, else denies)
 * and budget pauses (`interruptId: "budget"`: `payload.limits` raises them, else continue once;
 * `cancelled` stops the run; see docs/budgets.md).
 *
 * **Frontend tools**: the tools of `RunAgentInput.tools` become client tools of the thread's agent (no
 * `execute` on the server; a name of a server tool is refused). When the agent's run can go on only
 * with the client's answers, the AG-UI run ends with `RUN_FINISHED` naming the calls in
 * `outcome.pendingToolCallIds` while the agent's run waits; the next run's `tool` messages (or `resume`
 * entries for those calls) answer them and its stream continues the agent's run. New user text while
 * calls wait unanswered is refused with `awaiting_client`.
 *
 * **Trust**: only `POST` with `application/json` is served (415 otherwise), so a page of another site
 * cannot send a request without a CORS preflight; a foreign `Origin` is refused unless listed in
 * `allowedOrigins`; `authorize` sees every request before its thread; bodies, messages and texts are
 * bounded (`limits`); threads idle for `limits.threadIdleMs` are forgotten (`agentFor` / `harnessFor`
 * is asked again on the thread's next request: restore it from its session) and at most
 * `limits.maxThreads` are kept.
 *
 * Contract: the returned handler never rejects: refused requests are answered with a JSON
 * `{ error: { code, message } }` and the status of their {@link AgUiErrorCode}; an internal error
 * goes to `onError` and the client gets `code: "internal"`, a generic message and its
 * `correlationId`, never the error's message.
 *
 * ```ts
 * import http from "node:http";
 * import { Agent } from "agentchart";
 * import { toNodeListener } from "agentchart/ag-ui";
 * const agents = new Map<string, Agent>(); // the app's agents by thread, e.g. restored from its store
 * const handler = createAgUiHandler({ agentFor: (threadId) => agents.get(threadId) ?? new Agent({ model, streamFn }) });
 * http.createServer(toNodeListener(handler)).listen(3000);
 * ```
 */
export function createAgUiHandler(options: AgUiHandlerOptions): FetchHandler {
  const keep = options.keepFinishedRuns ?? 16;
  const limits = resolveLimits(options.limits);
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const onError = options.onError ?? logAgUiError;
  const failureText = (error: unknown) => reportInternalError(error, onError).message;
  const threads = new ThreadTable<Thread>(
    limits,
    (thread) => thread.current !== undefined && !thread.current.ended,
    async (threadId, thread) => {
      const release = options.onThreadEvicted;
      // A thread whose factory failed was never served: nothing to release.
      const made = await thread.made.catch(() => undefined);
      if (!release || !made) return;
      await Promise.resolve()
        .then(() => release(threadId, made))
        .catch((error: unknown) => void reportInternalError(error, onError));
    },
  );
  const make = (
    threadId: string,
    opening: ThreadOpening,
  ): Agent | AgentHarness | Promise<Agent | AgentHarness> =>
    options.agentFor ? options.agentFor(threadId, opening) : options.harnessFor!(threadId, opening);
  const stored = options.sessions ? sessionRuns(options.sessions) : undefined;

  const threadFor = (threadId: string, opening: ThreadOpening): Thread =>
    threads.open(threadId, (released) => {
      const made = released
        ? released.then(() => make(threadId, opening))
        : Promise.resolve<Agent | AgentHarness>(make(threadId, opening));
      const thread: Thread = {
        made,
        target: made.then(runTargetOf),
        runs: new Map(),
        current: undefined,
        seenMessageIds: new Set(),
        answeredToolCallIds: new Set(),
        operation: undefined,
      };
      // A factory that fails leaves no thread behind: the next request tries again.
      thread.target.catch(() => threads.delete(threadId, thread));
      return thread;
    });

  const startRun = (
    thread: Thread,
    target: RunTarget,
    input: RunAgentInput,
    run: Omit<AgUiRunInput, "threadId" | "runId">,
  ): AgUiRun => {
    for (const message of input.messages) thread.seenMessageIds.add(message.id);
    const started = new AgUiRun(target, {
      threadId: input.threadId,
      runId: input.runId,
      failureText,
      ...run,
    });
    thread.current = started;
    thread.runs.set(input.runId, started);
    void started.finished.then(() => {
      forgetOldRuns(thread, keep);
      threads.touch(input.threadId, thread);
    });
    return started;
  };

  const run = async (input: RunAgentInput, lastEventId: number): Promise<Response> => {
    const clientTools = clientToolsOf(input.tools);
    const thread = threadFor(input.threadId, { clientTools });
    const target = await thread.target;
    if (input.resume?.length) {
      for (const entry of input.resume) {
        if (entry.interruptId === BUDGET_INTERRUPT_ID) {
          answerBudgetPause(thread.current, entry);
          continue;
        }
        const approved =
          entry.status === "resolved" &&
          (entry.payload as { approved?: unknown } | undefined)?.approved !== false;
        const reason = (entry.payload as { reason?: unknown } | undefined)?.reason;
        // A sub-agent's call: the path the payload names, else the one call of that id waiting.
        const agentPath = resumePath(entry.payload) ?? thread.current?.awaitingPathOf(entry.interruptId);
        // Answers already applied (a reconnect sends the same request again) are skipped.
        if (!thread.current?.awaits(entry.interruptId, agentPath)) continue;
        const path = agentPath?.length ? { agentPath } : {};
        thread.current.command(
          approved
            ? { type: "approve", toolCallId: entry.interruptId, ...path }
            : {
                type: "deny",
                toolCallId: entry.interruptId,
                ...(typeof reason === "string" ? { reason } : {}),
                ...path,
              },
        );
      }
    }
    const existing = thread.runs.get(input.runId);
    if (existing) return streamOf(existing, lastEventId);
    installClientTools(target, clientTools);
    const answers = await clientAnswers(target, input, {
      known: (id) => knownMessage(thread, target, id),
      answeredToolCallIds: thread.answeredToolCallIds,
    });
    const prompt = newUserText(thread, target, input.messages);
    const current = thread.current;
    if (current && !current.ended) {
      if (prompt === undefined && (input.resume?.length || answers.length > 0)) {
        applyAnswers(target, answers, thread.answeredToolCallIds, input.threadId);
        for (const message of input.messages) thread.seenMessageIds.add(message.id);
        return streamOf(current, lastEventId);
      }
      throw new AgUiError(
        "thread_busy",
        `Thread ${input.threadId} is running ${current.runId}; join it, steer it, or wait for it to end`,
      );
    }
    if (target.running()) {
      // The agent's run goes on without an AG-UI run: it waits for the client (or a restore started it).
      const unanswered = target
        .state()
        .awaitingClient.filter((call) => !answers.some((answer) => answer.toolCallId === call.toolCallId));
      if (prompt !== undefined && unanswered.length > 0)
        throw new AgUiError(
          "awaiting_client",
          `Thread ${input.threadId} waits for the client's answer to ${unanswered.map((call) => `"${call.toolCallId}"`).join(", ")}: send tool messages (toolCallId, content) answering every waiting call with a new message, or before it`,
        );
      if (answers.length === 0)
        throw new AgUiError("thread_busy", `Thread ${input.threadId} is running; wait for it to end`);
      const started = startRun(thread, target, input, {
        start: () => {
          // New text with every waiting call answered: queued first, so that the batch's end
          // delivers it right after the results, before the model is asked again.
          if (prompt !== undefined) target.steer(prompt);
          applyAnswers(target, answers, thread.answeredToolCallIds, input.threadId);
          return thread.operation ?? target.idle();
        },
      });
      return streamOf(started, lastEventId);
    }
    if (answers.length > 0) throw notAwaiting(input.threadId, answers[0]!.toolCallId);
    if (prompt === undefined)
      throw new AgUiError("no_new_message", "The input has no user message the thread has not seen yet");
    const started = startRun(thread, target, input, {
      prompt,
      start: () => {
        const operation = target.prompt(prompt);
        thread.operation = operation;
        const forget = () => {
          if (thread.operation === operation) thread.operation = undefined;
        };
        operation.then(forget, forget);
        return operation;
      },
    });
    return streamOf(started, lastEventId);
  };

  const command = async (body: Record<string, unknown>, request: Request): Promise<Response> => {
    const { threadId, command } = parseCommandRequest(body);
    if (command.type === "steer" || command.type === "followUp")
      checkTextLength(command.text, `The ${command.type} text`, limits);
    await checkAuthorization(options.authorize, request, threadId);
    if (stored) {
      await stored.command(threadId, command);
      return Response.json({ ok: true });
    }
    const thread = threads.get(threadId);
    if (!thread) throw new AgUiError("unknown_thread", `No thread ${threadId} is served here`);
    await thread.target;
    if (!thread.current) throw new AgUiError("invalid_state", `Thread ${threadId} has no run`);
    thread.current.command(command);
    return Response.json({ ok: true, runId: thread.current.runId });
  };

  return async (request) => {
    let cors: Record<string, string> | undefined;
    try {
      const origin = allowedCrossOrigin(request, allowedOrigins);
      if (origin !== undefined) {
        if (request.method === "OPTIONS") return preflightResponse(origin);
        cors = corsHeaders(origin);
      }
      if (request.method !== "POST")
        throw new AgUiError("method_not_allowed", "Send runs and commands with POST");
      const body = await readJsonBody(request, limits.maxBodyBytes);
      if ("command" in body) return withHeaders(await command(body, request), cors);
      const input = parseRunInput(body, limits);
      const lastEventId = parseLastEventId(request.headers.get("last-event-id"));
      await checkAuthorization(options.authorize, request, input.threadId);
      if (stored)
        return new Response(await stored.run(input, lastEventId), {
          status: 200,
          headers: { ...SSE_HEADERS, ...cors },
        });
      return withHeaders(await run(input, lastEventId), cors);
    } catch (error) {
      return errorResponse(error, onError, cors);
    }
  };
}

/** The response with `headers` added (CORS headers for an allowed cross origin). */
function withHeaders(response: Response, headers: Record<string, string> | undefined): Response {
  if (!headers) return response;
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

/**
 * The SSE response of a run from the event after `lastEventId`; cancelling it only stops reading. The
 * frames logged in one turn of the event loop go out as one chunk (encoded once) at the next turn: a
 * burst of deltas costs one chunk, not one per frame, and no frame waits longer than that turn.
 */
function streamOf(run: AgUiRun, lastEventId: number): Response {
  const encoder = new TextEncoder();
  let leave: (() => void) | undefined;
  let pending: string[] = [];
  let flushing: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const flush = () => {
        clearTimeout(flushing);
        flushing = undefined;
        if (pending.length === 0) return;
        controller.enqueue(encoder.encode(pending.length === 1 ? pending[0] : pending.join("")));
        pending = [];
      };
      leave = run.log.read(lastEventId, {
        frame: (frame) => {
          pending.push(frame);
          flushing ??= setTimeout(flush, 0);
        },
        end: () => {
          flush();
          controller.close();
        },
      });
    },
    cancel() {
      clearTimeout(flushing);
      pending = [];
      leave?.();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

/** The `agentPath` an approval's resume payload names (`{ approved, agentPath }`), if it is one. */
/** The `interruptId` of a resume entry that answers a run held at a budget limit or a loop breaker. */
export const BUDGET_INTERRUPT_ID = "budget";

/**
 * Answers a budget pause from a resume entry: `cancelled` aborts the run; `resolved` with
 * `payload.limits` raises them, else lets the held call through once. A sub-agent's: `payload.agentPath`.
 * An entry for a run that does not wait there (already answered: a reconnect) is skipped.
 */
function answerBudgetPause(
  run: AgUiRun | undefined,
  entry: NonNullable<RunAgentInput["resume"]>[number],
): void {
  const agentPath = resumePath(entry.payload);
  if (!run?.awaitsBudget(agentPath)) return;
  const path = agentPath?.length ? { agentPath } : {};
  if (entry.status === "cancelled") run.command({ type: "abort" });
  else {
    const limits = (entry.payload as { limits?: unknown } | undefined)?.limits;
    run.command(
      limits === undefined
        ? { type: "continuePastBudget", ...path }
        : { type: "raiseBudget", limits: budgetLimitsOf(limits), ...path },
    );
  }
}

function resumePath(payload: unknown): string[] | undefined {
  const agentPath = (payload as { agentPath?: unknown } | undefined)?.agentPath;
  return Array.isArray(agentPath) && agentPath.every((id) => typeof id === "string")
    ? (agentPath as string[])
    : undefined;
}

/**
 * The text of the input's new user messages, or `undefined` when there is none: those after the last
 * message the thread knows (an id it has seen or gave, or a tool message answering a call of the
 * transcript), with an id it has not seen. Messages before a known one are old even with unknown ids
 * (a client that kept its own ids, a server restarted since it saw them).
 */
function newUserText(thread: Thread, target: RunTarget, messages: AgUiMessage[]): string | undefined {
  const transcriptCalls = new Set(
    target
      .messages()
      .flatMap((message) =>
        message.role === "assistant"
          ? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
          : [],
      ),
  );
  const known = (message: AgUiMessage) =>
    knownMessage(thread, target, message.id) ||
    (message.role === "tool" && transcriptCalls.has(message.toolCallId));
  const after = messages.findLastIndex(known) + 1;
  const texts = messages
    .slice(after)
    .filter((message) => message.role === "user" && !knownMessage(thread, target, message.id))
    .map((message) => messageText(message as never));
  return texts.length > 0 ? texts.join("\n\n") : undefined;
}

/** Whether the thread has seen a message of that id, or gave it (`m<index>`, see toAgUiMessages). */
function knownMessage(thread: Thread, target: RunTarget, id: string): boolean {
  return (
    thread.seenMessageIds.has(id) || (/^m\d+$/.test(id) && Number(id.slice(1)) < target.messages().length)
  );
}

/** Gives the agent the client tools a run declares; a name of a server tool is `invalid_request`. */
function installClientTools(target: RunTarget, tools: AgentTool[]): void {
  const serverNames = new Set(target.serverTools().map((tool) => tool.name));
  const taken = tools.find((tool) => serverNames.has(tool.name));
  if (taken)
    throw new AgUiError(
      "invalid_request",
      `RunAgentInput.tools declares "${taken.name}", a tool of the server: a client tool cannot replace it (rename it)`,
    );
  if (!sameClientTools(target.clientTools(), tools)) target.setClientTools(tools);
}

function forgetOldRuns(thread: Thread, keep: number): void {
  const finished = [...thread.runs.values()].filter((run) => run.ended);
  for (const run of finished.slice(0, Math.max(0, finished.length - keep))) thread.runs.delete(run.runId);
}

function parseLastEventId(header: string | null): number {
  if (header === null) return 0;
  const id = Number(header.trim());
  return Number.isSafeInteger(id) && id > 0 ? id : 0;
}

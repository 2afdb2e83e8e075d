import type { AddressedCommand } from "../commands/addressed-command.js";
import type { CommandError } from "../commands/command-error.js";
import type { AgentSurface } from "../harness/agent-surface.js";
import { messageText } from "../loop/messages.js";
import type { AgentTool } from "../types/tool.js";
import { AgUiError } from "./ag-ui-error.js";
import type { AgUiMessage, RunAgentInput } from "./ag-ui-events.js";
import { AgUiRun, type AgUiRunInput } from "./ag-ui-run.js";
import { type Authorize, checkAuthorization } from "./authorization.js";
import { clientAnswers } from "./client-answers.js";
import { clientToolsOf, isDeclaredClientTool, sameClientTools } from "./client-tools.js";
import { parseCommandRequest } from "./command-request.js";
import {
  type AgUiErrorListener,
  errorResponse,
  logAgUiError,
  reportInternalError,
} from "./error-response.js";
import { readJsonBody } from "./request-body.js";
import { decideRunRequest, type RunDecision, resumeCommands } from "./request-decision.js";
import { type AgUiLimits, resolveLimits } from "./request-limits.js";
import { allowedCrossOrigin, corsHeaders, preflightResponse } from "./request-origin.js";
import { parseRunInput } from "./run-input.js";
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
 * Options of {@link createAgUiHandler}: where each thread's agent comes from — `agentFor`: an
 * `AgentSurface` in this process (an `Agent` or an `AgentHarness`), or `sessions`: a session store
 * whose workers run the agent (e.g. the `agentchart/postgres` client; each thread is a session, see
 * {@link sessionRuns}).
 */
export type AgUiHandlerOptions<TSurface extends AgentSurface = AgentSurface> = (
  | {
      /** The thread's agent or harness (called once per thread id; its result is kept). */
      agentFor: (threadId: string, opening: ThreadOpening) => TSurface | Promise<TSurface>;
      harnessFor?: undefined;
      sessions?: undefined;
    }
  | {
      /** @deprecated Since 0.3: `agentFor` takes an `AgentHarness` as it takes an `Agent`. Removed in 0.4. */
      harnessFor: (threadId: string, opening: ThreadOpening) => TSurface | Promise<TSurface>;
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
   * Called when an idle thread is evicted (see `limits`), with what `agentFor` gave for it: release
   * what you opened for it (`await harness.close(); await harness.session?.close()`), so that the
   * thread's next request can open it again. A rejection goes to `onError`.
   */
  onThreadEvicted?: (threadId: string, evicted: TSurface) => void | Promise<void>;
  /**
   * Told of internal errors (a failing `agentFor`, harness or store, a bug) with the correlation id
   * the client gets in their place (default: logged with `console.error`). Must not throw.
   */
  onError?: AgUiErrorListener;
};

/** A thread served by the handler: its agent and its runs, from memory. */
interface Thread<TSurface extends AgentSurface> {
  /** What `agentFor` gave. */
  surface: Promise<TSurface>;
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
 * An AG-UI 1.0 endpoint over an `AgentSurface` per thread — an `Agent` or an `AgentHarness`
 * (`agentFor` is called once per thread id and its result kept). `POST` a `RunAgentInput` to start a
 * run and read its events as Server-Sent Events; `POST { threadId, command }` to send the thread's
 * agent a command of the machine's vocabulary (`APPROVE_TOOL`, `DENY_TOOL`, `ANSWER_TOOL`, `STEER`,
 * `FOLLOW_UP`, `RAISE_BUDGET`, `CONTINUE_ONCE`, `ABORT`; a sub-agent's with its `agentPath`; see
 * `parseAgentCommand`). A command that cannot apply is answered with the agent's `CommandError`: 409
 * (`not_waiting`, `no_agent`, `busy`, `refused`) or 400 (`invalid_command`), its body naming `code`,
 * `command`, `agentPath` and `toolCallId`.
 *
 * Runs are resumable: every SSE event has an id, a run is named by `threadId` + `runId`, and a request
 * for a run that is going on or finished joins it (it never starts twice), getting the events after its
 * `Last-Event-ID` header (all of them without one) and then the live ones. A client that disconnects
 * only stops reading: the run goes on until it ends or an `ABORT` command stops it. New user messages
 * of the input (ids not seen before on the thread) become the prompt; `resume` entries become the same
 * commands (see `resumeCommands`): approvals (`interruptId` = tool call id; `resolved` with
 * `payload.approved !== false` approves, else denies) and budget pauses (`interruptId: "budget"`:
 * `payload.limits` raises them, else continue once; `cancelled` stops the run; see docs/budgets.md).
 * What a run request does is decided by `decideRunRequest` from the thread's state as data.
 *
 * **Frontend tools**: the tools of `RunAgentInput.tools` become client tools of the thread's agent (no
 * `execute` on the server; a name of a server tool is refused). When the agent's run can go on only
 * with the client's answers, the AG-UI run ends with `RUN_FINISHED` naming the calls in
 * `outcome.pendingToolCallIds` while the agent's run waits; the next run's `tool` messages (or `resume`
 * entries for those calls) answer them (`ANSWER_TOOL`) and its stream continues the agent's run. New
 * user text while calls wait unanswered is refused with `awaiting_client`.
 *
 * **Trust**: only `POST` with `application/json` is served (415 otherwise), so a page of another site
 * cannot send a request without a CORS preflight; a foreign `Origin` is refused unless listed in
 * `allowedOrigins`; `authorize` sees every request before its thread; bodies, messages and texts are
 * bounded (`limits`); threads idle for `limits.threadIdleMs` are forgotten (`agentFor` is asked again
 * on the thread's next request: restore it from its session) and at most `limits.maxThreads` are kept.
 *
 * Contract: the returned handler never rejects: refused requests are answered with a JSON
 * `{ error: { code, message } }` and the status of their {@link AgUiErrorCode} (or of the
 * `CommandError`'s code); an internal error goes to `onError` and the client gets `code: "internal"`,
 * a generic message and its `correlationId`, never the error's message.
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
export function createAgUiHandler<TSurface extends AgentSurface>(
  options: AgUiHandlerOptions<TSurface>,
): FetchHandler {
  const keep = options.keepFinishedRuns ?? 16;
  const limits = resolveLimits(options.limits);
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const onError = options.onError ?? logAgUiError;
  const failureText = (error: unknown) => reportInternalError(error, onError).message;
  const threads = new ThreadTable<Thread<TSurface>>(
    limits,
    (thread) => thread.current !== undefined && !thread.current.ended,
    async (threadId, thread) => {
      const release = options.onThreadEvicted;
      // A thread whose factory failed was never served: nothing to release.
      const surface = await thread.surface.catch(() => undefined);
      if (!release || !surface) return;
      await Promise.resolve()
        .then(() => release(threadId, surface))
        .catch((error: unknown) => void reportInternalError(error, onError));
    },
  );
  const agentFor = options.agentFor ?? options.harnessFor;
  const stored = options.sessions ? sessionRuns(options.sessions) : undefined;

  const threadFor = (threadId: string, opening: ThreadOpening): Thread<TSurface> =>
    threads.open(threadId, (released) => {
      const surface = (released ?? Promise.resolve()).then(() => agentFor!(threadId, opening));
      const thread: Thread<TSurface> = {
        surface,
        runs: new Map(),
        current: undefined,
        seenMessageIds: new Set(),
        answeredToolCallIds: new Set(),
        operation: undefined,
      };
      // A factory that fails leaves no thread behind: the next request tries again.
      surface.catch(() => threads.delete(threadId, thread));
      return thread;
    });

  const startRun = (
    thread: Thread<TSurface>,
    surface: AgentSurface,
    input: RunAgentInput,
    run: Omit<AgUiRunInput, "threadId" | "runId">,
  ): AgUiRun => {
    for (const message of input.messages) thread.seenMessageIds.add(message.id);
    const started = new AgUiRun(surface, {
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

  /** Carries out what `decideRunRequest` decided. */
  const carryOut = (
    decision: RunDecision,
    thread: Thread<TSurface>,
    surface: AgentSurface,
    input: RunAgentInput,
    lastEventId: number,
  ): Response => {
    switch (decision.type) {
      case "refuse":
        throw decision.error;
      case "join": {
        const run = thread.runs.get(decision.runId)!;
        if (decision.commands.length > 0) {
          sendAll(surface, decision.commands, thread);
          for (const message of input.messages) thread.seenMessageIds.add(message.id);
          run.publishState();
        }
        return streamOf(run, lastEventId);
      }
      case "continue": {
        const started = startRun(thread, surface, input, {
          start: () => {
            sendAll(surface, decision.commands, thread);
            return thread.operation ?? surface.waitForIdle();
          },
        });
        return streamOf(started, lastEventId);
      }
      case "start": {
        const started = startRun(thread, surface, input, {
          prompt: decision.prompt,
          start: () => {
            const operation = surface.prompt(decision.prompt);
            thread.operation = operation;
            const forget = () => {
              if (thread.operation === operation) thread.operation = undefined;
            };
            operation.then(forget, forget);
            return operation;
          },
        });
        return streamOf(started, lastEventId);
      }
    }
  };

  const run = async (input: RunAgentInput, lastEventId: number): Promise<Response> => {
    const clientTools = clientToolsOf(input.tools);
    const thread = threadFor(input.threadId, { clientTools });
    const surface = await thread.surface;
    // Answers already applied (a reconnect sends the same request again) wait no more: skipped.
    for (const command of resumeCommands(input.resume, surface.state.awaitingApproval))
      sendUnlessAnswered(surface, command);
    thread.current?.publishState();
    const requestedRunExists = thread.runs.has(input.runId);
    if (!requestedRunExists) installClientTools(surface, clientTools);
    const known = (id: string) => knownMessage(thread, surface, id);
    const answers = requestedRunExists
      ? []
      : await clientAnswers(surface, input, { known, answeredToolCallIds: thread.answeredToolCallIds });
    const live = thread.current && !thread.current.ended ? thread.current : undefined;
    const decision = decideRunRequest(
      {
        threadId: input.threadId,
        requestedRunExists,
        liveRunId: live?.runId,
        agentRunning: surface.isRunning,
        awaitingClient: surface.state.awaitingClient,
      },
      {
        runId: input.runId,
        prompt: requestedRunExists ? undefined : newUserText(thread, surface, input.messages),
        answers,
        resumes: (input.resume?.length ?? 0) > 0,
      },
    );
    return carryOut(decision, thread, surface, input, lastEventId);
  };

  const command = async (body: Record<string, unknown>, request: Request): Promise<Response> => {
    const { threadId, command } = parseCommandRequest(body, limits);
    await checkAuthorization(options.authorize, request, threadId);
    if (stored) {
      await stored.command(threadId, command);
      return Response.json({ ok: true });
    }
    const thread = threads.get(threadId);
    if (!thread) throw new AgUiError("unknown_thread", `No thread ${threadId} is served here`);
    const surface = await thread.surface;
    surface.send(command);
    thread.current?.publishState();
    return Response.json({ ok: true, ...(thread.current ? { runId: thread.current.runId } : {}) });
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

/**
 * Sends the commands in order, remembering the calls of client tools answered (their results may not be
 * in the transcript yet). A command that cannot apply (a call another request answered first) throws
 * the agent's `CommandError`, and the commands after it are not sent.
 */
function sendAll(
  surface: AgentSurface,
  commands: readonly AddressedCommand[],
  thread: { answeredToolCallIds: Set<string> },
): void {
  for (const command of commands) {
    surface.send(command);
    if (command.type === "ANSWER_TOOL") thread.answeredToolCallIds.add(command.toolCallId);
  }
}

/** Sends a resume entry's command; one for something that no longer waits was answered already. */
function sendUnlessAnswered(surface: AgentSurface, command: AddressedCommand): void {
  try {
    surface.send(command);
  } catch (error) {
    if ((error as CommandError | undefined)?.code !== "not_waiting") throw error;
  }
}

/**
 * The text of the input's new user messages, or `undefined` when there is none: those after the last
 * message the thread knows (an id it has seen or gave, or a tool message answering a call of the
 * transcript), with an id it has not seen. Messages before a known one are old even with unknown ids
 * (a client that kept its own ids, a server restarted since it saw them).
 */
function newUserText(
  thread: Thread<AgentSurface>,
  surface: AgentSurface,
  messages: AgUiMessage[],
): string | undefined {
  const transcriptCalls = new Set(
    surface.state.messages.flatMap((message) =>
      message.role === "assistant"
        ? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
        : [],
    ),
  );
  const known = (message: AgUiMessage) =>
    knownMessage(thread, surface, message.id) ||
    (message.role === "tool" && transcriptCalls.has(message.toolCallId));
  const after = messages.findLastIndex(known) + 1;
  const texts = messages
    .slice(after)
    .filter((message) => message.role === "user" && !knownMessage(thread, surface, message.id))
    .map((message) => messageText(message as never));
  return texts.length > 0 ? texts.join("\n\n") : undefined;
}

/** Whether the thread has seen a message of that id, or gave it (`m<index>`, see toAgUiMessages). */
function knownMessage(thread: Thread<AgentSurface>, surface: AgentSurface, id: string): boolean {
  return (
    thread.seenMessageIds.has(id) ||
    (/^m\d+$/.test(id) && Number(id.slice(1)) < surface.state.messages.length)
  );
}

/**
 * Gives the agent the client tools a run declares (`surface.setTools`: the server's tools stay, active
 * as they were); a name of a server tool is `invalid_request`.
 */
function installClientTools(surface: AgentSurface, tools: AgentTool[]): void {
  const server = surface.tools.filter((tool) => !isDeclaredClientTool(tool));
  const serverNames = new Set(server.map((tool) => tool.name));
  const taken = tools.find((tool) => serverNames.has(tool.name));
  if (taken)
    throw new AgUiError(
      "invalid_request",
      `RunAgentInput.tools declares "${taken.name}", a tool of the server: a client tool cannot replace it (rename it)`,
    );
  if (sameClientTools(surface.tools.filter(isDeclaredClientTool), tools)) return;
  const active = new Set(surface.state.tools.map((tool) => tool.name));
  surface.setTools(
    [...server, ...tools],
    [...server.filter((tool) => active.has(tool.name)), ...tools].map((tool) => tool.name),
  );
}

function forgetOldRuns(thread: Thread<AgentSurface>, keep: number): void {
  const finished = [...thread.runs.values()].filter((run) => run.ended);
  for (const run of finished.slice(0, Math.max(0, finished.length - keep))) thread.runs.delete(run.runId);
}

function parseLastEventId(header: string | null): number {
  if (header === null) return 0;
  const id = Number(header.trim());
  return Number.isSafeInteger(id) && id > 0 ? id : 0;
}

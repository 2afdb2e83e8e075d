import { createStore, type Store } from "@xstate/store";
import type { AgUiEvent, AgUiMessage, AgUiTool, RunAgentInput } from "../ag-ui/ag-ui-events.js";
import type { AgentCommand } from "../ag-ui/agent-command.js";
import type { PendingApproval } from "../ag-ui/shared-state.js";
import type { BudgetLimits } from "../types/budget.js";
import {
  type AgentClientContext,
  applyAgUiEvent,
  awaitClient,
  clientAnswered,
  initialClientContext,
} from "./agent-client-state.js";
import { readSseChunks } from "./sse-reader.js";

/** Where the client remembers the run it follows, so that a reloaded page joins it again. */
export interface RunMemory {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * A tool of the page (a **frontend tool**): declared to the server in every run (`RunAgentInput.tools`),
 * called by the model, answered by the client — with `answerTool`, or by `execute` when given.
 */
export interface FrontendTool extends AgUiTool {
  /**
   * Runs a call in the client; its result (text, or any JSON value, sent as its JSON text) answers the
   * call. May be async; a throw answers with an error result carrying its message.
   */
  execute?: (args: unknown) => unknown;
}

/** Options of {@link createAgentClient}. */
export interface AgentClientOptions {
  /** The AG-UI endpoint (agentchart's `createAgUiHandler`, or any AG-UI server for runs). */
  url: string;
  threadId: string;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Default: `localStorage` where there is one (browsers), else nothing is remembered. */
  memory?: RunMemory | null;
  /** Join the run remembered for this thread at once (default true). */
  resume?: boolean;
  /** Longest wait between reconnection attempts (default 5000 ms; the first waits 250 ms). */
  maxRetryDelayMs?: number;
  /**
   * Reconnection attempts in a row without a readable event (a broken connection, a frame that is not
   * an AG-UI event such as a proxy's error page) before the store gives up with `status: "error"`
   * (default 8; the waits double from 250 ms up to `maxRetryDelayMs`).
   */
  maxReconnectAttempts?: number;
  /** The page's tools the model may call (see {@link FrontendTool}). */
  tools?: FrontendTool[];
}

/** The events the store takes: the commands, and what the connection reports. */
export interface AgentClientEvents {
  /** Starts a run with a user message. */
  submit: { text: string };
  /** Approves a waiting call; a sub-agent's names its `agentPath` (as `awaitingApproval` lists it). */
  approve: { toolCallId: string; agentPath?: string[] };
  deny: { toolCallId: string; reason?: string; agentPath?: string[] };
  steer: { text: string };
  followUp: { text: string };
  /**
   * Answers a run held at a budget limit or a loop breaker (`state.awaitingBudget`, a sub-agent's with
   * its `agentPath`): its limits raised.
   */
  raiseBudget: { limits: BudgetLimits; agentPath?: string[] };
  /** Answers a run held at a budget limit: the held call goes ahead once. */
  continuePastBudget: { agentPath?: string[] };
  abort: Record<string, never>;
  /**
   * Answers a call of a frontend tool waiting for the client (`awaiting-client`): `result` is text or
   * any JSON value. The answers are sent with a new run once no call waits for the client any more.
   */
  answerTool: { toolCallId: string; result: unknown; isError?: boolean };
  /** An AG-UI event arrived (the connection sends these). */
  received: { event: AgUiEvent; id?: number };
  /** A request failed for good (the connection sends these). */
  failed: { message: string };
}

/** The client: an `@xstate/store` store of the conversation, plus `close()` to stop following. */
export type AgentClient = Store<
  AgentClientContext,
  { [K in keyof AgentClientEvents]: AgentClientEvents[K] },
  { type: string }
> & {
  /** Stops reading the stream (the run goes on on the server) and drops pending reconnections. */
  close(): void;
};

const TERMINAL = new Set<AgUiEvent["type"]>(["RUN_FINISHED", "RUN_ERROR"]);

/** The answer `submit` gives to calls still waiting for the client: the user wrote instead. */
export const NOT_ANSWERED_TEXT = "Not answered: the user sent a new message instead";

/**
 * A client of an AG-UI endpoint as an `@xstate/store` store: its snapshot's context holds the
 * messages (the streaming one apart, in `streaming`), tool calls by id with their status, the status
 * of the run, the calls awaiting approval or the client's answer and the state the server shares. Its
 * events are the commands (`submit`, `approve`, `deny`, `steer`, `followUp`, `raiseBudget`,
 * `continuePastBudget`, `abort`, `answerTool`).
 * `tools` declares frontend tools (sent with every run); their calls wait in `awaiting-client` until
 * `answerTool` (or the tool's own `execute`) answers them, and the answers continue the run with a new
 * one. `submit` while calls wait answers them "not answered" first. It reconnects by itself when the stream
 * breaks (sending `Last-Event-ID`, so it ends in the state it would have had without the cut) and, with
 * `memory`, joins the thread's run again after a page reload. Runs in browsers and Node.
 *
 * Contract: never throws; failed requests end in `status: "error"` with `error` set, and so does a
 * stream that stays unreadable for `maxReconnectAttempts` attempts in a row; a remembered run that
 * cannot be read (corrupt, `null`, another thread's) is ignored and forgotten.
 *
 * ```ts
 * const client = createAgentClient({ url: "/agent", threadId: "t1" });
 * client.subscribe(({ context }) => console.log(context.messages.length));
 * client.trigger.submit({ text: "Hello" });
 * ```
 */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const memory = options.memory === undefined ? defaultMemory() : options.memory;
  const memoryKey = `agentchart.run:${options.threadId}`;
  const maxDelay = options.maxRetryDelayMs ?? 5000;
  const maxAttempts = options.maxReconnectAttempts ?? 8;
  const declared: AgUiTool[] = (options.tools ?? []).map(({ execute: _execute, ...tool }) => tool);
  const declaredNames = new Set(declared.map((tool) => tool.name));
  const executors = new Map(
    (options.tools ?? []).flatMap((tool) => (tool.execute ? [[tool.name, tool.execute] as const] : [])),
  );
  /** Calls of frontend tools that `execute` runs or ran (each runs once per store). */
  const executing = new Set<string>();
  let following: AbortController | undefined;

  /** A run of the conversation so far plus `added`, declaring the page's tools. */
  const runOf = (context: AgentClientContext, added: AgUiMessage[]): RunAgentInput => ({
    threadId: context.threadId,
    runId: randomId(),
    messages: [...context.messages, ...added],
    tools: declared,
    context: [],
  });

  const store = createStore({
    context: initialClientContext(options.threadId),
    on: {
      submit: (context, event: AgentClientEvents["submit"], enqueue) => {
        const message: AgUiMessage = { id: randomId(), role: "user", content: event.text };
        // Calls still waiting for the client are answered "not answered": the user moved on.
        const unanswered = context.awaitingClient.map((call) =>
          toolMessage(call.toolCallId, NOT_ANSWERED_TEXT, true),
        );
        const input = runOf(context, [...context.clientAnswers, ...unanswered, message]);
        enqueue.effect(() => follow(input));
        return {
          ...clientAnswered(context, new Set(context.awaitingClient.map((call) => call.toolCallId))),
          messages: input.messages,
          clientAnswers: [],
          status: "running" as const,
          error: undefined,
        };
      },
      answerTool: (context, event: AgentClientEvents["answerTool"], enqueue) => {
        if (!context.awaitingClient.some((call) => call.toolCallId === event.toolCallId))
          return { ...context, error: `No call "${event.toolCallId}" waits for the client's answer` };
        const answered = clientAnswered(
          {
            ...context,
            clientAnswers: [
              ...context.clientAnswers,
              toolMessage(event.toolCallId, event.result, event.isError === true),
            ],
          },
          new Set([event.toolCallId]),
        );
        return sendAnswersWhenDue(answered, enqueue);
      },
      approve: (context, event: AgentClientEvents["approve"], enqueue) => {
        enqueue.effect(() =>
          command({ type: "approve", toolCallId: event.toolCallId, ...pathOf(event.agentPath) }),
        );
        return context;
      },
      deny: (context, event: AgentClientEvents["deny"], enqueue) => {
        enqueue.effect(() =>
          command({
            type: "deny",
            toolCallId: event.toolCallId,
            ...(event.reason !== undefined ? { reason: event.reason } : {}),
            ...pathOf(event.agentPath),
          }),
        );
        return context;
      },
      steer: (context, event: AgentClientEvents["steer"], enqueue) => {
        enqueue.effect(() => command({ type: "steer", text: event.text }));
        return context;
      },
      followUp: (context, event: AgentClientEvents["followUp"], enqueue) => {
        enqueue.effect(() => command({ type: "followUp", text: event.text }));
        return context;
      },
      raiseBudget: (context, event: AgentClientEvents["raiseBudget"], enqueue) => {
        enqueue.effect(() =>
          command({ type: "raiseBudget", limits: event.limits, ...pathOf(event.agentPath) }),
        );
        return context;
      },
      continuePastBudget: (context, event: AgentClientEvents["continuePastBudget"], enqueue) => {
        enqueue.effect(() => command({ type: "continuePastBudget", ...pathOf(event.agentPath) }));
        return context;
      },
      abort: (context, _event: AgentClientEvents["abort"], enqueue) => {
        enqueue.effect(() => command({ type: "abort" }));
        return context;
      },
      received: (context, event: AgentClientEvents["received"], enqueue) => {
        let next = applyAgUiEvent(context, event.event, event.id);
        // Calls answered here stay answered while the answers are on their way.
        if (next.clientAnswers.length > 0)
          next = clientAnswered(
            next,
            new Set(next.clientAnswers.map((answer) => (answer as { toolCallId: string }).toolCallId)),
          );
        const finished = event.event;
        if (
          finished.type === "RUN_FINISHED" &&
          !(finished.outcome?.type === "success" && finished.outcome.pendingToolCallIds?.length)
        )
          // A server that does not name them: the calls of the page's tools it left without a result.
          next = awaitClient(
            next,
            Object.values(next.toolCalls)
              .filter(
                (call) =>
                  declaredNames.has(call.name) &&
                  (call.status === "running" || call.status === "streaming-args"),
              )
              .map((call) => call.id),
          );
        for (const call of next.awaitingClient)
          if (executors.has(call.toolName) && !executing.has(call.toolCallId))
            enqueue.effect(() => runLocally(call));
        return TERMINAL.has(finished.type) ? sendAnswersWhenDue(next, enqueue) : next;
      },
      failed: (context, event: AgentClientEvents["failed"]) => ({
        ...context,
        status: "error" as const,
        error: event.message,
      }),
    },
  });

  /**
   * Sends the answers given so far with a new run once no call waits for the client and no run goes
   * on (answers given while the run that asked still streams wait for its end).
   */
  function sendAnswersWhenDue(
    context: AgentClientContext,
    enqueue: { effect: (effect: () => void) => void },
  ): AgentClientContext {
    if (
      context.clientAnswers.length === 0 ||
      context.awaitingClient.length > 0 ||
      context.status === "running"
    )
      return context;
    const input = runOf(context, context.clientAnswers);
    enqueue.effect(() => follow(input));
    return { ...context, messages: input.messages, clientAnswers: [], status: "running", error: undefined };
  }

  /** Runs a call of a frontend tool with its `execute` and answers it (once per call). */
  async function runLocally(call: PendingApproval): Promise<void> {
    if (executing.has(call.toolCallId)) return;
    executing.add(call.toolCallId);
    const execute = executors.get(call.toolName)!;
    try {
      store.trigger.answerTool({ toolCallId: call.toolCallId, result: await execute(call.args) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      store.trigger.answerTool({ toolCallId: call.toolCallId, result: message, isError: true });
    }
  }

  /** Reads the run's stream until its last event, reconnecting from the last event id when it breaks. */
  async function follow(input: RunAgentInput): Promise<void> {
    following?.abort();
    const controller = new AbortController();
    following = controller;
    try {
      memory?.setItem(memoryKey, JSON.stringify(input));
    } catch {
      // A full or refusing storage: the run is followed, only not remembered.
    }
    let failures = 0;
    while (!controller.signal.aborted) {
      const { runId, lastEventId } = store.getSnapshot().context;
      let problem: string;
      try {
        const response = await fetchFn(options.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "text/event-stream",
            ...(runId === input.runId && lastEventId > 0 ? { "last-event-id": String(lastEventId) } : {}),
          },
          body: JSON.stringify(input),
          signal: controller.signal,
        });
        if (!response.ok || !response.body) {
          memory?.removeItem(memoryKey);
          store.trigger.failed({ message: await errorMessage(response) });
          return;
        }
        problem = "The stream ended before the run did";
        // The events of one chunk are applied in a row (one store update each), not one per turn.
        reading: for await (const messages of readSseChunks(response.body))
          for (const message of messages) {
            // Closed, or following another run, since the chunk arrived: the rest is not this store's.
            if (controller.signal.aborted) return;
            const event = agUiEventOf(message.data);
            if (!event) {
              problem = `The server sent a frame that is not an AG-UI event: ${abbreviated(message.data)}`;
              break reading;
            }
            failures = 0;
            const id = message.id === undefined ? undefined : Number(message.id);
            store.send(
              Number.isFinite(id)
                ? { type: "received", event, id: id as number }
                : { type: "received", event },
            );
            if (TERMINAL.has(event.type)) {
              // A run that ended waiting for the client is remembered: a reloaded page sees the calls.
              // (Unless this run's end already started the next one, which is remembered instead.)
              if (!controller.signal.aborted && store.getSnapshot().context.awaitingClient.length === 0)
                memory?.removeItem(memoryKey);
              return;
            }
          }
      } catch (error) {
        if (controller.signal.aborted) return;
        problem = `The connection to the server failed: ${error instanceof Error ? error.message : String(error)}`;
      }
      failures++;
      if (failures > maxAttempts) {
        memory?.removeItem(memoryKey);
        store.trigger.failed({ message: `${problem} (gave up after ${maxAttempts} reconnection attempts)` });
        return;
      }
      await wait(Math.min(maxDelay, 250 * 2 ** (failures - 1)), controller.signal);
    }
  }

  async function command(command: AgentCommand): Promise<void> {
    try {
      const response = await fetchFn(options.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ threadId: options.threadId, command }),
      });
      if (!response.ok) store.trigger.failed({ message: await errorMessage(response) });
    } catch (error) {
      store.trigger.failed({ message: error instanceof Error ? error.message : String(error) });
    }
  }

  if (options.resume !== false && memory) {
    const remembered = rememberedRun(memory, memoryKey, options.threadId);
    if (remembered) void follow(remembered);
  }

  return Object.assign(store, {
    close: () => {
      following?.abort();
      following = undefined;
    },
  });
}

/**
 * The run remembered for the thread, or `undefined` when there is none or it cannot be read (not
 * JSON, `null`, not a run of this thread): then it is forgotten, so that the page loads clean.
 */
function rememberedRun(memory: RunMemory, key: string, threadId: string): RunAgentInput | undefined {
  try {
    const text = memory.getItem(key);
    if (text === null) return undefined;
    const run = JSON.parse(text) as Partial<RunAgentInput> | null;
    if (
      typeof run === "object" &&
      run !== null &&
      run.threadId === threadId &&
      typeof run.runId === "string" &&
      Array.isArray(run.messages)
    )
      return run as RunAgentInput;
    memory.removeItem(key);
  } catch {
    try {
      memory.removeItem(key);
    } catch {
      // A storage that refuses even this: nothing is remembered.
    }
  }
  return undefined;
}

/** The AG-UI event of a frame's data, or `undefined` when it is not one (not JSON, no `type`). */
function agUiEventOf(data: string): AgUiEvent | undefined {
  try {
    const event = JSON.parse(data) as { type?: unknown } | null;
    return typeof event === "object" && event !== null && typeof event.type === "string"
      ? (event as AgUiEvent)
      : undefined;
  } catch {
    return undefined;
  }
}

function abbreviated(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}

function defaultMemory(): RunMemory | null {
  try {
    return (globalThis as { localStorage?: RunMemory }).localStorage ?? null;
  } catch {
    return null;
  }
}

/** The `tool` message answering a call: `result` as text (JSON text unless a string); `error` when it failed. */
function toolMessage(toolCallId: string, result: unknown, isError: boolean): AgUiMessage {
  const content = typeof result === "string" ? result : JSON.stringify(result ?? null);
  return { id: randomId(), role: "tool", toolCallId, content, ...(isError ? { error: content } : {}) };
}

function randomId(): string {
  return globalThis.crypto.randomUUID();
}

async function errorMessage(response: Response): Promise<string> {
  const body = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  return body?.error?.message ?? `The server answered ${response.status}`;
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

function pathOf(agentPath: string[] | undefined): { agentPath?: string[] } {
  return agentPath?.length ? { agentPath } : {};
}

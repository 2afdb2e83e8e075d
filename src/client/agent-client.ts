import { createStore, type Store } from "@xstate/store";
import type { AgUiEvent, AgUiMessage, RunAgentInput } from "../ag-ui/ag-ui-events.js";
import type { AgentCommand } from "../ag-ui/agent-command.js";
import { type AgentClientContext, applyAgUiEvent, initialClientContext } from "./agent-client-state.js";
import { readSse } from "./sse-reader.js";

/** Where the client remembers the run it follows, so that a reloaded page joins it again. */
export interface RunMemory {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
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
}

/** The events the store takes: the commands, and what the connection reports. */
export interface AgentClientEvents {
  /** Starts a run with a user message. */
  submit: { text: string };
  approve: { toolCallId: string };
  deny: { toolCallId: string; reason?: string };
  steer: { text: string };
  followUp: { text: string };
  abort: Record<string, never>;
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

/**
 * A client of an AG-UI endpoint as an `@xstate/store` store: its snapshot's context holds the
 * messages (the streaming one apart, in `streaming`), tool calls by id with their status, the status
 * of the run, the calls awaiting approval and the state the server shares. Its events are the commands
 * (`submit`, `approve`, `deny`, `steer`, `followUp`, `abort`). It reconnects by itself when the stream
 * breaks (sending `Last-Event-ID`, so it ends in the state it would have had without the cut) and, with
 * `memory`, joins the thread's run again after a page reload. Runs in browsers and Node.
 *
 * Contract: never throws; failed requests end in `status: "error"` with `error` set.
 *
 * ```ts
 * const client = createAgentClient({ url: "/agent", threadId: "t1" });
 * client.subscribe(({ context }) => render(context));
 * client.trigger.submit({ text: "Hello" });
 * ```
 */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const memory = options.memory === undefined ? defaultMemory() : options.memory;
  const memoryKey = `agentchart.run:${options.threadId}`;
  const maxDelay = options.maxRetryDelayMs ?? 5000;
  let following: AbortController | undefined;

  const store = createStore({
    context: initialClientContext(options.threadId),
    on: {
      submit: (context, event: AgentClientEvents["submit"], enqueue) => {
        const message: AgUiMessage = { id: randomId(), role: "user", content: event.text };
        const input: RunAgentInput = {
          threadId: context.threadId,
          runId: randomId(),
          messages: [...context.messages, message],
          tools: [],
          context: [],
        };
        enqueue.effect(() => follow(input));
        return { ...context, messages: input.messages, status: "running" as const, error: undefined };
      },
      approve: (context, event: AgentClientEvents["approve"], enqueue) => {
        enqueue.effect(() => command({ type: "approve", toolCallId: event.toolCallId }));
        return context;
      },
      deny: (context, event: AgentClientEvents["deny"], enqueue) => {
        enqueue.effect(() =>
          command({
            type: "deny",
            toolCallId: event.toolCallId,
            ...(event.reason !== undefined ? { reason: event.reason } : {}),
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
      abort: (context, _event: AgentClientEvents["abort"], enqueue) => {
        enqueue.effect(() => command({ type: "abort" }));
        return context;
      },
      received: (context, event: AgentClientEvents["received"]) =>
        applyAgUiEvent(context, event.event, event.id),
      failed: (context, event: AgentClientEvents["failed"]) => ({
        ...context,
        status: "error" as const,
        error: event.message,
      }),
    },
  });

  /** Reads the run's stream until its last event, reconnecting from the last event id when it breaks. */
  async function follow(input: RunAgentInput): Promise<void> {
    following?.abort();
    const controller = new AbortController();
    following = controller;
    memory?.setItem(memoryKey, JSON.stringify(input));
    let failures = 0;
    while (!controller.signal.aborted) {
      const { runId, lastEventId } = store.getSnapshot().context;
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
        for await (const message of readSse(response.body)) {
          failures = 0;
          const event = JSON.parse(message.data) as AgUiEvent;
          const id = message.id === undefined ? undefined : Number(message.id);
          store.trigger.received(Number.isFinite(id) ? { event, id: id as number } : { event });
          if (TERMINAL.has(event.type)) {
            memory?.removeItem(memoryKey);
            return;
          }
        }
      } catch {
        if (controller.signal.aborted) return;
      }
      failures++;
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

  if (options.resume !== false) {
    const remembered = memory?.getItem(memoryKey);
    if (remembered) void follow(JSON.parse(remembered) as RunAgentInput);
  }

  return Object.assign(store, {
    close: () => {
      following?.abort();
      following = undefined;
    },
  });
}

function defaultMemory(): RunMemory | null {
  try {
    return (globalThis as { localStorage?: RunMemory }).localStorage ?? null;
  } catch {
    return null;
  }
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

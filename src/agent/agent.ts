import { Observable, Subject } from "rxjs";
import { type AgentLoopActor, createAgentLoopActor } from "../loop/agent-loop.js";
import { errorText, failedAssistantMessage } from "../loop/messages.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentLoopConfig, NextTurnUpdate, TurnEndContext } from "../types/loop.js";
import type { AgentMessage, ImageContent, UserMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { StreamFn } from "../types/stream.js";
import type { AgentTool } from "../types/tool.js";
import { type AgentState, reduceAgentState } from "./agent-state.js";
import { createMessageQueues, drainQueue, type QueueMode } from "./message-queues.js";

/** A listener of AgentEvents; may be async — runs finish only after async listeners settle. */
export type AgentListener = (event: AgentEvent, signal: AbortSignal) => void | Promise<void>;

/** Options of `new Agent(...)`: the initial state plus the loop's callbacks (see AgentLoopConfig). */
export interface AgentOptions
  extends Omit<
    AgentLoopConfig,
    | "signal"
    | "getSteeringMessages"
    | "getFollowUpMessages"
    | "restoreQueuedMessages"
    | "thinkingLevel"
    | "model"
  > {
  model: Model;
  streamFn: StreamFn;
  systemPrompt?: string;
  thinkingLevel?: ThinkingLevel;
  tools?: AgentTool[];
  messages?: AgentMessage[];
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  /** Receives errors thrown by listeners (default: `console.error`). Never crashes the process. */
  onListenerError?: (error: unknown, event: AgentEvent) => void;
}

const BUSY_PROMPT =
  "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.";
const BUSY_CONTINUE = "Agent is already processing. Wait for completion before continuing.";
const BUSY_RESET = "Agent is already processing. Wait for completion before resetting.";

interface ActiveRun {
  actor: AgentLoopActor;
  controller: AbortController;
  finished: Promise<void>;
}

/**
 * A stateful agent: transcript, model, thinking level, tools and message queues around the loop
 * statechart. Each `prompt`/`continue` runs one `agentLoopMachine` actor (exposed as `actor`).
 *
 * ```ts
 * const agent = new Agent({ model, streamFn: scriptedModel([{ text: "Hi!" }]) });
 * agent.subscribe((event) => console.log(event.type));
 * await agent.prompt("Hello");
 * ```
 */
export class Agent {
  steeringMode: QueueMode;
  followUpMode: QueueMode;
  readonly #options: AgentOptions;
  readonly #state: AgentState & { messages: AgentMessage[]; tools: AgentTool[] };
  readonly #queues = createMessageQueues();
  readonly #events = new Subject<AgentEvent>();
  readonly #stateChanges = new Subject<void>();
  readonly #listeners = new Set<AgentListener>();
  #listenerWork: Promise<void>[] = [];
  #run: ActiveRun | undefined;
  #lastActor: AgentLoopActor | undefined;
  #revision = 0;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.steeringMode = options.steeringMode ?? "one-at-a-time";
    this.followUpMode = options.followUpMode ?? "one-at-a-time";
    this.#state = {
      systemPrompt: options.systemPrompt ?? "",
      model: options.model,
      thinkingLevel: options.thinkingLevel ?? "off",
      tools: [...(options.tools ?? [])],
      messages: [...(options.messages ?? [])],
      isStreaming: false,
      streamingMessage: undefined,
      pendingToolCalls: new Set(),
      errorMessage: undefined,
    };
  }

  /** A snapshot of the state (the `messages` and `tools` arrays are the live ones: do not mutate). */
  get state(): AgentState {
    return { ...this.#state };
  }

  /** Every AgentEvent of every run. */
  get events$(): Observable<AgentEvent> {
    return this.#events.asObservable();
  }

  /** The state, now and after every change (not on each streamed delta: use `events$` for those). */
  get state$(): Observable<AgentState> {
    return new Observable<AgentState>((subscriber) => {
      subscriber.next(this.state);
      return this.#stateChanges.subscribe(() => subscriber.next(this.state));
    });
  }

  /** The running loop actor, or the last one after a run; undefined before the first run. */
  get actor(): AgentLoopActor | undefined {
    return this.#run?.actor ?? this.#lastActor;
  }

  /** The current run's abort signal, if running. */
  get signal(): AbortSignal | undefined {
    return this.#run?.controller.signal;
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: AgentListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  setModel(model: Model): void {
    this.#change({ model });
  }
  setThinkingLevel(thinkingLevel: ThinkingLevel): void {
    this.#change({ thinkingLevel });
  }
  setSystemPrompt(systemPrompt: string): void {
    this.#change({ systemPrompt });
  }
  setTools(tools: AgentTool[]): void {
    this.#change({ tools: [...tools] });
  }
  /** Replaces the transcript (copied). Rejected while running: the run owns the transcript then. */
  setMessages(messages: AgentMessage[]): void {
    if (this.#run) throw new Error("Cannot replace messages while the agent is running");
    this.#change({ messages: [...messages] });
  }

  /** Queues a message injected after the current turn (text becomes a user message). */
  steer(message: AgentMessage | string): void {
    this.#queues.trigger.enqueue({ queue: "steering", message: toMessage(message) });
  }

  /** Queues a message delivered when the agent would otherwise stop. */
  followUp(message: AgentMessage | string): void {
    this.#queues.trigger.enqueue({ queue: "followUp", message: toMessage(message) });
  }

  clearQueues(): void {
    this.#queues.trigger.clear({});
  }

  /** Messages waiting in the queues. */
  get queued(): { steering: readonly AgentMessage[]; followUp: readonly AgentMessage[] } {
    return this.#queues.get().context;
  }

  /**
   * Starts a run with a prompt; resolves after `agent_end` and its async listeners. Rejects while a run
   * is active. Provider and tool failures do not reject: they end up in the transcript.
   */
  prompt(
    input: string | AgentMessage | AgentMessage[],
    options: { images?: ImageContent[] } = {},
  ): Promise<void> {
    if (this.#run) return Promise.reject(new Error(BUSY_PROMPT));
    const prompts =
      typeof input === "string"
        ? [userMessage(input, options.images)]
        : Array.isArray(input)
          ? input
          : [input];
    return this.#start(prompts);
  }

  /**
   * Continues from the transcript: after a user/tool result message, asks the model again; after an
   * assistant message, runs queued steering or follow-up messages. Rejects when there is nothing to do.
   */
  continue(): Promise<void> {
    if (this.#run) return Promise.reject(new Error(BUSY_CONTINUE));
    const last = this.#state.messages.at(-1);
    if (!last) return Promise.reject(new Error("No messages to continue from"));
    if ((last as { role?: string }).role === "assistant") {
      const steering = drainQueue(this.#queues, "steering", this.steeringMode);
      if (steering.length > 0) return this.#start(steering);
      const followUps = drainQueue(this.#queues, "followUp", this.followUpMode);
      if (followUps.length > 0) return this.#start(followUps);
      return Promise.reject(new Error("Cannot continue from message role: assistant"));
    }
    return this.#start([]);
  }

  /** Aborts the current run (no-op when idle). Queued messages stay queued. */
  abort(): void {
    this.#run?.controller.abort();
  }

  /** Resolves when no run is active. */
  async waitForIdle(): Promise<void> {
    while (this.#run) await this.#run.finished;
  }

  /** Clears transcript, queues and error state (keeps model, tools, system prompt). Throws while running. */
  reset(): void {
    if (this.#run) throw new Error(BUSY_RESET);
    this.#queues.trigger.clear({});
    this.#change({
      messages: [],
      errorMessage: undefined,
      streamingMessage: undefined,
      pendingToolCalls: new Set(),
    });
  }

  /** Lets a tool call waiting in `awaitingApproval` run. Throws when no such call is waiting. */
  approveToolCall(toolCallId: string): void {
    this.#awaitingApproval(toolCallId).send({ type: "APPROVE_TOOL", toolCallId });
  }

  /** Refuses a tool call waiting for approval: it gets an error result with the reason. */
  denyToolCall(toolCallId: string, reason?: string): void {
    this.#awaitingApproval(toolCallId).send({ type: "DENY_TOOL", toolCallId, reason });
  }

  #awaitingApproval(toolCallId: string): AgentLoopActor {
    const actor = this.#run?.actor;
    const child = actor?.getSnapshot().children[toolCallId]?.getSnapshot();
    if (!actor || !child || !("matches" in child) || !child.matches("awaitingApproval")) {
      throw new Error(`No tool call "${toolCallId}" is awaiting approval`);
    }
    return actor;
  }

  /** Snapshots are built only when someone watches `state$`. */
  #publishState(): void {
    if (this.#stateChanges.observed) this.#stateChanges.next();
  }

  #change(patch: Partial<AgentState>): void {
    Object.assign(this.#state, patch);
    this.#revision++;
    this.#publishState();
  }

  #start(prompts: AgentMessage[]): Promise<void> {
    const controller = new AbortController();
    const startRevision = this.#revision;
    const config = this.#loopConfig(controller.signal, startRevision);
    const actor = createAgentLoopActor(
      prompts,
      { systemPrompt: this.#state.systemPrompt, messages: this.#state.messages, tools: this.#state.tools },
      config,
      (event) => this.#dispatch(event, controller.signal),
      { appendInPlace: true },
    );
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const run: ActiveRun = { actor, controller, finished: done };
    this.#run = run;
    this.#lastActor = actor;
    this.#change({ isStreaming: true, errorMessage: undefined });
    actor.subscribe({
      complete: () => void this.#settle(run, finish),
      error: (error) => {
        this.#emitFailure(errorText(error), controller.signal);
        void this.#settle(run, finish);
      },
    });
    actor.start();
    actor.send({ type: "START" });
    return done;
  }

  async #settle(run: ActiveRun, finish: () => void): Promise<void> {
    while (this.#listenerWork.length > 0) {
      const work = this.#listenerWork;
      this.#listenerWork = [];
      await Promise.all(work);
    }
    if (this.#run === run) this.#run = undefined;
    this.#change({ isStreaming: false, streamingMessage: undefined, pendingToolCalls: new Set() });
    finish();
  }

  /** A loop actor that crashed (a bug) still ends with an error message and agent_end. */
  #emitFailure(text: string, signal: AbortSignal): void {
    const message = failedAssistantMessage(this.#state.model, signal.aborted ? "aborted" : "error", text);
    for (const event of [
      { type: "message_start", message },
      { type: "message_end", message },
      { type: "turn_end", message, toolResults: [] },
      { type: "agent_end", messages: [message] },
    ] as AgentEvent[]) {
      this.#dispatch(event, signal);
    }
  }

  #loopConfig(signal: AbortSignal, startRevision: number): AgentLoopConfig {
    const options = this.#options;
    const queues = this.#queues;
    return {
      ...options,
      model: this.#state.model,
      thinkingLevel: this.#state.thinkingLevel,
      signal,
      getSteeringMessages: () => drainQueue(queues, "steering", this.steeringMode),
      getFollowUpMessages: () => drainQueue(queues, "followUp", this.followUpMode),
      restoreQueuedMessages: (queue, messages) => queues.trigger.restore({ queue, messages }),
      prepareNextTurn: (ctx: TurnEndContext) => {
        const update = options.prepareNextTurn?.(ctx);
        return update instanceof Promise
          ? update.then((resolved) => this.#withSetterChanges(ctx, resolved, startRevision))
          : this.#withSetterChanges(ctx, update, startRevision);
      },
    };
  }

  /** Setters called during a run take effect on the next request. */
  #withSetterChanges(
    ctx: TurnEndContext,
    update: NextTurnUpdate | undefined,
    startRevision: number,
  ): NextTurnUpdate | undefined {
    if (this.#revision === startRevision) return update;
    const context = update?.context ?? ctx.context;
    return {
      model: update?.model ?? this.#state.model,
      thinkingLevel: update?.thinkingLevel ?? this.#state.thinkingLevel,
      context: { ...context, systemPrompt: this.#state.systemPrompt, tools: this.#state.tools },
    };
  }

  #dispatch(event: AgentEvent, signal: AbortSignal): void {
    if (reduceAgentState(this.#state, event)) this.#publishState();
    this.#events.next(event);
    for (const listener of this.#listeners) {
      try {
        const result = listener(event, signal);
        if (result && typeof (result as Promise<void>).then === "function") {
          this.#listenerWork.push(
            (result as Promise<void>).then(undefined, (error) => this.#report(error, event)),
          );
        }
      } catch (error) {
        this.#report(error, event);
      }
    }
  }

  #report(error: unknown, event: AgentEvent): void {
    try {
      (this.#options.onListenerError ?? defaultListenerError)(error, event);
    } catch {
      // The error reporter itself failed; there is nobody left to tell.
    }
  }
}

function defaultListenerError(error: unknown, event: AgentEvent): void {
  console.error(`agentchart: a listener threw while handling "${event.type}":`, error);
}

function toMessage(message: AgentMessage | string): AgentMessage {
  return typeof message === "string" ? userMessage(message) : message;
}

function userMessage(text: string, images: ImageContent[] = []): UserMessage {
  return {
    role: "user",
    content: images.length > 0 ? [{ type: "text", text }, ...images] : text,
    timestamp: Date.now(),
  };
}

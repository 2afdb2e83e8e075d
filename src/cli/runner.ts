import type { Observable } from "rxjs";
import type { InspectionEvent, Observer } from "xstate";
import { Agent } from "../agent/agent.js";
import type { Session } from "../storage/session.js";
import type { SessionRepo } from "../storage/session-repo.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { StreamFn } from "../types/stream.js";
import type { AgentTool } from "../types/tool.js";

/** What `/compact` got: a summary, or why nothing was compacted. */
export type CompactOutcome = { compacted: true; summary: string } | { compacted: false; reason: string };

/**
 * What the CLI needs from "an agent with a session": the REPL, the one-shot mode and `--json` only
 * talk to this interface. `createAgentRunner` implements it with `Agent` + `Session`; the
 * `AgentHarness` (hooks, compaction, retries) will implement it later with the same contract.
 */
export interface AgentRunner {
  /** Every AgentEvent of every run. */
  readonly events$: Observable<AgentEvent>;
  /** The session every message and setting change is persisted to; `undefined` with `--no-session`. */
  readonly session: Session | undefined;
  readonly model: Model;
  readonly thinkingLevel: ThinkingLevel;
  /** The transcript the next prompt continues. */
  readonly messages: readonly AgentMessage[];
  readonly isRunning: boolean;
  /**
   * Runs one prompt to the end (tool calls included) and resolves with the last assistant message,
   * once it is persisted. Provider and tool failures do not reject; they are in the message.
   * Rejects while a run is active, or when the session cannot be written.
   */
  prompt(text: string): Promise<AssistantMessage | undefined>;
  /** Queues a message for the running turn (delivered after the current tool batch). */
  steer(text: string): void;
  /** Aborts the running turn (no-op when idle); `prompt` then resolves with an aborted message. */
  abort(): void;
  /** Summarises old messages to free context. */
  compact(): Promise<CompactOutcome>;
  /** Switches the model for the next request and records the change in the session. */
  setModel(model: Model): Promise<void>;
  /** Switches the thinking level and records the change in the session. */
  setThinkingLevel(level: ThinkingLevel): Promise<void>;
  /**
   * Forks the session at `entryId` (default: the current leaf) into a new session and continues in
   * it. Rejects without a session.
   */
  fork(entryId?: string): Promise<Session>;
  /** Waits for the session writes, closes the session (releasing its lock). Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link createAgentRunner}. */
export interface AgentRunnerOptions {
  model: Model;
  streamFn: StreamFn;
  thinkingLevel?: ThinkingLevel;
  systemPrompt?: string;
  tools?: AgentTool[];
  /** Passed to every tool's `execute` (the built-in tools need `{cwd}`). */
  toolContext?: unknown;
  /** The open session to persist to and continue from (its context is loaded); omit for none. */
  session?: Session;
  /** The repo of `session`, needed by `fork`. */
  repo?: SessionRepo;
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
}

/**
 * An {@link AgentRunner} over `Agent` and a `Session`: loads `session.buildContext().messages`,
 * appends each `message_end` message with `session.appendMessage`, and records model and thinking
 * level changes. Compaction is not available (it belongs to the harness).
 */
export function createAgentRunner(options: AgentRunnerOptions): AgentRunner {
  return new AgentSessionRunner(options);
}

class AgentSessionRunner implements AgentRunner {
  readonly #agent: Agent;
  readonly #repo: SessionRepo | undefined;
  #session: Session | undefined;
  #closed: Promise<void> | undefined;

  constructor(options: AgentRunnerOptions) {
    this.#repo = options.repo;
    this.#session = options.session;
    this.#agent = new Agent({
      model: options.model,
      streamFn: options.streamFn,
      thinkingLevel: options.thinkingLevel ?? "off",
      systemPrompt: options.systemPrompt ?? "",
      tools: options.tools ?? [],
      messages: options.session?.buildContext().messages ?? [],
      toolContext: options.toolContext,
      inspect: options.inspect,
    });
    this.#agent.subscribe((event) => {
      if (event.type === "message_end") void this.#session?.appendMessage(event.message);
    });
    this.#recordSettings();
  }

  get events$(): Observable<AgentEvent> {
    return this.#agent.events$;
  }
  get session(): Session | undefined {
    return this.#session;
  }
  get model(): Model {
    return this.#agent.state.model;
  }
  get thinkingLevel(): ThinkingLevel {
    return this.#agent.state.thinkingLevel;
  }
  get messages(): readonly AgentMessage[] {
    return this.#agent.state.messages;
  }
  get isRunning(): boolean {
    return this.#agent.state.isStreaming;
  }

  async prompt(text: string): Promise<AssistantMessage | undefined> {
    await this.#agent.prompt(text);
    await this.#session?.flush();
    return lastAssistant(this.#agent.state.messages);
  }

  steer(text: string): void {
    this.#agent.steer(text);
  }

  abort(): void {
    this.#agent.abort();
  }

  async compact(): Promise<CompactOutcome> {
    return {
      compacted: false,
      reason: "compaction needs the AgentHarness, which this build does not include yet",
    };
  }

  async setModel(model: Model): Promise<void> {
    this.#agent.setModel(model);
    await this.#session?.appendModelChange(model.provider, model.id);
  }

  async setThinkingLevel(level: ThinkingLevel): Promise<void> {
    this.#agent.setThinkingLevel(level);
    await this.#session?.appendThinkingLevelChange(level);
  }

  async fork(entryId?: string): Promise<Session> {
    const source = this.#session;
    if (!source || !this.#repo) throw new Error("There is no session to fork (--no-session)");
    if (this.isRunning) throw new Error("Cannot fork while a turn is running");
    await source.flush();
    const forked = await this.#repo.fork(source.id, entryId === undefined ? {} : { entryId });
    await source.close();
    this.#session = forked;
    this.#agent.setMessages(forked.buildContext().messages);
    return forked;
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#agent.abort();
      await this.#agent.waitForIdle();
      await this.#session?.close();
    })();
    return this.#closed;
  }

  /** Records the model and thinking level when they differ from what the session last recorded. */
  #recordSettings(): void {
    const session = this.#session;
    if (!session) return;
    const recorded = session.buildContext();
    const { model, thinkingLevel } = this.#agent.state;
    if (recorded.model?.provider !== model.provider || recorded.model.modelId !== model.id) {
      void session.appendModelChange(model.provider, model.id);
    }
    if (recorded.thinkingLevel !== thinkingLevel) void session.appendThinkingLevelChange(thinkingLevel);
  }
}

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as AgentMessage & { role: string };
    if (message.role === "assistant") return message as AssistantMessage;
  }
  return undefined;
}

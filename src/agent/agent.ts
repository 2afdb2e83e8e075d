import { Observable, Subject } from "rxjs";
import { type AnyActorRef, createActor } from "xstate";
import type { z } from "zod";
import {
  type AddressedCommand,
  type AgentAddress,
  addressOf,
  callKey,
} from "../commands/addressed-command.js";
import { checkBudget, checkBudgetLimits } from "../loop/budget-check.js";
import { continueRefusal } from "../loop/continue-refusal.js";
import { toMessage, userMessage } from "../loop/messages.js";
import { outputStateOf } from "../loop/output-schema.js";
import { runResultOf } from "../loop/run-result.js";
import type {
  AgentMachineContext,
  PersistableStreamOptions,
  QueueMode,
} from "../machines/agent/agent.context.js";
import type { AgentCommand, ResumedCallState } from "../machines/agent/agent.events.js";
import {
  type AgentImplementations,
  activeTools,
  addTools,
  agentImplementations,
} from "../machines/agent/agent.implementations.js";
import type { AgentMachineInput } from "../machines/agent/agent.machine.js";
import { agentMachineOf } from "../machines/agent/agent.provided.js";
import type { Recording } from "../replay/recording.js";
import type { RecordedStep } from "../replay/recording-format.js";
import { commandEntryOf, stepRecorder } from "../replay/recording-inspector.js";
import { defineAgentTool } from "../tools/define-agent-tool.js";
import type { AgentBudget, BudgetLimits } from "../types/budget.js";
import { definedFields } from "../types/defined-fields.js";
import { errorText } from "../types/error-text.js";
import type { AgentEvent } from "../types/events.js";
import type { Guardrails } from "../types/guardrail.js";
import type { AgentCallbacks, AgentLoopConfig, SteeringPolicy } from "../types/loop.js";
import { isPromiseLike } from "../types/maybe-async.js";
import type { AgentMessage, AssistantMessage, ImageContent } from "../types/messages.js";
import type { Model, ModelInput, ThinkingLevel } from "../types/model.js";
import { FINAL_ANSWER_TOOL, type RunOutputState, type RunResult } from "../types/output.js";
import { resolveModel } from "../types/resolve-model.js";
import { PERSISTABLE_STREAM_OPTION_KEYS } from "../types/stream-option-keys.js";
import type { AgentToolOptions, SubAgentSpec } from "../types/sub-agent.js";
import type { AgentTool, ToolResult } from "../types/tool.js";
import { agentRecordingOf, persistAgentActor, type RecordOption } from "./agent-recording.js";
import {
  type AgentActor,
  type PersistedAgent,
  persistAgent,
  type RestorePlan,
  restoreAgentActor,
} from "./agent-snapshot.js";
import { type AgentState, type LiveProgress, reduceLiveProgress } from "./agent-state.js";
import { agentMachineStateOf } from "./agent-streams.js";
import { agentAt } from "./agent-tree.js";
import { type CallAnswer, callNotWaiting, commandTarget } from "./command-target.js";

/** A listener of AgentEvents; may be async — runs finish only after async listeners settle. */
export type AgentListener = (event: AgentEvent, signal: AbortSignal) => void | Promise<void>;

/** Options of `new Agent(...)`: the initial state, the callbacks and runtime stream options. */
export interface AgentOptions<TOutput = unknown>
  extends AgentCallbacks,
    Pick<AgentLoopConfig, "toolExecution" | "steering" | "maxTurns" | "inspect"> {
  /** A Model, a record with at least `id`, or a catalogue id such as "gpt-4.1-mini" (see `resolveModel`). */
  model: ModelInput;
  /** Stable id (default: a random UUID); with a tool call id it makes `ctx.idempotencyKey`. */
  agentId?: string;
  systemPrompt?: string;
  thinkingLevel?: ThinkingLevel;
  tools?: AgentTool[];
  messages?: AgentMessage[];
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  /** Receives errors thrown by listeners (default: `console.error`). Never crashes the process. */
  onListenerError?: (error: unknown, event: AgentEvent) => void;
  /**
   * The typed output of every run (a prompt's own `output` wins): `prompt()` resolves with the value
   * validated by this zod schema (see docs/output-and-guardrails.md).
   */
  output?: z.ZodType<TOutput>;
  /** Replies that fail validation which the run asks the model to repair before it fails (default 2). */
  maxOutputRepairs?: number;
  /** Checks of each prompt (input) and of each reply before it is released (output). */
  guardrails?: Guardrails;
  /**
   * Starts as this handoff target (its name; a handoff reachable from `tools`, see `defineHandoff`):
   * its system prompt, tools and model instead of `systemPrompt`, `tools` and `model`, as if the handoff
   * had just happened — e.g. for a transcript that ended with one (`activeHandoffOf(messages)`).
   * Throws for a name no handoff leads to.
   */
  activeAgent?: string;
  /**
   * The budget of each run (a prompt's own `budget` wins): limits on tokens, cost, model calls, tool
   * calls and turns, and what happens at each (see docs/budgets.md). Throws `BudgetError` for a
   * negative or non-numeric limit, or `maxCostUsd` with a model without prices.
   */
  budget?: AgentBudget;
  /**
   * Records the run (`agent.recording`, `agent.history`): every model request and reply, tool call,
   * command from outside with its state, and the persisted snapshot at each step (see docs/replay.md).
   * `true` starts a new recording; a `Recording` is filled (e.g. one recording across a restore).
   */
  record?: RecordOption;
}

/** @deprecated Use `AgentAddress` (the same `{ agentPath? }`); this alias goes in the next minor release. */
export type AgentPathOption = AgentAddress;

/** Options of `agent.prompt(…)`. */
export interface PromptOptions<TOutput = unknown> {
  images?: ImageContent[];
  /** The typed output of this run (default: the agent's `output`). */
  output?: z.ZodType<TOutput>;
  /** As the agent option, for this run. */
  maxOutputRepairs?: number;
  /** This run's budget instead of the agent's (checked as the agent option is: a bad one rejects). */
  budget?: AgentBudget;
}

/** Options of `Agent.restore`: as for the constructor; state values set here override the snapshot's. */
export type AgentRestoreOptions<TOutput = unknown> = Omit<AgentOptions<TOutput>, "model"> & { model?: Model };

const BUSY_PROMPT =
  "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.";
const BUSY_CONTINUE = "Agent is already processing. Wait for completion before continuing.";
const BUSY_RESET = "Agent is already processing. Wait for completion before resetting.";

interface Run {
  finished: Promise<RunResult>;
  finish: (result: RunResult) => void;
}

/**
 * How `Agent.restore` and `agentOver` hand the constructor an actor built elsewhere (the options say
 * nothing of it), with its implementations and, for a restored one, what it resumes.
 */
const prebuilt = new WeakMap<
  object,
  {
    actor: AgentActor;
    implementations: AgentImplementations;
    plan: RestorePlan | undefined;
    recording?: Recording<PersistedAgent> | undefined;
    /** Whether the facade records commands and steps itself (not when its host inspects the actor). */
    records?: boolean;
  }
>();

/**
 * A stateful agent: a thin facade over one long-lived `agentMachine` actor (`agent.actor`, the same
 * before, during and after every run). Every method is an event the machine accepts; the transcript,
 * queues, model and settings live in the machine's context, so `persist()` saves the whole agent and
 * `Agent.restore` brings it back, also mid-run (see docs/concepts.md).
 *
 * ```ts
 * import { scriptedModel } from "agentchart/testing";
 * const agent = new Agent({ model, streamFn: scriptedModel([{ text: "Hi!" }]) });
 * agent.subscribe((event) => console.log(event.type));
 * await agent.prompt("Hello");
 * const saved = JSON.stringify(agent.persist());
 * const again = Agent.restore(saved, { streamFn });
 * ```
 */
export class Agent<TOutput = unknown> {
  /** The agent's actor (`agentMachine`), started; drive it with events or read its snapshot. */
  readonly actor: AgentActor;
  readonly #options: AgentOptions<TOutput> | AgentRestoreOptions<TOutput>;
  readonly #implementations: AgentImplementations;
  /** What `record` fills (see `history`; docs/replay.md). */
  readonly recording: Recording<PersistedAgent> | undefined;
  /** The recording this facade adds the commands it sends to, and the steps it sees (see `constructor`). */
  readonly #recordsInto: Recording<PersistedAgent> | undefined;
  readonly #events = new Subject<AgentEvent>();
  readonly #stateChanges = new Subject<void>();
  readonly #listeners = new Set<AgentListener>();
  /**
   * The signal of the current run for listeners and `agent.signal`, aborted by `abort()` and `fail()`;
   * kept for the next run unless it was aborted (an AbortController is not free).
   */
  #controller = new AbortController();
  /** Keys (`callKey`) of calls a command answered that the machine has not taken yet. */
  readonly #answered = new Set<string>();
  /** A restored agent's `RESUME`s, until they are sent (a microtask after the restore, or before a command). */
  #pendingResume: (() => void) | undefined;
  /** The tools given (constructor, `setTools`), active or not. */
  #tools: readonly AgentTool[];
  readonly #progress: LiveProgress = { streamingMessage: undefined, pendingToolCalls: new Set() };
  #listenerWork: Promise<void>[] = [];
  #run: Run | undefined;
  /** `queued`'s last answer and the context it was read from (none before the first read). */
  #queued: { context: AgentMachineContext; value: Agent["queued"] } | undefined;

  constructor(options: AgentOptions<TOutput>) {
    this.#options = options;
    this.#tools = options.tools ?? [];
    const restoring = prebuilt.get(options);
    if (restoring) {
      this.#implementations = restoring.implementations;
      this.actor = restoring.actor;
      this.recording = restoring.recording;
    } else {
      if (options.output) outputStateOf(options.output, options.maxOutputRepairs); // fails early
      this.recording = agentRecordingOf(options.record, "agent");
      this.#implementations = agentImplementations({ ...options, record: this.recording });
      const input = agentInputOf(options, this.#implementations);
      if (options.budget) checkBudget(options.budget, input.model, "Agent budget"); // fails early
      this.actor = createActor(agentMachineOf(this.#implementations), {
        input,
        ...(options.inspect ? { inspect: options.inspect } : {}),
      });
    }
    // An agent of its own records the commands it sends and its steps here, through its methods and a
    // snapshot subscription (cheaper than inspecting every event); a harness's inspects its actor system.
    this.#recordsInto = restoring?.records === false ? undefined : this.recording;
    const recording = this.#recordsInto;
    if (recording) {
      const step = stepRecorder((entry) => recording.add(entry), persistAgentActor);
      this.actor.subscribe((snapshot) => step(this.actor, snapshot.value));
    }
    this.actor.on("*", (event) => this.#dispatch(event));
    this.actor.subscribe(() => {
      if (this.#answered.size > 0) this.#answered.clear();
    });
    this.actor.start();
    if (restoring?.plan?.from) {
      // After `restore` returns, so that a listener attached right after it sees `agent_resume`;
      // then each sub-agent of the tree, parents first. A command sent before that microtask sends
      // them first: each agent resumes where it was restored, before anything moves it on.
      this.#beginRun();
      const plan = restoring.plan;
      this.#pendingResume = () => {
        this.#pendingResume = undefined;
        this.#sendTo(this.actor, resumeEvent(plan));
        for (const sub of plan.subAgents) {
          const agent = agentAt(this.actor, sub.path);
          if (agent) this.#sendTo(agent, resumeEvent(sub.plan));
        }
      };
      queueMicrotask(() => this.#pendingResume?.());
    } else if (this.actor.getSnapshot().hasTag("busy")) this.#beginRun(); // restored by its parent mid-run
  }

  /**
   * Rebuilds an agent from `agent.persist()` (the object, or its JSON text), in this or another
   * process. `options` supply what is not data — StreamFn, tool implementations, callbacks — and may
   * override state values. An agent persisted mid-run goes on by itself (see docs/concepts.md for what
   * each state resumes); one waiting for approval waits. Throws `AgentRestoreError` (nothing is built)
   * for a snapshot that does not parse, another version, or a tool the options do not supply.
   */
  static restore<TOutput = unknown>(
    snapshot: string | PersistedAgent,
    options: AgentRestoreOptions<TOutput>,
  ): Agent<TOutput> {
    const recording = agentRecordingOf(options.record, "agent");
    const implementations = agentImplementations({ ...options, record: recording });
    const overrides = {
      model: options.model,
      systemPrompt: options.systemPrompt,
      thinkingLevel: options.thinkingLevel,
      messages: options.messages,
    };
    const { actor, plan } = restoreAgentActor(snapshot, implementations, overrides, options.inspect);
    // A copy of the options keys this restore: the same options may build other agents.
    const keyed = { ...options } as AgentOptions<TOutput>;
    prebuilt.set(keyed, { actor, implementations, plan, recording });
    return new Agent<TOutput>(keyed);
  }

  /**
   * An agent tool whose calls each run a fresh child with this agent's definition as it is now —
   * system prompt, model, thinking level, active tools, StreamFn and callbacks, typed output and
   * guardrails — never this agent's transcript (see `defineAgentTool`; docs/subagents.md).
   *
   * Contract: synchronous; throws as `defineAgentTool` does.
   *
   * ```ts
   * const writer = new Agent({ model, streamFn, systemPrompt: "You write." });
   * const editor = new Agent({ model, streamFn, tools: [writer.asTool({ name: "write", description: "Writes a draft" })] });
   * ```
   */
  asTool(options: Omit<AgentToolOptions, "agent">): AgentTool {
    return defineAgentTool({ ...options, agent: () => this.#definition() });
  }

  /** This agent's definition as a sub-agent spec (its current state, its options' functions). */
  #definition(): SubAgentSpec {
    // A child records into this agent's recording when this one records (`subAgentOptions`), not its own.
    const { record: _record, ...options } = this.#options;
    const context = this.#context;
    return {
      ...options,
      streamFn: this.#implementations.callbacks.streamFn,
      model: context.model,
      systemPrompt: context.systemPrompt,
      thinkingLevel: context.thinkingLevel,
      tools: activeTools(this.#implementations, context.toolNames),
      toolExecution: context.settings.toolExecution,
      ...(context.settings.maxTurns !== undefined ? { maxTurns: context.settings.maxTurns } : {}),
    };
  }

  /** The whole agent as JSON-safe data (after any macrostep): give it to `Agent.restore`. */
  persist(): PersistedAgent {
    return persistAgent(this.actor);
  }

  get #context(): AgentMachineContext {
    return this.actor.getSnapshot().context;
  }

  /**
   * The step boundaries recorded so far (turn starts, settled tool batches, calls awaiting a person,
   * run ends), each with its state `value` and persisted `snapshot` — give one to `Agent.restore` to
   * fork the run from there. Empty without `record` (see docs/replay.md).
   */
  get history(): RecordedStep<PersistedAgent>[] {
    return this.recording?.steps ?? [];
  }

  /** A snapshot of the state (the arrays are the machine's: do not mutate). */
  get state(): AgentState {
    const { toolNames, ...state } = agentMachineStateOf(this.actor, this.#progress);
    return { ...state, tools: activeTools(this.#implementations, toolNames) };
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

  /** The current run's abort signal, if running (aborted by `abort()` and `fail()`). */
  get signal(): AbortSignal | undefined {
    return this.#run ? this.#controller.signal : undefined;
  }

  get steeringMode(): QueueMode {
    return this.#context.settings.steeringMode;
  }
  get followUpMode(): QueueMode {
    return this.#context.settings.followUpMode;
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: AgentListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // Setters send their event only for a change: each event is a macrostep of the agent actor.
  setModel(model: Model): void {
    if (model !== this.#context.model) this.#send({ type: "SET_MODEL", model });
  }
  setThinkingLevel(thinkingLevel: ThinkingLevel): void {
    if (thinkingLevel !== this.#context.thinkingLevel)
      this.#send({ type: "SET_THINKING_LEVEL", thinkingLevel });
  }
  setSystemPrompt(systemPrompt: string): void {
    if (systemPrompt !== this.#context.systemPrompt) this.#send({ type: "SET_SYSTEM_PROMPT", systemPrompt });
  }
  /**
   * Replaces the tools; `activeToolNames` (default: all of `tools`) are the ones the model sees. A
   * running turn keeps its own; the next request sees these.
   */
  setTools(tools: AgentTool[], activeToolNames: string[] = tools.map((tool) => tool.name)): void {
    addTools(this.#implementations, tools);
    this.#tools = [...tools];
    this.#send({ type: "SET_TOOLS", toolNames: activeToolNames });
  }

  /** The tools given to the constructor or the last `setTools`, active or not (`state.tools`: the active ones). */
  get tools(): readonly AgentTool[] {
    return this.#tools;
  }

  /** True while a run is on (from `agent_start` to the settling of `agent_end`'s listeners). */
  get isRunning(): boolean {
    return this.#run !== undefined;
  }
  /** Replaces the transcript (copied). Rejected while running: the run owns the transcript then. */
  setMessages(messages: AgentMessage[]): void {
    if (this.#run) throw new Error("Cannot replace messages while the agent is running");
    this.#send({ type: "SET_MESSAGES", messages });
  }
  /** Changes data stream options (`sessionId`, `metadata`, `maxTokens`…) for the next requests. */
  setStreamOptions(streamOptions: PersistableStreamOptions): void {
    this.#send({
      type: "SET_STREAM_OPTIONS",
      streamOptions: { ...this.#context.streamOptions, ...streamOptions },
    });
  }

  /**
   * Queues a message injected after the current turn (text becomes a user message). With `agentPath`
   * it goes to that running sub-agent instead (throws when none runs there).
   */
  steer(message: AgentMessage | string, options: AgentAddress = {}): void {
    this.send({ type: "STEER", message: toMessage(message), ...addressOf(options) });
  }

  /** Queues a message delivered when the agent (or the sub-agent at `agentPath`) would otherwise stop. */
  followUp(message: AgentMessage | string, options: AgentAddress = {}): void {
    this.send({ type: "FOLLOW_UP", message: toMessage(message), ...addressOf(options) });
  }

  clearQueues(): void {
    this.#send({ type: "CLEAR_QUEUES" });
  }

  /** Messages waiting in the queues (the same object until they change). */
  get queued(): { steering: readonly AgentMessage[]; followUp: readonly AgentMessage[] } {
    const context = this.#context;
    const cached = this.#queued;
    if (cached?.context.steering === context.steering && cached.context.followUp === context.followUp)
      return cached.value;
    this.#queued = { context, value: { steering: context.steering, followUp: context.followUp } };
    return this.#queued.value;
  }

  /**
   * Starts a run with a prompt; resolves after `agent_end` and its async listeners with the run's
   * result: `{ output, messages, stopReason, error?, guardrail? }`. With an `output` schema (here or
   * on the agent) `output` is the validated value, typed from the schema.
   *
   * Contract: rejects while a run is active, or for an output schema `z.toJSONSchema` cannot
   * represent or that clashes with a tool named `final_answer`. Provider and tool failures, output
   * that never validates and guardrail trips do not reject: they are in the result and the transcript.
   *
   * ```ts
   * import { z } from "zod";
   * const { output } = await agent.prompt("Weather in Paris?", { output: z.object({ celsius: z.number() }) });
   * ```
   */
  prompt<TRunOutput>(
    input: string | AgentMessage | AgentMessage[],
    options: PromptOptions<TRunOutput> & { output: z.ZodType<TRunOutput> },
  ): Promise<RunResult<TRunOutput>>;
  prompt(input: string | AgentMessage | AgentMessage[], options?: PromptOptions): Promise<RunResult<TOutput>>;
  prompt(input: string | AgentMessage | AgentMessage[], options: PromptOptions = {}): Promise<RunResult> {
    if (this.#run) return Promise.reject(new Error(BUSY_PROMPT));
    const messages =
      typeof input === "string"
        ? [userMessage(input, options.images)]
        : Array.isArray(input)
          ? input
          : [input];
    let output: RunOutputState | undefined;
    try {
      output = this.#prepareOutput(options);
      if (options.budget) checkBudget(options.budget, this.#context.model, "prompt budget");
    } catch (error) {
      return Promise.reject(error);
    }
    const run = this.#beginRun();
    this.#send({
      type: "PROMPT",
      messages,
      ...(output ? { output } : {}),
      ...(options.budget ? { budget: options.budget } : {}),
    });
    return run.finished;
  }

  /** The run's output state from the prompt's schema or the agent's (its zod schema kept by the implementations). */
  #prepareOutput(options: PromptOptions): RunOutputState | undefined {
    const schema = options.output ?? this.#options.output;
    if (!schema) return undefined;
    if (this.#implementations.tools.has(FINAL_ANSWER_TOOL))
      throw new Error(
        `A run with typed output offers the model a "${FINAL_ANSWER_TOOL}" tool: rename the agent's tool of that name`,
      );
    const output = outputStateOf(schema, options.maxOutputRepairs ?? this.#options.maxOutputRepairs);
    this.#implementations.outputSchemas.set(output.request.schema, schema);
    return output;
  }

  /**
   * Continues from the transcript: after a user/tool result message, asks the model again; after an
   * assistant message, runs queued steering or follow-up messages. Rejects when there is nothing to do.
   * `options.output` as for `prompt()` (default: the agent's).
   */
  continue(options: Omit<PromptOptions, "images"> = {}): Promise<RunResult<TOutput>> {
    if (this.#run) return Promise.reject(new Error(BUSY_CONTINUE));
    const context = this.#context;
    const refusal = continueRefusal(context.messages, context.steering.length + context.followUp.length);
    if (refusal) return Promise.reject(new Error(refusal));
    let output: RunOutputState | undefined;
    try {
      output = this.#prepareOutput(options);
      if (options.budget) checkBudget(options.budget, context.model, "continue budget");
    } catch (error) {
      return Promise.reject(error);
    }
    const run = this.#beginRun();
    this.#send({
      type: "CONTINUE",
      ...(output ? { output } : {}),
      ...(options.budget ? { budget: options.budget } : {}),
    });
    return run.finished as Promise<RunResult<TOutput>>;
  }

  /**
   * Answers the unanswered tool calls of `message` — a reply already in the transcript whose run was
   * interrupted (a crash, a restart) — through the machine, exactly as a live run would: preflight,
   * `beforeToolCall`/`afterToolCall`, approval for tools that require it, `tool_execution_*` and result
   * message events, parallel or sequential, abort; then the model is asked to go on. `calls` says how
   * each call goes on: `"pending"` (it never started), `"approved"` (approved, or started with a tool
   * safe to replay: it runs without asking), `"interrupted"` (started, not safe to replay: it gets the
   * "interrupted, not re-run" result). Resolves like `prompt()`.
   *
   * Contract: rejects while a run is active, or when `message` is not the transcript's last assistant
   * message or names no such calls.
   *
   * ```ts
   * const lastReply = agent.state.messages.findLast((message) => message.role === "assistant");
   * if (lastReply?.role === "assistant") await agent.resumeToolCalls(lastReply, { call_1: "pending", call_2: "interrupted" });
   * ```
   */
  resumeToolCalls(
    message: AssistantMessage,
    calls: Record<string, ResumedCallState>,
  ): Promise<RunResult<TOutput>> {
    if (this.#run) return Promise.reject(new Error(BUSY_PROMPT));
    const context = this.#context;
    const last = context.messages.findLast((m): m is AssistantMessage => m.role === "assistant");
    if (last !== message && JSON.stringify(last) !== JSON.stringify(message))
      return Promise.reject(
        new Error("resumeToolCalls: the message is not the transcript's last assistant message"),
      );
    const ids = new Set(message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : [])));
    const named = Object.keys(calls);
    if (named.length === 0 || named.some((id) => !ids.has(id)))
      return Promise.reject(new Error("resumeToolCalls: name one or more tool calls of the message"));
    const sequential =
      context.settings.toolExecution === "sequential" ||
      message.content.some(
        (block) =>
          block.type === "toolCall" &&
          calls[block.id] !== undefined &&
          this.#implementations.tools.get(block.name)?.executionMode === "sequential",
      );
    const run = this.#beginRun();
    this.#send({ type: "RESUME_CALLS", message, calls: { ...calls }, sequential });
    return run.finished as Promise<RunResult<TOutput>>;
  }

  /**
   * Ends the current run at once with an error outcome (no-op when idle): unanswered tool calls get
   * `error` as their result, the run's last message is an assistant error message carrying it, and
   * `agent_end` follows. For failures outside the model and the tools (e.g. a harness hook that threw).
   */
  fail(error: unknown): void {
    this.send({ type: "FAIL", error: errorText(error) });
  }

  /** Aborts the current run at once (no-op when idle). Queued messages stay queued. */
  abort(): void {
    this.send({ type: "ABORT" });
  }

  /** Resolves when no run is active. */
  async waitForIdle(): Promise<void> {
    while (this.#run) await this.#run.finished;
  }

  /** Clears transcript, queues and error state (keeps model, tools, system prompt). Throws while running. */
  reset(): void {
    if (this.#run) throw new Error(BUSY_RESET);
    this.#progress.streamingMessage = undefined;
    this.#progress.pendingToolCalls = new Set();
    this.#send({ type: "RESET" });
  }

  /**
   * Sends a command of the machine's vocabulary to this agent or to the sub-agent at
   * `command.agentPath` — the one way every room drives an agent; the methods below are shorthands.
   * `PROMPT`, `CONTINUE` and `RESUME_CALLS` start a run whose events arrive on `events$` (use `prompt()`
   * for its result).
   *
   * Contract: synchronous; throws `CommandError` (nothing is sent then): `no_agent` when no sub-agent
   * runs at the path, `not_waiting` when the call (or the budget pause) a command answers does not wait
   * for it, `busy` for a command of an idle agent while a run is on, `refused` for `CONTINUE` with
   * nothing to continue. `ABORT` and `FAIL` of an idle agent do nothing.
   *
   * ```ts
   * agent.send({ type: "APPROVE_TOOL", toolCallId: "call_2", agentPath: ["call_1"] });
   * agent.send({ type: "STEER", message: { role: "user", content: "Shorter, please", timestamp: Date.now() } });
   * ```
   */
  send(command: AddressedCommand): void {
    const { agentPath, ...event } = command;
    if (command.type === "RAISE_BUDGET") checkBudgetLimits(command.limits, "RAISE_BUDGET");
    const answered = answersCall(command) ? callKey(command) : undefined;
    // A second answer sent before the machine took the first (e.g. from one listener call) is refused too.
    if (answered !== undefined && this.#answered.has(answered)) throw callNotWaiting(command as CallAnswer);
    const target = commandTarget(this.actor, command);
    if (target === this.actor && (event.type === "ABORT" || event.type === "FAIL")) {
      if (!this.#run) return;
      this.#controller.abort();
    }
    if (answered !== undefined) this.#answered.add(answered);
    this.#sendTo(target, event as AgentCommand);
  }

  /**
   * Lets a tool call waiting in `awaitingApproval` run — a sub-agent's call with its `agentPath` (as
   * `state.awaitingApproval` and `tool_approval_request` give it): `send({ type: "APPROVE_TOOL", … })`.
   * Throws `CommandError` (`not_waiting`) when no such call is waiting.
   */
  approveToolCall(toolCallId: string, options: AgentAddress = {}): void {
    this.send({ type: "APPROVE_TOOL", toolCallId, ...addressOf(options) });
  }

  /** Refuses a tool call waiting for approval (at `agentPath`): it gets an error result with the reason. */
  denyToolCall(toolCallId: string, reason?: string, options: AgentAddress = {}): void {
    this.send({
      type: "DENY_TOOL",
      toolCallId,
      ...(reason === undefined ? {} : { reason }),
      ...addressOf(options),
    });
  }

  /**
   * Gives the result of a client tool's call waiting in `awaitingClient` (see `defineClientTool`).
   * Throws `CommandError` (`not_waiting`) when no such call is waiting.
   */
  answerToolCall(
    toolCallId: string,
    result: ToolResult,
    options: AgentAddress & { isError?: boolean } = {},
  ): void {
    this.send({
      type: "ANSWER_TOOL",
      toolCallId,
      result,
      ...(options.isError === undefined ? {} : { isError: options.isError }),
      ...addressOf(options),
    });
  }

  /**
   * Raises (or lowers) the limits of a run that waits at one of its budget's limits (the root's, or the
   * sub-agent's at `agentPath`): the run goes on with them, checking the held call again.
   *
   * Contract: throws `BudgetError` `invalid_budget` naming a negative or non-numeric limit, or
   * `CommandError` `not_waiting` when that run does not wait at a budget limit; nothing is sent then.
   */
  raiseBudget(limits: BudgetLimits, options: AgentAddress = {}): void {
    this.send({ type: "RAISE_BUDGET", limits, ...addressOf(options) });
  }

  /**
   * Lets the call a budget limit holds go ahead once (the run at `agentPath`); the next call past a
   * limit waits again.
   *
   * Contract: throws `CommandError` (`not_waiting`) when that run does not wait at a budget limit.
   */
  continuePastBudget(options: AgentAddress = {}): void {
    this.send({ type: "CONTINUE_ONCE", ...addressOf(options) });
  }

  #send(event: Parameters<AgentActor["send"]>[0]): void {
    this.#sendTo(this.actor, event);
  }

  #sendTo(agent: AnyActorRef, event: Parameters<AgentActor["send"]>[0]): void {
    this.#pendingResume?.();
    if (this.#recordsInto) {
      const entry = commandEntryOf(agent, event as AgentCommand);
      if (entry) this.#recordsInto.add(entry);
    }
    agent.send(event);
    this.#publishState();
  }

  #beginRun(): Run {
    let finish!: (result: RunResult) => void;
    const finished = new Promise<RunResult>((resolve) => {
      finish = resolve;
    });
    const run = { finished, finish };
    if (this.#controller.signal.aborted) this.#controller = new AbortController();
    this.#run = run;
    return run;
  }

  async #settle(run: Run, result: RunResult): Promise<void> {
    while (this.#listenerWork.length > 0) {
      const work = this.#listenerWork;
      this.#listenerWork = [];
      await Promise.all(work);
    }
    if (this.#run === run) this.#run = undefined;
    this.#progress.pendingToolCalls = new Set();
    this.#publishState();
    run.finish(result);
  }

  /** Snapshots are built only when someone watches `state$`. */
  #publishState(): void {
    if (this.#stateChanges.observed) this.#stateChanges.next();
  }

  #dispatch(event: AgentEvent): void {
    // A descendant's event (`agentPath`) goes to the listeners; the run and its progress are this agent's.
    const own = event.agentPath === undefined;
    if (own && event.type === "agent_start" && !this.#run) this.#beginRun();
    if (own && reduceLiveProgress(this.#progress, event)) this.#publishState();
    if (this.#events.observed) this.#events.next(event);
    const signal = this.#controller.signal;
    for (const listener of this.#listeners) {
      try {
        const result = listener(event, signal);
        if (isPromiseLike(result))
          this.#listenerWork.push(
            Promise.resolve(result).then(undefined, (error) => this.#report(error, event)),
          );
      } catch (error) {
        this.#report(error, event);
      }
    }
    if (own && event.type === "agent_end" && this.#run)
      void this.#settle(this.#run, runResultOf(event, this.#context.errorMessage));
  }

  #report(error: unknown, event: AgentEvent): void {
    try {
      (this.#options.onListenerError ?? defaultListenerError)(error, event);
    } catch {
      // The error reporter itself failed; there is nobody left to tell.
    }
  }
}

/**
 * The Agent facade over `actor`, an agent machine actor that another actor runs (a harness machine's
 * child `agent`) and that runs `implementations`: the same methods, events and state as an Agent of its
 * own, for that actor. `plan`: what a restored actor resumes once this returns (see `Agent.restore`).
 *
 * Contract: synchronous; starts `actor` unless it is already started; never throws.
 *
 * ```ts
 * import type { AgentActor } from "agentchart/machines";
 * declare const implementations: Parameters<typeof agentOver>[1]; // what the agent machine was provided with
 * declare const actor: AgentActor; // the harness machine's child "agent" (its logic's `self`)
 * const agent = agentOver(actor, implementations, { streamFn });
 * ```
 */
export function agentOver<TOutput = unknown>(
  actor: AgentActor,
  implementations: AgentImplementations,
  options: AgentOptions<TOutput> | AgentRestoreOptions<TOutput>,
  plan?: RestorePlan,
): Agent<TOutput> {
  const keyed = { ...options } as AgentOptions<TOutput>;
  const recording = implementations.recording?.recording as Recording<PersistedAgent> | undefined;
  prebuilt.set(keyed, { actor, implementations, plan, recording, records: false });
  return new Agent<TOutput>(keyed);
}

function resumeEvent({ interrupted, reenter, waiting }: RestorePlan) {
  return { type: "RESUME" as const, interrupted, reenter, waiting };
}

function defaultListenerError(error: unknown, event: AgentEvent): void {
  console.error(`agentchart: a listener threw while handling "${event.type}":`, error);
}

/**
 * The input of the agent machine for an agent built from `options` (running `implementations`): its
 * id, model, tools, system prompt (a starting handoff's), thinking level, transcript and settings.
 *
 * Contract: synchronous; throws for an `activeAgent` no handoff leads to, or a model `resolveModel` refuses.
 */
export function agentInputOf(
  options: AgentOptions,
  implementations: AgentImplementations,
): AgentMachineInput {
  const model = resolveModel(options.model);
  return {
    ...(options.agentId ? { agentId: options.agentId } : {}),
    model,
    toolNames: (options.tools ?? []).map((tool) => tool.name),
    systemPrompt: options.systemPrompt ?? "",
    ...(options.activeAgent ? startingAs(implementations, options.activeAgent, model) : {}),
    thinkingLevel: options.thinkingLevel ?? "off",
    messages: options.messages ?? [],
    settings: settingsOf(options),
    streamOptions: persistedStreamOptionsOf(options),
    ...(options.budget ? { budget: options.budget } : {}),
  };
}

function settingsOf(options: AgentOptions) {
  return {
    toolExecution: options.toolExecution ?? "parallel",
    steering: (options.steering ?? "afterToolBatch") as SteeringPolicy,
    steeringMode: options.steeringMode ?? "one-at-a-time",
    followUpMode: options.followUpMode ?? "one-at-a-time",
    maxTurns: options.maxTurns,
  };
}

function persistedStreamOptionsOf(options: AgentOptions): PersistableStreamOptions {
  return definedFields(Object.fromEntries(PERSISTABLE_STREAM_OPTION_KEYS.map((key) => [key, options[key]])));
}

/** The start of an agent that begins as the handoff target `name` (see `AgentOptions.activeAgent`). */
function startingAs(implementations: AgentImplementations, name: string, model: Model) {
  const handoff = implementations.handoffs.get(name);
  if (!handoff)
    throw new Error(
      `Unknown active agent "${name}": no handoff of this agent's tools leads to it (known: ${[...implementations.handoffs.keys()].join(", ") || "none"})`,
    );
  return {
    activeAgent: name,
    systemPrompt: handoff.systemPrompt,
    toolNames: handoff.tools.map((tool) => tool.name),
    model: handoff.model ?? model,
  };
}

function answersCall(command: AddressedCommand): command is CallAnswer {
  return command.type === "APPROVE_TOOL" || command.type === "DENY_TOOL" || command.type === "ANSWER_TOOL";
}

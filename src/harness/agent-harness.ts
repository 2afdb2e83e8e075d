import { BehaviorSubject, distinctUntilChanged, filter, firstValueFrom, type Observable } from "rxjs";
import { type Actor, createActor, type InspectionEvent, type Observer } from "xstate";
import type { z } from "zod";
import { Agent, type AgentOptions, type AgentPathOption, type PromptOptions } from "../agent/agent.js";
import type { PersistedAgent } from "../agent/agent-snapshot.js";
import type { WaitingToolCall } from "../agent/agent-state.js";
import { activeHandoffOf } from "../loop/handoff-steps.js";
import { toMessage } from "../loop/messages.js";
import { runResultOf } from "../loop/run-result.js";
import type { QueueMode } from "../machines/agent/agent.context.js";
import { addTools } from "../machines/agent/agent.implementations.js";
import {
  type HarnessMachineEvent,
  type HarnessOperation,
  type HarnessPhase,
  harnessMachine,
  type NavigateTreeOptions,
} from "../machines/harness/harness.machine.js";
import type { Session } from "../storage/session.js";
import type { SessionRepo } from "../storage/session-repo.js";
import type { AgentEvent } from "../types/events.js";
import type { Guardrails } from "../types/guardrail.js";
import type { AgentMessage, AssistantMessage, ImageContent } from "../types/messages.js";
import { type Model, type ModelInput, THINKING_LEVELS, type ThinkingLevel } from "../types/model.js";
import type { RunResult } from "../types/output.js";
import type { StreamFn } from "../types/stream.js";
import type { AgentTool, ToolResult } from "../types/tool.js";
import type { ToolSource } from "../types/tool-source.js";
import { ContextBudget } from "./compaction/context-budget.js";
import {
  type CompactionPort,
  type CompactionSettings,
  DEFAULT_COMPACTION_SETTINGS,
  defaultCompactionPort,
} from "./compaction/port.js";
import { AgentHarnessError, wrapError } from "./errors.js";
import { HarnessEvents } from "./events.js";
import {
  HARNESS_HANDLER_NAMES,
  type HarnessEvent,
  type HarnessHandler,
  type HarnessOwnEvent,
  type HarnessStreamOptions,
  type HookName,
  HookRegistry,
  type ObservedEventName,
} from "./hooks.js";
import { LoopHooks } from "./loop-hooks.js";
import { convertHarnessMessagesToLlm } from "./messages-convert.js";
import { harnessActors } from "./operation-actors.js";
import type { HarnessResources } from "./resources/resource-set.js";
import type { SystemPromptOption } from "./resources/system-prompt.js";
import { expandPromptTemplate } from "./resources/template-args.js";
import { planResume, resumedCallStates, type ToolCallDecision } from "./resume-run.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry-policy.js";
import { SessionRecorder } from "./session-recorder.js";
import { HarnessSettings, type ToolsChange } from "./settings.js";
import {
  HARNESS_SNAPSHOT_FORMAT,
  HARNESS_SNAPSHOT_VERSION,
  type PersistedHarness,
  parsePersistedHarness,
  resumeStepOf,
} from "./snapshot.js";
import { SubAgentSessions } from "./sub-agent-sessions.js";
import { harnessAgentTool, type SubAgentWiring } from "./sub-agent-tools.js";
import type { HarnessCompactResult, NavigateTreeResult } from "./summaries.js";
import { journaledTool, journalToolCall } from "./tool-journal.js";
import { followToolSources, initialTools } from "./tool-sources.js";

/** Options of `new AgentHarness(...)`. */
export interface AgentHarnessOptions {
  /** The open session: the transcript comes from `session.buildContext()`; everything is appended to it. */
  session: Session;
  /**
   * The repo `session` is stored in: each sub-agent's transcript (the child agent of an agent tool call)
   * is then recorded as its own session there, linked to its parent (see docs/harness.md, "Sub-agents in
   * a harness"). Without it sub-agents run as usual, unrecorded.
   */
  sessionRepo?: SessionRepo;
  /** A Model, a record with at least `id`, or a catalogue id such as "gpt-4.1-mini" (see `resolveModel`). */
  model: ModelInput;
  streamFn: StreamFn;
  /** Default: the session's last thinking level. */
  thinkingLevel?: ThinkingLevel;
  /** Names must be unique. */
  tools?: AgentTool[];
  /**
   * Tools that come and go, listed after `tools` — e.g. `await connectMcpServers(config)` from
   * `agentchart/mcp`. Their changes are applied when the harness is idle, never during a run.
   */
  toolSources?: ToolSource[];
  /** Default: the session's last active tools that still exist, else all tools. Unique, known names. */
  activeToolNames?: string[];
  resources?: Partial<HarnessResources>;
  /** Default "You are a helpful assistant." (+ the visible skills); see `resolveSystemPrompt`. */
  systemPrompt?: SystemPromptOption;
  /** Passed to every tool's `execute` as `context`; a function is called at the start of every run. */
  toolContext?: unknown;
  /** Timeout, retries, headers, metadata…; patched per request by `before_provider_request`. */
  streamOptions?: HarnessStreamOptions;
  /** Turn-level retry of transient provider errors (default 3 retries, 2 s doubling, 30 s cap). */
  retry?: Partial<RetryPolicy>;
  compaction?: Partial<CompactionSettings>;
  /** The compaction/branch-summary implementation (default: `defaultCompactionPort`). */
  compactionPort?: CompactionPort;
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  toolExecution?: "parallel" | "sequential";
  /** Receives errors thrown by observed-event handlers and listeners (default `console.error`). */
  onHandlerError?: (error: unknown, eventType: string) => void;
  /** XState inspection observer of the phase machine and of the Agent's loop actors (and their tool-call children). */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** Input and output guardrails of every run (see docs/output-and-guardrails.md). */
  guardrails?: Guardrails;
}

/** Options of `harness.prompt(...)`. */
export interface HarnessPromptOptions<TOutput = unknown> {
  images?: ImageContent[];
  /** The run's typed output (a zod schema): `prompt()` then resolves with a {@link HarnessRunResult}. */
  output?: z.ZodType<TOutput>;
  /** Replies that fail validation which the run asks the model to repair (default 2). */
  maxOutputRepairs?: number;
}

/** What `harness.prompt(text, { output })` resolves with: the run's result and its last assistant message. */
export interface HarnessRunResult<TOutput> extends RunResult<TOutput> {
  reply: AssistantMessage;
}

/**
 * An Agent bound to a Session, with resources, hooks, retries and compaction. Its phases
 * (`idle | turn | compaction | branchSummary | retry`) are the states of `harnessMachine` (`actor`,
 * `phase$`). Every message, model, thinking-level and active-tools change is appended to the session in
 * order, so reopening the session rebuilds the same context. One operation (`prompt`, `skill`,
 * `promptFromTemplate`, `compact`, `navigateTree`) runs at a time; the others reject with `busy`.
 *
 * ```ts
 * const session = await new MemorySessionRepo().create();
 * const harness = new AgentHarness({ session, model, streamFn: scriptedModel([{ text: "Hi!" }]) });
 * const reply = await harness.prompt("Hello");
 * ```
 */
export class AgentHarness {
  readonly session: Session;
  readonly #agent: Agent;
  readonly #hooks: HookRegistry;
  readonly #settings: HarnessSettings;
  readonly #recorder: SessionRecorder;
  readonly #events: HarnessEvents;
  /** The phase machine's actor: its context holds the operation in progress. */
  readonly #actor: Actor<typeof harnessMachine>;
  readonly #phase = new BehaviorSubject<HarnessPhase>("idle");
  /** The promise of the operation in progress, settled when the machine is back in idle. */
  #caller: { resolve: (value: unknown) => void; reject: (error: unknown) => void } | undefined;
  /** The typed output of the prompt in progress (read by its turns, retries included). */
  #output: Omit<PromptOptions, "images"> | undefined;
  /** The last run's `agent_end`. */
  #lastEnd: Extract<AgentEvent, { type: "agent_end" }> | undefined;
  #nextTurn: AgentMessage[] = [];
  #lastQueues: unknown;
  readonly #subAgents: SubAgentSessions;
  readonly #onError: (error: unknown, eventType: string) => void;
  readonly #wiring: SubAgentWiring;
  /** The run of an agent restored mid-run (a sub-agent was running), until the resumed turn takes it. */
  #restoredRun: Promise<void> | undefined;

  constructor(options: AgentHarnessOptions) {
    const session = options.session;
    this.session = session;
    const onError = options.onHandlerError ?? defaultHandlerError;
    this.#onError = onError;
    const hooks = new HookRegistry(onError);
    this.#hooks = hooks;
    this.#events = new HarnessEvents(hooks);
    this.#recorder = new SessionRecorder(session);
    const subAgents = new SubAgentSessions(session, options.sessionRepo, onError);
    this.#subAgents = subAgents;
    const context = session.buildContext();
    this.#settings = new HarnessSettings(
      { ...options, tools: initialTools(options.tools, options.toolSources) },
      context.activeToolNames,
    );
    const loopHooks = new LoopHooks({
      session,
      hooks,
      settings: this.#settings,
      streamFn: options.streamFn,
      ...(subAgents.recording ? { linkSubAgentResult: (ctx) => subAgents.linkResult(ctx, "root") } : {}),
    });
    this.#wiring = {
      streamFn: loopHooks.summaryStreamFn,
      link: subAgents.recording ? (ctx) => subAgents.linkResult(ctx, "descendant") : undefined,
      toolHooks: () => ({
        beforeToolCall: loopHooks.beforeToolCall,
        afterToolCall: loopHooks.toolResultHook,
      }),
    };
    const restoredAgent = restoring;
    restoring = undefined;
    const agentOptions: AgentOptions = {
      // The journal's idempotency keys are `<session id>:<tool call id>`: the agent's are the same.
      agentId: session.id,
      streamFn: loopHooks.streamFn,
      // The Agent reads these when it needs them: the hook callbacks exist only while their hook has handlers.
      get transformContext() {
        return loopHooks.transformContext;
      },
      get beforeToolCall() {
        return loopHooks.beforeToolCall;
      },
      get afterToolCall() {
        return loopHooks.afterToolCall;
      },
      get toolContext() {
        return loopHooks.toolContext;
      },
      model: options.model,
      thinkingLevel: options.thinkingLevel ?? context.thinkingLevel,
      tools: this.#agentTools(),
      messages: context.messages,
      // A session whose branch ended with a handoff goes on as that agent (if a handoff still leads to it).
      ...activeAgentOf(context.messages, this.#agentTools()),
      convertToLlm: convertHarnessMessagesToLlm,
      ...(options.steeringMode ? { steeringMode: options.steeringMode } : {}),
      ...(options.followUpMode ? { followUpMode: options.followUpMode } : {}),
      ...(options.toolExecution ? { toolExecution: options.toolExecution } : {}),
      ...(options.inspect ? { inspect: options.inspect } : {}),
      ...(options.guardrails ? { guardrails: options.guardrails } : {}),
      onListenerError: (error, event) => onError(error, event.type),
    };
    if (restoredAgent) {
      // The persisted agent knows its transcript, model and settings; the options give the rest.
      const { messages: _messages, model: _model, thinkingLevel: _thinkingLevel, ...rest } = agentOptions;
      this.#agent = Agent.restore(restoredAgent, rest);
    } else this.#agent = new Agent(agentOptions);
    this.#lastQueues = this.#agent.queued;
    this.#agent.subscribe((event) => this.#onAgentEvent(event));
    const port = options.compactionPort ?? defaultCompactionPort;
    const compaction = { ...DEFAULT_COMPACTION_SETTINGS, ...options.compaction };
    const retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const budget = new ContextBudget(port, compaction);
    const actors = harnessActors({
      session,
      agent: this.#agent,
      hooks,
      settings: this.#settings,
      recorder: this.#recorder,
      loopHooks,
      events: this.#events,
      budget,
      port,
      compaction,
      retry,
      summaryStreamFn: loopHooks.summaryStreamFn,
      output: () => this.#output,
      subAgents,
      takeRestoredRun: () => {
        const run = this.#restoredRun;
        this.#restoredRun = undefined;
        return run;
      },
    });
    this.#actor = createActor(
      harnessMachine.provide({
        actors,
        actions: { settle: (_, { operation }) => this.#settle(operation) },
      }),
      {
        input: { maxRetries: Math.max(0, retry.maxRetries), overflowRecovery: budget.enabled },
        ...(options.inspect ? { inspect: options.inspect } : {}),
      },
    );
    this.#actor.subscribe((snapshot) => this.#phase.next(snapshot.value));
    this.#actor.start();
    followToolSources(this, options.toolSources ?? [], onError);
  }

  /** The phase machine's actor (`harnessMachine`); its context holds the operation in progress. */
  get actor(): Actor<typeof harnessMachine> {
    return this.#actor;
  }
  /** The current phase, now and on every change. */
  get phase$(): Observable<HarnessPhase> {
    return this.#phase.pipe(distinctUntilChanged());
  }
  get phase(): HarnessPhase {
    return this.#phase.value;
  }
  /** AgentEvents of every run plus the harness's own events. */
  get events$(): Observable<HarnessEvent> {
    return this.#events.events$;
  }
  /** The Agent that runs the turns: read its `state`, drive it through the harness. */
  get agent(): Agent {
    return this.#agent;
  }
  get messages(): readonly AgentMessage[] {
    return this.#agent.state.messages;
  }
  get model(): Model {
    return this.#agent.state.model;
  }
  get thinkingLevel(): ThinkingLevel {
    return this.#agent.state.thinkingLevel;
  }
  get tools(): AgentTool[] {
    return this.#settings.tools();
  }
  get activeToolNames(): string[] {
    return this.#settings.activeToolNames();
  }
  get resources(): HarnessResources {
    return this.#settings.resources();
  }
  get streamOptions(): HarnessStreamOptions {
    return { ...this.#settings.streamOptions() };
  }
  /** Messages queued by `nextTurn`. */
  get nextTurnMessages(): AgentMessage[] {
    return [...this.#nextTurn];
  }

  /**
   * Registers a handler for a hook or an observed event; returns the function that removes it.
   * Handlers run in registration order; see docs/harness.md for the combination rule.
   */
  on<K extends HookName | ObservedEventName>(name: K, handler: HarnessHandler<K>): () => void {
    if (!HARNESS_HANDLER_NAMES.has(name)) {
      throw new AgentHarnessError("invalid_argument", `Unknown hook or event: ${name}`);
    }
    return this.#hooks.on(name, handler as never);
  }

  /**
   * Runs a prompt; resolves with the run's last assistant message — also when it failed
   * (`stopReason: "error"`, e.g. after a hook threw) or was aborted. Rejects with `busy` unless idle,
   * with `session` when the session could not persist the run.
   */
  prompt<TOutput>(
    text: string,
    options: HarnessPromptOptions<TOutput> & { output: z.ZodType<TOutput> },
  ): Promise<HarnessRunResult<TOutput>>;
  prompt(text: string, options?: HarnessPromptOptions): Promise<AssistantMessage>;
  prompt(text: string, options: HarnessPromptOptions = {}): Promise<unknown> {
    const { output, maxOutputRepairs } = options;
    if (!output) return this.#startPrompt(text, options.images ?? []);
    const started = this.#startPrompt(text, options.images ?? [], {
      output,
      ...(maxOutputRepairs !== undefined ? { maxOutputRepairs } : {}),
    });
    return started.then((reply) => {
      const end = this.#lastEnd;
      return {
        ...(end
          ? runResultOf(end, this.#agent.state.errorMessage)
          : { output: undefined, messages: [], stopReason: reply.stopReason }),
        reply,
      };
    });
  }

  /** Runs a prompt made of the skill's content (and `extra` instructions after it). */
  skill(name: string, extra?: string): Promise<AssistantMessage> {
    const skill = this.#settings.resources().skills.find((candidate) => candidate.name === name);
    if (!skill) return Promise.reject(new AgentHarnessError("invalid_argument", `Unknown skill: ${name}`));
    const block = `<skill name="${skill.name}" location="${skill.filePath}">\nReferences are relative to ${skill.baseDir}.\n\n${skill.content}\n</skill>`;
    return this.#startPrompt(extra ? `${block}\n\n${extra}` : block, []);
  }

  /** Runs a prompt template expanded with `args` (`$1`, `$@`, `${@:N}`…). */
  promptFromTemplate(name: string, args: string[] = []): Promise<AssistantMessage> {
    const template = this.#settings.resources().promptTemplates.find((candidate) => candidate.name === name);
    if (!template) {
      return Promise.reject(new AgentHarnessError("invalid_argument", `Unknown prompt template: ${name}`));
    }
    return this.#startPrompt(expandPromptTemplate(template, args), []);
  }

  /**
   * The harness's phase, the operation in progress and its queues as JSON-safe data (the session holds
   * the rest). Give it to `AgentHarness.restore` with the session reopened, in this or another process.
   */
  persist(): PersistedHarness {
    const operation = this.#actor.getSnapshot().context.operation;
    const compacting = this.phase === "compaction" || operation?.kind === "compact";
    const instructions = operation?.kind === "compact" ? operation.instructions : undefined;
    const subAgents = this.phase === "turn" ? this.#subAgents.running() : [];
    return {
      format: HARNESS_SNAPSHOT_FORMAT,
      version: HARNESS_SNAPSHOT_VERSION,
      sessionId: this.session.id,
      phase: this.phase,
      ...(compacting ? { compaction: instructions === undefined ? {} : { instructions } } : {}),
      queues: {
        steering: [...this.#agent.queued.steering],
        followUp: [...this.#agent.queued.followUp],
        nextTurn: [...this.#nextTurn],
      },
      ...(subAgents.length > 0 ? { agent: this.#agent.persist(), subAgents } : {}),
    };
  }

  /**
   * Rebuilds a harness from `harness.persist()` over `options.session` (the same session, reopened).
   * A harness persisted mid-compaction compacts again; one persisted mid-turn finishes the run from the
   * session (`resume()`, given `restoreOptions.approvals` for the calls that were waiting for
   * approval); one persisted while a sub-agent ran goes on from its persisted agent at every depth (a
   * waiting descendant waits in `awaitingApproval` again, its session reopened from
   * `options.sessionRepo`); `resumed` is that step's promise (undefined for an idle harness). Throws
   * `AgentHarnessError("invalid_state")` for a snapshot that is not one, or of another session, and
   * `AgentRestoreError` when its persisted agent cannot be restored (e.g. a tool the options lack).
   */
  static restore(
    snapshot: string | PersistedHarness,
    options: AgentHarnessOptions,
    restoreOptions: { approvals?: Readonly<Record<string, ToolCallDecision>> } = {},
  ): { harness: AgentHarness; resumed: Promise<unknown> | undefined } {
    const persisted = parsePersistedHarness(snapshot);
    if (persisted.sessionId !== options.session.id)
      throw new AgentHarnessError(
        "invalid_state",
        `The persisted harness belongs to session "${persisted.sessionId}", not "${options.session.id}"`,
      );
    restoring = persisted.agent;
    let harness: AgentHarness;
    try {
      harness = new AgentHarness(options);
    } finally {
      restoring = undefined;
    }
    harness.#nextTurn = [...persisted.queues.nextTurn];
    for (const message of persisted.queues.steering) harness.#agent.steer(message);
    for (const message of persisted.queues.followUp) harness.#agent.followUp(message);
    const step = resumeStepOf(persisted);
    let resumed: Promise<unknown> | undefined;
    if (step === "compact") resumed = harness.compact(persisted.compaction?.instructions);
    else if (step === "resume") resumed = harness.resume(restoreOptions);
    else if (step === "restoreAgent") resumed = harness.#resumeRestoredRun(persisted, restoreOptions);
    return { harness, resumed };
  }

  /**
   * Finishes a run that was interrupted (the process died, or the harness was persisted mid-run) from
   * the session alone, through the agent machine: the last assistant message's calls without a result
   * are answered exactly as a live run answers them — preflight, the `tool_call`/`tool_result` hooks,
   * approval, `tool_execution_*` and result message events on `events$`, parallel or sequential,
   * abort — then the model is asked to go on. A call that never started (one that was waiting for
   * approval included) goes through its whole preflight: an approval tool waits in `awaitingApproval`
   * and emits `tool_approval_request` again, it never runs unasked. A started one (journaled right
   * before its tool ran) runs again with the same `ctx.idempotencyKey` if its tool's `replay` is
   * `"safe"`, else gets the error result "interrupted, not re-run"; an agent tool's call is journaled
   * when its child starts, and the same rule applies (`"safe"`: the child starts over from its task, in
   * a new session). `approvals` is a shortcut: the
   * calls it names are approved or denied as soon as they ask. Resolves with the run's last assistant
   * message, or `undefined` when the branch ends with a final reply. `signal` aborts the run.
   * Rejects with `busy` unless idle, with a `SessionError` if results cannot be stored.
   */
  async resume(
    options: { signal?: AbortSignal; approvals?: Readonly<Record<string, ToolCallDecision>> } = {},
  ): Promise<AssistantMessage | undefined> {
    if (this.#busy()) throw busyError();
    const plan = planResume(this.session);
    if (!plan.needsModel) return undefined;
    this.#agent.setMessages(this.session.buildContext().messages);
    if (options.approvals) this.#decideWhenAsked(options.approvals);
    const calls =
      plan.assistant && plan.pending.length > 0
        ? { message: plan.assistant, states: resumedCallStates(plan.pending, this.#settings.activeTools()) }
        : undefined;
    const run = this.#begin<AssistantMessage>({
      type: "RESUME",
      operation: { kind: "resume", ...(calls ? { calls } : {}) },
    });
    if (options.signal) {
      if (options.signal.aborted) void this.abort();
      else options.signal.addEventListener("abort", () => void this.abort(), { once: true });
    }
    return run;
  }

  /** The restored agent's run (it resumed itself) as the harness's `resume` operation. */
  #resumeRestoredRun(
    persisted: PersistedHarness,
    options: { approvals?: Readonly<Record<string, ToolCallDecision>> },
  ): Promise<unknown> {
    this.#subAgents.reopen(persisted.subAgents ?? []);
    if (options.approvals) this.#decideWhenAsked(options.approvals);
    this.#restoredRun = this.#agent.waitForIdle();
    return this.#begin({ type: "RESUME", operation: { kind: "resume" } });
  }

  /**
   * Waits until what the harness records of its sub-agents is written, then closes the sub-agent sessions
   * still open (of sub-agents still running: call it when leaving a harness persisted mid-run). The
   * harness's own `session` is the caller's to close.
   *
   * Contract: async; never rejects (failures went to `onHandlerError`).
   */
  async close(): Promise<void> {
    await this.#subAgents.close();
  }

  /** Calls waiting for `approveToolCall` / `denyToolCall` (also right after a restore). */
  get awaitingApproval(): readonly WaitingToolCall[] {
    return this.#agent.state.awaitingApproval;
  }

  /**
   * Lets a call waiting for approval run — a sub-agent's with its `agentPath` (as `awaitingApproval`
   * lists it). Throws when no such call is waiting.
   */
  approveToolCall(toolCallId: string, options: AgentPathOption = {}): void {
    this.#agent.approveToolCall(toolCallId, options);
  }

  /** Refuses a call waiting for approval: it gets the error result "Tool call denied: <reason>". */
  denyToolCall(toolCallId: string, reason?: string, options: AgentPathOption = {}): void {
    this.#agent.denyToolCall(toolCallId, reason, options);
  }

  /** Gives the result of a client tool's call (see `defineClientTool`). Throws when no such call is waiting. */
  answerToolCall(toolCallId: string, result: ToolResult, options: { isError?: boolean } = {}): void {
    this.#agent.answerToolCall(toolCallId, result, options);
  }

  /** Applies `decisions` to the calls they name when those ask for approval (in this run). */
  #decideWhenAsked(decisions: Readonly<Record<string, ToolCallDecision>>): void {
    const off = this.#agent.subscribe((event) => {
      if (event.type === "agent_end" && !event.agentPath) off();
      if (event.type !== "tool_approval_request" || event.agentPath) return;
      const decision = decisions[event.toolCallId];
      if (!decision) return;
      if (decision.approved) this.#agent.approveToolCall(event.toolCallId);
      else this.#agent.denyToolCall(event.toolCallId, decision.reason);
    });
  }

  /** Queues a message delivered after the current turn. `invalid_state` while idle. */
  steer(text: string | AgentMessage, options: { images?: ImageContent[] } = {}): void {
    if (this.phase === "idle") throw new AgentHarnessError("invalid_state", "Cannot steer while idle");
    this.#agent.steer(toMessage(text, options.images));
    this.#checkQueues();
  }

  /** Queues a message delivered when the agent would stop. `invalid_state` while idle. */
  followUp(text: string | AgentMessage, options: { images?: ImageContent[] } = {}): void {
    if (this.phase === "idle") throw new AgentHarnessError("invalid_state", "Cannot follow up while idle");
    this.#agent.followUp(toMessage(text, options.images));
    this.#checkQueues();
  }

  /** Queues a message sent (and persisted) before the next prompt's user message; survives `abort()`. */
  nextTurn(text: string | AgentMessage, options: { images?: ImageContent[] } = {}): void {
    this.#nextTurn.push(toMessage(text, options.images));
    this.#emitQueues();
  }

  /**
   * Compacts the current branch now; resolves `{compacted: false, reason: "nothing_to_compact"}` when
   * nothing is old enough to summarise (`compaction` error: unavailable, cancelled, failed…).
   */
  compact(customInstructions?: string): Promise<HarnessCompactResult> {
    const instructions = customInstructions === undefined ? {} : { instructions: customInstructions };
    return this.#begin({ type: "COMPACT", operation: { kind: "compact", ...instructions } });
  }

  /** Moves the session to another entry, optionally summarising the branch being left. */
  navigateTree(targetId: string, options: NavigateTreeOptions = {}): Promise<NavigateTreeResult> {
    if (this.#busy()) return Promise.reject(busyError());
    if (!this.session.getEntry(targetId)) {
      return Promise.reject(new AgentHarnessError("invalid_argument", `Unknown entry: ${targetId}`));
    }
    if (targetId === this.session.leafId) return Promise.resolve({ cancelled: false });
    return this.#begin({ type: "NAVIGATE", operation: { kind: "navigate", targetId, options } });
  }

  /** Switches the model from the next request on; persisted as `model_change`. */
  setModel(model: Model): void {
    const previousModel = this.model;
    this.#recorder.assertWritable();
    this.#agent.setModel(model);
    this.#recorder.writeSetting(() => this.session.appendModelChange(model.provider, model.id));
    this.#emit({ type: "model_update", model, previousModel });
  }

  /** Switches the thinking level from the next request on; persisted. */
  setThinkingLevel(level: ThinkingLevel): void {
    if (!THINKING_LEVELS.includes(level)) {
      throw new AgentHarnessError("invalid_argument", `Unknown thinking level: ${String(level)}`);
    }
    const previousLevel = this.thinkingLevel;
    this.#recorder.assertWritable();
    this.#agent.setThinkingLevel(level);
    this.#recorder.writeSetting(() => this.session.appendThinkingLevelChange(level));
    this.#emit({ type: "thinking_level_update", level, previousLevel });
  }

  /** Replaces the tools and the active set (default: all). `invalid_argument` on bad names. */
  setTools(tools: AgentTool[], activeToolNames?: string[]): void {
    this.#recorder.assertWritable();
    this.#applyTools(this.#settings.replaceTools(tools, activeToolNames));
  }

  /** Chooses which tools the model sees. `invalid_argument` for unknown or duplicate names. */
  setActiveTools(names: string[]): void {
    this.#recorder.assertWritable();
    this.#applyTools(this.#settings.replaceActive(names));
  }

  /** Replaces skills and/or prompt templates; the system prompt picks them up at the next turn. */
  setResources(resources: Partial<HarnessResources>): void {
    const previousResources = this.#settings.resources();
    this.#settings.setResources(resources);
    this.#emit({ type: "resources_update", resources: this.#settings.resources(), previousResources });
  }

  /** Replaces the stream options used from the next request on. */
  setStreamOptions(streamOptions: HarnessStreamOptions): void {
    this.#settings.setStreamOptions(streamOptions);
  }

  /**
   * Aborts what runs (turn, retry wait, compaction, navigation), clears the steering and follow-up
   * queues (not `nextTurn`), and resolves once idle with what it cleared. Emits `abort`.
   */
  async abort(): Promise<{ clearedSteer: AgentMessage[]; clearedFollowUp: AgentMessage[] }> {
    const clearedSteer = [...this.#agent.queued.steering];
    const clearedFollowUp = [...this.#agent.queued.followUp];
    this.#agent.clearQueues();
    this.#actor.send({ type: "ABORT" });
    this.#checkQueues();
    await this.waitForIdle();
    // Messages a queue poll had taken when the abort landed come back to the queues: clear them too.
    clearedSteer.push(...this.#agent.queued.steering);
    clearedFollowUp.push(...this.#agent.queued.followUp);
    this.#agent.clearQueues();
    this.#checkQueues();
    this.#emit({ type: "abort", clearedSteer, clearedFollowUp });
    return { clearedSteer, clearedFollowUp };
  }

  /** Resolves when the harness is idle and the last operation has settled. */
  async waitForIdle(): Promise<void> {
    await firstValueFrom(this.#phase.pipe(filter((phase) => phase === "idle")));
  }

  #startPrompt(
    text: string,
    images: ImageContent[],
    output?: Omit<PromptOptions, "images">,
  ): Promise<AssistantMessage> {
    if (this.#busy()) return Promise.reject(busyError());
    this.#output = output;
    this.#lastEnd = undefined;
    const messages = [...this.#nextTurn, toMessage(text, images)];
    const drained = this.#nextTurn.length > 0;
    this.#nextTurn = [];
    if (drained) this.#emitQueues();
    return this.#begin({ type: "PROMPT", operation: { kind: "prompt", messages, prompt: text, images } });
  }

  #busy(): boolean {
    return !this.#actor.getSnapshot().matches("idle");
  }

  /** Starts an operation on the machine; resolves with its result. `busy` unless idle. */
  #begin<T>(event: Extract<HarnessMachineEvent, { operation: unknown }>): Promise<T> {
    if (this.#busy()) return Promise.reject(busyError());
    return new Promise<T>((resolve, reject) => {
      this.#caller = { resolve: resolve as (value: unknown) => void, reject };
      this.#actor.send(event);
    });
  }

  /** The machine is back in idle (its `settle` action): the caller's promise gets the operation's outcome. */
  #settle(operation: HarnessOperation | undefined): void {
    const caller = this.#caller;
    this.#caller = undefined;
    this.#output = undefined;
    if (!operation || !caller) return;
    if (operation.error !== undefined)
      caller.reject(wrapError("invalid_state", "The operation failed", operation.error));
    else if (operation.result !== undefined) caller.resolve(operation.result);
    else if (operation.aborted && operation.kind === "compact")
      caller.reject(new AgentHarnessError("compaction", "Compaction was aborted"));
    else if (operation.aborted && operation.kind === "navigate") caller.resolve({ cancelled: true });
    else caller.reject(new AgentHarnessError("invalid_state", "The run ended without an assistant message"));
  }

  /** The active tools as the agent runs them: each call is journaled right before its tool runs (see resume()). */
  #agentTools(): AgentTool[] {
    return this.#settings
      .activeTools()
      .map((tool) => harnessAgentTool(journaledTool(this.session, tool), this.#wiring));
  }

  /**
   * An event of the agent's tree: the agent's own (no `agentPath`) are its run — recorded in the session,
   * its `agent_end` the run's end; a sub-agent's go to that sub-agent's session. All reach `events$`.
   */
  #onAgentEvent(event: AgentEvent): void {
    if (event.agentPath?.length) {
      if (event.type === "agent_start" && event.agentPath.length === 1)
        this.#journalAgentCall(event.agentPath[0]!);
      this.#subAgents.record(event);
    } else {
      if (event.type === "agent_end") {
        this.#lastEnd = event;
        this.#subAgents.endAll();
      }
      this.#recorder.record(event);
    }
    this.#checkQueues();
    this.#events.forward(event);
  }

  /**
   * A child of the agent starts: its agent tool call is journaled like a tool about to run, so a resume
   * from the session alone follows the agent tool's `replay` (see resume()).
   */
  #journalAgentCall(toolCallId: string): void {
    const reply = this.#agent.state.messages.findLast(
      (message): message is AssistantMessage =>
        message.role === "assistant" &&
        message.content.some((block) => block.type === "toolCall" && block.id === toolCallId),
    );
    const call = reply?.content.find((block) => block.type === "toolCall" && block.id === toolCallId);
    if (call?.type !== "toolCall") return;
    const tool = this.#settings.tools().find((candidate) => candidate.name === call.name);
    journalToolCall(this.session, call, tool).catch((error: unknown) => this.#onError(error, "agent_start"));
  }

  #applyTools(change: ToolsChange): void {
    this.#agent.setTools(this.#agentTools());
    const names = change.activeToolNames;
    this.#recorder.writeSetting(() => this.session.appendActiveToolsChange(names));
    this.#emit({ type: "tools_update", ...change });
  }

  #checkQueues(): void {
    if (this.#agent.queued !== this.#lastQueues) this.#emitQueues();
  }

  #emitQueues(): void {
    const queued = this.#agent.queued;
    this.#lastQueues = queued;
    this.#emit({
      type: "queue_update",
      steer: [...queued.steering],
      followUp: [...queued.followUp],
      nextTurn: [...this.#nextTurn],
    });
  }

  #emit(event: HarnessOwnEvent): void {
    this.#events.emit(event);
  }
}

/** Set by `AgentHarness.restore` for the constructor it calls: the agent to restore instead of building one. */
let restoring: PersistedAgent | undefined;

function busyError(): AgentHarnessError {
  return new AgentHarnessError("busy", "AgentHarness is busy");
}

function defaultHandlerError(error: unknown, eventType: string): void {
  console.error(`agentchart: a harness handler threw while handling "${eventType}":`, error);
}

/** The `activeAgent` option for a transcript: its last handoff's agent, when the tools still lead to it. */
function activeAgentOf(
  messages: readonly AgentMessage[],
  tools: readonly AgentTool[],
): { activeAgent?: string } {
  const handoff = activeHandoffOf(messages);
  if (!handoff) return {};
  const reachable = { tools: new Map(), handoffs: new Map() };
  addTools(reachable, tools);
  return reachable.handoffs.has(handoff.agent) ? { activeAgent: handoff.agent } : {};
}

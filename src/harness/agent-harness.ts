import { BehaviorSubject, distinctUntilChanged, filter, firstValueFrom, type Observable } from "rxjs";
import { type Actor, createActor } from "xstate";
import type { z } from "zod";
import type { Agent, PromptOptions } from "../agent/agent.js";
import { agentRecordingOf } from "../agent/agent-recording.js";
import type { PersistedAgent } from "../agent/agent-snapshot.js";
import type { AgentState, WaitingToolCall } from "../agent/agent-state.js";
import {
  type AddressedCommand,
  type AgentAddress,
  type CallAddress,
  callKey,
} from "../commands/addressed-command.js";
import { CommandError } from "../commands/command-error.js";
import { toMessage } from "../loop/messages.js";
import { runResultOf } from "../loop/run-result.js";
import type { SessionDraft } from "../machines/harness/harness.events.js";
import type {
  HarnessMachineEvent,
  HarnessOperation,
  HarnessPhase,
  NavigateTreeOptions,
} from "../machines/harness/harness.machine.js";
import type { Recording } from "../replay/recording.js";
import type { Session } from "../storage/session.js";
import type { BudgetLimits } from "../types/budget.js";
import type { AgentMessage, AssistantMessage, ImageContent } from "../types/messages.js";
import { type Model, THINKING_LEVELS, type ThinkingLevel } from "../types/model.js";
import type { RunResult } from "../types/output.js";
import type { AgentTool, ToolResult } from "../types/tool.js";
import { chainInspect } from "../xstate/chain-inspect.js";
import type { AgentSurface } from "./agent-surface.js";
import { composeHarness, type HarnessMachine } from "./create-harness-machine.js";
import { AgentHarnessError, wrapError } from "./errors.js";
import type { AgentHarnessOptions } from "./harness-options.js";
import {
  HARNESS_HANDLER_NAMES,
  type HarnessEvent,
  type HarnessHandler,
  type HarnessOwnEvent,
  type HarnessStreamOptions,
  type HookName,
  type ObservedEventName,
} from "./hooks.js";
import type { HarnessParts } from "./operation-actors.js";
import type { HarnessResources } from "./resources/resource-set.js";
import { expandPromptTemplate } from "./resources/template-args.js";
import { planResume, resumedCallStates, type ToolCallDecision } from "./resume-run.js";
import type { ToolsChange } from "./settings.js";
import {
  HARNESS_SNAPSHOT_FORMAT,
  HARNESS_SNAPSHOT_VERSION,
  type PersistedHarness,
  parsePersistedHarness,
  resumeStepOf,
} from "./snapshot.js";
import type { HarnessCompactResult, NavigateTreeResult } from "./summaries.js";
import { followToolSources } from "./tool-sources.js";

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
 * import { MemorySessionRepo } from "agentchart";
 * import { scriptedModel } from "agentchart/testing";
 * const session = await new MemorySessionRepo().create();
 * const harness = new AgentHarness({ session, model, streamFn: scriptedModel([{ text: "Hi!" }]) });
 * const reply = await harness.prompt("Hello");
 * ```
 */
export class AgentHarness implements AgentSurface {
  readonly session: Session;
  /** The parts the machine's actors work on (settings, hooks, recorder, the agent facade…). */
  readonly #parts: HarnessParts;
  readonly #agent: Agent;
  /** The harness machine's actor: its context holds the operation in progress, its child is the agent. */
  readonly #actor: Actor<HarnessMachine>;
  readonly #phase = new BehaviorSubject<HarnessPhase>("idle");
  /** The promise of the operation in progress, settled when the machine is back in idle. */
  #caller: { resolve: (value: unknown) => void; reject: (error: unknown) => void } | undefined;
  #nextTurn: AgentMessage[] = [];
  #lastQueues: unknown;

  /** What `record` fills: the agent's model calls, tool calls, commands and steps (see docs/replay.md). */
  readonly recording: Recording<PersistedAgent> | undefined;

  constructor(options: AgentHarnessOptions) {
    this.session = options.session;
    const restored = (options as RestoringOptions)[RESTORING];
    // The harness's actor system is inspected for the agent's commands and steps (see docs/replay.md).
    const recording = agentRecordingOf(options.record, "harness");
    this.recording = recording;
    const inspect = recording ? chainInspect(recording.inspect, options.inspect) : options.inspect;
    const { machine, parts } = composeHarness(recording ? { ...options, record: recording } : options, {
      ...(restored?.agent ? { restoring: restored.agent } : {}),
      settle: (operation) => this.#settle(operation),
    });
    this.#parts = parts;
    this.#actor = createActor(machine, inspect ? { inspect } : {});
    this.#actor.subscribe((snapshot) => this.#phase.next(snapshot.value));
    this.#actor.start();
    this.#agent = parts.agent;
    this.#lastQueues = this.#agent.queued;
    this.#agent.subscribe((event) => {
      this.#checkQueues();
      parts.events.forward(event);
    });
    followToolSources(this, options.toolSources ?? [], parts.onError);
    if (restored) {
      this.#nextTurn = [...restored.queues.nextTurn];
      // A persisted agent holds its queues and its running sub-agents; else the queues go to the agent
      // built from the session.
      if (restored.agent) parts.subAgents.reopen(restored.subAgents ?? []);
      else {
        for (const message of restored.queues.steering) this.#agent.steer(message);
        for (const message of restored.queues.followUp) this.#agent.followUp(message);
      }
    }
  }

  /**
   * The harness machine's actor (`createHarnessMachine`): its context holds the operation in progress,
   * its child `agent` is the agent (`harness.agent.actor`).
   */
  get actor(): Actor<HarnessMachine> {
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
    return this.#parts.events.events$;
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
    return this.#parts.settings.tools();
  }
  get activeToolNames(): string[] {
    return this.#parts.settings.activeToolNames();
  }
  get resources(): HarnessResources {
    return this.#parts.settings.resources();
  }
  get streamOptions(): HarnessStreamOptions {
    return { ...this.#parts.settings.streamOptions() };
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
    return this.#parts.hooks.on(name, handler as never);
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
  prompt(text: string, options?: HarnessPromptOptions): Promise<HarnessRunResult<unknown>>;
  prompt(text: string, options: HarnessPromptOptions = {}): Promise<HarnessRunResult<unknown>> {
    const { output, maxOutputRepairs } = options;
    return this.#startPrompt(
      [toMessage(text, options.images ?? [])],
      output ? { output, ...(maxOutputRepairs !== undefined ? { maxOutputRepairs } : {}) } : undefined,
    );
  }

  /** Runs a prompt made of the skill's content (and `extra` instructions after it). */
  skill(name: string, extra?: string): Promise<HarnessRunResult<unknown>> {
    const skill = this.#parts.settings.resources().skills.find((candidate) => candidate.name === name);
    if (!skill) return Promise.reject(new AgentHarnessError("invalid_argument", `Unknown skill: ${name}`));
    const block = `<skill name="${skill.name}" location="${skill.filePath}">\nReferences are relative to ${skill.baseDir}.\n\n${skill.content}\n</skill>`;
    return this.#startPrompt([toMessage(extra ? `${block}\n\n${extra}` : block)]);
  }

  /** Runs a prompt template expanded with `args` (`$1`, `$@`, `${@:N}`…). */
  promptFromTemplate(name: string, args: string[] = []): Promise<HarnessRunResult<unknown>> {
    const template = this.#parts.settings
      .resources()
      .promptTemplates.find((candidate) => candidate.name === name);
    if (!template) {
      return Promise.reject(new AgentHarnessError("invalid_argument", `Unknown prompt template: ${name}`));
    }
    return this.#startPrompt([toMessage(expandPromptTemplate(template, args))]);
  }

  /**
   * The harness's phase, the operation in progress and its queues as JSON-safe data (the session holds
   * the rest). Give it to `AgentHarness.restore` with the session reopened, in this or another process.
   */
  persist(): PersistedHarness {
    const operation = this.#actor.getSnapshot().context.operation;
    const compacting = this.phase === "compaction" || operation?.kind === "compact";
    const instructions = operation?.kind === "compact" ? operation.instructions : undefined;
    const subAgents = this.phase === "turn" ? this.#parts.subAgents.running() : [];
    // Where a child stood, which call waits for approval, or at which budget limit the run waits: only
    // the agent itself can say.
    const { awaitingApproval, budget } = this.#agent.state;
    const keepsAgent =
      this.phase === "turn" &&
      (subAgents.length > 0 || awaitingApproval.length > 0 || budget?.paused !== undefined);
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
      ...(keepsAgent ? { agent: this.#agent.persist(), subAgents } : {}),
    };
  }

  /**
   * Rebuilds a harness from `harness.persist()` over `options.session` (the same session, reopened).
   * A harness persisted mid-compaction compacts again; one persisted mid-turn finishes the run from the
   * session (`resume()`, given `restoreOptions.approvals` — by `callKey`, at any depth — for the calls
   * that were waiting for approval); one persisted while a sub-agent ran goes on from its persisted agent at every depth (a
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
    const harness = new AgentHarness({ ...options, [RESTORING]: persisted } as RestoringOptions);
    const step = resumeStepOf(persisted);
    const resumed =
      step === "compact"
        ? harness.compact(persisted.compaction?.instructions)
        : step === "none"
          ? undefined
          : harness.resume(restoreOptions);
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
   * a new session). `approvals` is a shortcut: the calls it names (by `callKey`: a root call's id, a
   * sub-agent's `"path/id"`) are approved or denied as soon as they ask. A harness restored with its
   * persisted agent mid-run (`AgentHarness.restore`) resumes that agent's own run instead of the
   * session's. Resolves with the run's last assistant message, or `undefined` when the branch ends with a final reply. `signal` aborts the run.
   * Rejects with `busy` unless idle, with a `SessionError` if results cannot be stored.
   */
  async resume(
    options: { signal?: AbortSignal; approvals?: Readonly<Record<string, ToolCallDecision>> } = {},
  ): Promise<AssistantMessage | undefined> {
    if (this.#busy()) throw busyError();
    let run: Promise<AssistantMessage | undefined>;
    if (this.#agent.isRunning) {
      // The restored agent resumed its own run: the harness follows it as its `resume` operation.
      if (options.approvals) this.#decideWhenAsked(options.approvals);
      run = this.#begin({ type: "RESUME", operation: { kind: "resume" } });
    } else {
      const plan = planResume(this.session);
      if (!plan.needsModel) return undefined;
      this.#agent.setMessages(this.session.buildContext().messages);
      if (options.approvals) this.#decideWhenAsked(options.approvals);
      const calls =
        plan.assistant && plan.pending.length > 0
          ? {
              message: plan.assistant,
              states: resumedCallStates(plan.pending, this.#parts.settings.activeTools()),
            }
          : undefined;
      run = this.#begin<AssistantMessage>({
        type: "RESUME",
        operation: { kind: "resume", ...(calls ? { calls } : {}) },
      });
    }
    if (options.signal) {
      if (options.signal.aborted) void this.abort();
      else options.signal.addEventListener("abort", () => void this.abort(), { once: true });
    }
    return run;
  }

  /**
   * Waits until what the harness records of its sub-agents is written, then closes the sub-agent sessions
   * still open (of sub-agents still running: call it when leaving a harness persisted mid-run). The
   * harness's own `session` is the caller's to close.
   *
   * Contract: async; never rejects (failures went to `onHandlerError`).
   */
  async close(): Promise<void> {
    await this.#parts.subAgents.close();
  }

  /** Calls waiting for `approveToolCall` / `denyToolCall` (also right after a restore). */
  get awaitingApproval(): readonly WaitingToolCall[] {
    return this.#agent.state.awaitingApproval;
  }

  /**
   * Sends a command of the agent machine's vocabulary, as `Agent.send` does — the one way every room
   * drives a harness; the methods below are shorthands. At the root, `PROMPT` runs a prompt (its
   * messages after the `nextTurn` ones; the result arrives on `events$`), `STEER`/`FOLLOW_UP` queue
   * (persisted with the harness), `ABORT` aborts what runs, `SET_MODEL`/`SET_THINKING_LEVEL`/`SET_TOOLS`
   * change the settings and record them in the session, `CLEAR_QUEUES` clears the queues; the rest
   * goes to the agent (approvals, client results, budget commands, and every command to a sub-agent).
   *
   * Contract: synchronous; throws `CommandError` as `Agent.send` does, `busy` for `PROMPT` unless idle,
   * and `refused` for a command the harness does not take (`CONTINUE`, `RESET`, `SET_MESSAGES`,
   * `SET_SYSTEM_PROMPT`, `SET_STREAM_OPTIONS`, `RESUME`, `RESUME_CALLS`, `FAIL` at the root: it builds
   * the transcript, system prompt and stream options itself and resumes with `resume()`). A `PROMPT`
   * whose session cannot be written reports to `onHandlerError`.
   *
   * ```ts
   * harness.send({ type: "DENY_TOOL", toolCallId: "call_1", reason: "not on Fridays" });
   * ```
   */
  send(command: AddressedCommand): void {
    if (command.agentPath?.length) {
      this.#agent.send(command);
      return;
    }
    switch (command.type) {
      case "PROMPT":
        if (this.#busy())
          throw new CommandError("busy", "PROMPT: the harness is running; it takes a prompt only when idle", {
            command: command.type,
          });
        this.#startPrompt(command.messages).catch((error: unknown) => this.#parts.onError(error, "prompt"));
        break;
      case "STEER":
        this.steer(command.message);
        break;
      case "FOLLOW_UP":
        this.followUp(command.message);
        break;
      case "ABORT":
        void this.abort();
        break;
      case "SET_MODEL":
        this.setModel(command.model);
        break;
      case "SET_THINKING_LEVEL":
        this.setThinkingLevel(command.thinkingLevel);
        break;
      case "SET_TOOLS":
        this.setActiveTools(command.toolNames);
        break;
      case "CLEAR_QUEUES":
        this.#agent.send(command);
        this.#checkQueues();
        break;
      case "APPROVE_TOOL":
      case "DENY_TOOL":
      case "ANSWER_TOOL":
      case "RAISE_BUDGET":
      case "CONTINUE_ONCE":
        this.#agent.send(command);
        break;
      default:
        throw new CommandError(
          "refused",
          `${command.type}: an AgentHarness builds its transcript, system prompt and stream options itself (see docs/harness.md)`,
          { command: command.type },
        );
    }
  }

  /** The agent's state: its transcript, waiting calls at every depth, budget… (`harness.agent.state`). */
  get state(): AgentState {
    return this.#agent.state;
  }

  /** True unless idle: a turn, a retry wait, a compaction or a navigation runs. */
  get isRunning(): boolean {
    return this.#busy();
  }

  /**
   * Lets a call waiting for approval run — a sub-agent's with its `agentPath` (as `awaitingApproval`
   * lists it): `send({ type: "APPROVE_TOOL", … })`. Throws `CommandError` (`not_waiting`) when no such
   * call is waiting.
   */
  approveToolCall(toolCallId: string, options: AgentAddress = {}): void {
    this.#agent.approveToolCall(toolCallId, options);
  }

  /** Refuses a call waiting for approval: it gets the error result "Tool call denied: <reason>". */
  denyToolCall(toolCallId: string, reason?: string, options: AgentAddress = {}): void {
    this.#agent.denyToolCall(toolCallId, reason, options);
  }

  /** Gives the result of a client tool's call (see `defineClientTool`). Throws when no such call is waiting. */
  answerToolCall(
    toolCallId: string,
    result: ToolResult,
    options: AgentAddress & { isError?: boolean } = {},
  ): void {
    this.#agent.answerToolCall(toolCallId, result, options);
  }

  /**
   * Raises (or lowers) the limits of the turn's run waiting at a budget limit (a sub-agent's with its
   * `agentPath`); see `Agent.raiseBudget`. Throws `CommandError` (`not_waiting`) when no run waits there.
   */
  raiseBudget(limits: BudgetLimits, options: AgentAddress = {}): void {
    this.#agent.raiseBudget(limits, options);
  }

  /** Lets the call a budget limit holds go ahead once; see `Agent.continuePastBudget`. */
  continuePastBudget(options: AgentAddress = {}): void {
    this.#agent.continuePastBudget(options);
  }

  /**
   * Applies `decisions` (by `callKey`: a root call's id, a sub-agent's "path/id") to the calls they
   * name, at any depth, when those ask for approval in this run (a restored run's waiting calls ask
   * again when it resumes). Each decision is sent once, as `APPROVE_TOOL` / `DENY_TOOL`.
   */
  #decideWhenAsked(decisions: Readonly<Record<string, ToolCallDecision>>): void {
    const pending = new Map(Object.entries(decisions));
    const decide = (call: CallAddress) => {
      const key = callKey(call);
      const decision = pending.get(key);
      if (!decision) return;
      pending.delete(key);
      const address = call.agentPath?.length ? { agentPath: call.agentPath } : {};
      if (decision.approved) this.send({ type: "APPROVE_TOOL", toolCallId: call.toolCallId, ...address });
      else
        this.send({
          type: "DENY_TOOL",
          toolCallId: call.toolCallId,
          ...(decision.reason === undefined ? {} : { reason: decision.reason }),
          ...address,
        });
    };
    const off = this.#agent.subscribe((event) => {
      if (event.type === "agent_end" && !event.agentPath) off();
      else if (event.type === "tool_approval_request") decide(event);
      if (pending.size === 0) off();
    });
  }

  /**
   * Queues a message delivered after the current turn (while idle: after the next prompt's first turn),
   * as `Agent.steer` does; the queue is persisted with the harness.
   */
  steer(text: string | AgentMessage, options: { images?: ImageContent[] } = {}): void {
    this.#agent.steer(toMessage(text, options.images));
    this.#checkQueues();
  }

  /** Queues a message delivered when the agent would stop, as `Agent.followUp` does (also while idle). */
  followUp(text: string | AgentMessage, options: { images?: ImageContent[] } = {}): void {
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
    this.#parts.recorder.assertWritable();
    this.#agent.setModel(model);
    this.#append({ type: "model_change", provider: model.provider, modelId: model.id });
    this.#emit({ type: "model_update", model, previousModel });
  }

  /** Switches the thinking level from the next request on; persisted. */
  setThinkingLevel(level: ThinkingLevel): void {
    if (!THINKING_LEVELS.includes(level)) {
      throw new AgentHarnessError("invalid_argument", `Unknown thinking level: ${String(level)}`);
    }
    const previousLevel = this.thinkingLevel;
    this.#parts.recorder.assertWritable();
    this.#agent.setThinkingLevel(level);
    this.#append({ type: "thinking_level_change", thinkingLevel: level });
    this.#emit({ type: "thinking_level_update", level, previousLevel });
  }

  /** Replaces the tools and the active set (default: all). `invalid_argument` on bad names. */
  setTools(tools: AgentTool[], activeToolNames?: string[]): void {
    this.#parts.recorder.assertWritable();
    this.#applyTools(this.#parts.settings.replaceTools(tools, activeToolNames));
  }

  /** Chooses which tools the model sees. `invalid_argument` for unknown or duplicate names. */
  setActiveTools(names: string[]): void {
    this.#parts.recorder.assertWritable();
    this.#applyTools(this.#parts.settings.replaceActive(names));
  }

  /** Replaces skills and/or prompt templates; the system prompt picks them up at the next turn. */
  setResources(resources: Partial<HarnessResources>): void {
    const previousResources = this.#parts.settings.resources();
    this.#parts.settings.setResources(resources);
    this.#emit({ type: "resources_update", resources: this.#parts.settings.resources(), previousResources });
  }

  /** Replaces the stream options used from the next request on. */
  setStreamOptions(streamOptions: HarnessStreamOptions): void {
    this.#parts.settings.setStreamOptions(streamOptions);
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

  /** Runs `prompt` (after the `nextTurn` messages); resolves with the run's result and its last reply. */
  #startPrompt(
    prompt: AgentMessage[],
    output?: Omit<PromptOptions, "images">,
  ): Promise<HarnessRunResult<unknown>> {
    if (this.#busy()) return Promise.reject(busyError());
    this.#parts.output = output;
    this.#parts.lastEnd = undefined;
    const messages = [...this.#nextTurn, ...prompt];
    const drained = this.#nextTurn.length > 0;
    this.#nextTurn = [];
    if (drained) this.#emitQueues();
    return this.#begin<AssistantMessage>({ type: "PROMPT", messages }).then((reply) => {
      const end = this.#parts.lastEnd;
      return {
        ...(end
          ? runResultOf(end, this.#agent.state.errorMessage)
          : { output: undefined, messages: [], stopReason: reply.stopReason }),
        reply,
      };
    });
  }

  #busy(): boolean {
    return !this.#actor.getSnapshot().matches("idle");
  }

  /** Starts an operation on the machine; resolves with its result. `busy` unless idle. */
  #begin<T>(
    event: Extract<HarnessMachineEvent, { type: "PROMPT" | "RESUME" | "COMPACT" | "NAVIGATE" }>,
  ): Promise<T> {
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
    this.#parts.output = undefined;
    if (!operation || !caller) return;
    if (operation.error !== undefined)
      caller.reject(wrapError("invalid_state", "The operation failed", operation.error));
    else if (operation.result !== undefined) caller.resolve(operation.result);
    else if (operation.aborted && operation.kind === "compact")
      caller.reject(new AgentHarnessError("compaction", "Compaction was aborted"));
    else if (operation.aborted && operation.kind === "navigate") caller.resolve({ cancelled: true });
    else caller.reject(new AgentHarnessError("invalid_state", "The run ended without an assistant message"));
  }

  #applyTools(change: ToolsChange): void {
    this.#agent.setTools(this.#parts.agentTools());
    const names = change.activeToolNames;
    this.#append({ type: "active_tools_change", activeToolNames: names });
    this.#emit({ type: "tools_update", ...change });
  }

  /** Appends a setting change through the session actor (after the run's messages while one is active). */
  #append(entry: SessionDraft): void {
    this.#actor.send({ type: "session.append", entry });
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
    this.#parts.events.emit(event);
  }
}

/** The key under which `AgentHarness.restore` hands its constructor the agent to restore instead of building one. */
const RESTORING = Symbol("restoring");
type RestoringOptions = AgentHarnessOptions & { [RESTORING]?: PersistedHarness };

function busyError(): AgentHarnessError {
  return new AgentHarnessError("busy", "AgentHarness is busy");
}

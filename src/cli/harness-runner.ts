import { BehaviorSubject, filter, type Observable, switchMap } from "rxjs";
import type { InspectionEvent, Observer } from "xstate";
import type { AgentPathOption } from "../agent/agent.js";
import { AgentHarness } from "../harness/agent-harness.js";
import type { CompactionSettings } from "../harness/compaction/port.js";
import { isAgentHarnessError } from "../harness/errors.js";
import type { HarnessEvent } from "../harness/hooks.js";
import type { HarnessResources } from "../harness/resources/resource-set.js";
import type { RetryPolicy } from "../harness/retry-policy.js";
import type { HarnessPhase } from "../machines/harness/harness.machine.js";
import { MemorySessionRepo } from "../storage/memory-session-repo.js";
import type { Session } from "../storage/session.js";
import type { SessionRepo } from "../storage/session-repo.js";
import type { AgentBudget, BudgetLimits } from "../types/budget.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { StreamFn } from "../types/stream.js";
import type { AgentTool } from "../types/tool.js";
import type { ToolSource } from "../types/tool-source.js";
import type { AgentRunner, CompactOutcome, NavigateOutcome } from "./runner.js";

/** Options of {@link createHarnessRunner}. */
export interface HarnessRunnerOptions {
  model: Model;
  streamFn: StreamFn;
  /** Default: the session's last recorded level. */
  thinkingLevel?: ThinkingLevel;
  /** The base system prompt; the harness appends the skills the model may use. */
  systemPrompt?: string;
  tools?: AgentTool[];
  /** Tools that come and go (the MCP servers' tools), listed after `tools`. */
  toolSources?: ToolSource[];
  /** Passed to every tool's `execute` (the built-in tools need `{cwd}`). */
  toolContext?: unknown;
  resources?: Partial<HarnessResources>;
  compaction?: Partial<CompactionSettings>;
  retry?: Partial<RetryPolicy>;
  /**
   * The open session to persist to and continue from, with the repo it came from (needed by `fork`).
   * Omit both for a conversation that is not stored (an in-memory session stands in).
   */
  session?: Session;
  repo?: SessionRepo;
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** The budget of every turn's run (see docs/budgets.md). */
  budget?: AgentBudget;
  /** Errors thrown by event listeners (default `console.error`). */
  onHandlerError?: (error: unknown, eventType: string) => void;
  /** Records each harness's runs (`harness.recording`, kept in its session too; see docs/replay.md). */
  record?: boolean;
  /** Called with every harness the runner binds (e.g. to trace it); the returned function detaches. */
  attach?: (harness: AgentHarness) => () => void;
}

/**
 * An {@link AgentRunner} over `AgentHarness`: the harness persists every message and every model or
 * thinking-level change, retries transient provider errors, compacts (on `/compact`, when the
 * context grows past the window's reserve, and after a context overflow) and navigates the tree.
 * When the given model or thinking level differs from what the session last recorded, the change
 * is recorded at the start. `fork` binds a new harness to the forked session; `events$` and
 * `phase$` follow it.
 */
export async function createHarnessRunner(options: HarnessRunnerOptions): Promise<AgentRunner> {
  const stored = options.session !== undefined;
  const session = options.session ?? (await new MemorySessionRepo().create());
  const runner = new HarnessRunner(options, stored ? options.repo : undefined, stored);
  await runner.bind(session, options.model, options.thinkingLevel ?? session.buildContext().thinkingLevel);
  return runner;
}

class HarnessRunner implements AgentRunner {
  readonly #options: HarnessRunnerOptions;
  readonly #repo: SessionRepo | undefined;
  readonly #stored: boolean;
  readonly #harness = new BehaviorSubject<AgentHarness | undefined>(undefined);
  readonly events$: Observable<HarnessEvent>;
  readonly phase$: Observable<HarnessPhase>;
  #closed: Promise<void> | undefined;
  #detach: (() => void) | undefined;

  constructor(options: HarnessRunnerOptions, repo: SessionRepo | undefined, stored: boolean) {
    this.#options = options;
    this.#repo = repo;
    this.#stored = stored;
    const current = this.#harness.pipe(filter((harness): harness is AgentHarness => harness !== undefined));
    this.events$ = current.pipe(switchMap((harness) => harness.events$));
    this.phase$ = current.pipe(switchMap((harness) => harness.phase$));
  }

  /** Binds a new harness to `session` and records `model` and `thinkingLevel` if the session differs. */
  async bind(session: Session, model: Model, thinkingLevel: ThinkingLevel): Promise<void> {
    const options = this.#options;
    const harness = new AgentHarness({
      session,
      model,
      thinkingLevel,
      streamFn: options.streamFn,
      tools: options.tools ?? [],
      ...(options.toolSources ? { toolSources: options.toolSources } : {}),
      ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
      toolContext: options.toolContext,
      ...(options.resources ? { resources: options.resources } : {}),
      ...(options.compaction ? { compaction: options.compaction } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.budget ? { budget: options.budget } : {}),
      ...(options.inspect ? { inspect: options.inspect } : {}),
      ...(options.record ? { record: true } : {}),
      ...(options.onHandlerError ? { onHandlerError: options.onHandlerError } : {}),
    });
    const recorded = session.buildContext();
    if (recorded.model?.provider !== model.provider || recorded.model.modelId !== model.id) {
      harness.setModel(model);
    }
    if (recorded.thinkingLevel !== thinkingLevel) harness.setThinkingLevel(thinkingLevel);
    await session.flush();
    this.#detach?.();
    this.#detach = options.attach?.(harness);
    this.#harness.next(harness);
  }

  get #current(): AgentHarness {
    const harness = this.#harness.value;
    if (!harness) throw new Error("The runner has no harness");
    return harness;
  }

  get session(): Session | undefined {
    return this.#stored ? this.#current.session : undefined;
  }
  get model(): Model {
    return this.#current.model;
  }
  get thinkingLevel(): ThinkingLevel {
    return this.#current.thinkingLevel;
  }
  get messages(): readonly AgentMessage[] {
    return this.#current.messages;
  }
  get isRunning(): boolean {
    return this.#current.phase !== "idle";
  }

  prompt(text: string): Promise<AssistantMessage> {
    return this.#current.prompt(text).then(({ reply }) => reply);
  }

  skill(name: string, extra?: string): Promise<AssistantMessage> {
    return this.#current.skill(name, extra).then(({ reply }) => reply);
  }

  steer(text: string): void {
    this.#current.steer(text);
  }

  approveToolCall(toolCallId: string, options?: AgentPathOption): void {
    this.#current.approveToolCall(toolCallId, options);
  }

  denyToolCall(toolCallId: string, reason?: string, options?: AgentPathOption): void {
    this.#current.denyToolCall(toolCallId, reason, options);
  }

  raiseBudget(limits: BudgetLimits, options?: AgentPathOption): void {
    this.#current.raiseBudget(limits, options);
  }
  continuePastBudget(options?: AgentPathOption): void {
    this.#current.continuePastBudget(options);
  }
  abort(): void {
    if (this.isRunning) void this.#current.abort();
  }

  async compact(instructions?: string): Promise<CompactOutcome> {
    try {
      const result = await this.#current.compact(instructions);
      if (!result.compacted) return { compacted: false, reason: "Nothing to compact" };
      return { compacted: true, summary: result.summary, tokensBefore: result.tokensBefore };
    } catch (error) {
      if (isAgentHarnessError(error, "compaction")) return { compacted: false, reason: error.message };
      throw error;
    }
  }

  async navigate(entryId: string): Promise<NavigateOutcome> {
    const harness = this.#current;
    const result = await harness.navigateTree(entryId);
    return {
      leafId: harness.session.leafId,
      ...(result.editorText !== undefined ? { editorText: result.editorText } : {}),
    };
  }

  async setModel(model: Model): Promise<void> {
    this.#current.setModel(model);
    await this.#current.session.flush();
  }

  async setThinkingLevel(level: ThinkingLevel): Promise<void> {
    this.#current.setThinkingLevel(level);
    await this.#current.session.flush();
  }

  async fork(entryId?: string): Promise<Session> {
    const harness = this.#current;
    if (!this.#stored || !this.#repo) throw new Error("There is no session to fork (--no-session)");
    if (this.isRunning) throw new Error("Cannot fork while the agent is busy");
    const source = harness.session;
    await source.flush();
    const forked = await this.#repo.fork(source.id, entryId === undefined ? {} : { entryId });
    await source.close();
    await this.bind(forked, harness.model, harness.thinkingLevel);
    return forked;
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      const harness = this.#current;
      if (harness.phase !== "idle") await harness.abort();
      await harness.waitForIdle();
      this.#detach?.();
      await harness.session.close();
      this.#harness.complete();
    })();
    return this.#closed;
  }
}

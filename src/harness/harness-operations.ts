import { BehaviorSubject, filter, firstValueFrom } from "rxjs";
import { type Actor, createActor, fromPromise, type InspectionEvent, type Observer } from "xstate";
import type { Agent } from "../agent/agent.js";
import { isPromiseLike } from "../loop/maybe-async.js";
import type { ResumedCallState } from "../loop/run-steps.js";
import {
  type HarnessPhase,
  harnessMachine,
  type TurnInput,
  type TurnOutcome,
} from "../machines/harness.machine.js";
import type { Session } from "../storage/session.js";
import { errorText } from "../types/error-text.js";
import type { AgentMessage, AssistantMessage, ImageContent } from "../types/messages.js";
import type { StreamFn } from "../types/stream.js";
import { type CompactionPort, type CompactionSettings, tokensOf } from "./compaction-port.js";
import { AgentHarnessError, wrapError } from "./harness-errors.js";
import type {
  CompactionReason,
  HarnessOwnEvent,
  HarnessStreamOptions,
  HookRegistry,
} from "./harness-hooks.js";
import { runBeforeAgentStart } from "./harness-loop-hooks.js";
import type { HarnessSettings } from "./harness-settings.js";
import {
  compactSession,
  type NavigateTreeOptions,
  navigateSession,
  type SummaryHost,
} from "./harness-summaries.js";
import {
  abortableDelay,
  isContextOverflow,
  isRetryableError,
  type RetryPolicy,
  retryDelayMs,
} from "./retry-policy.js";
import type { SessionRecorder } from "./session-recorder.js";
import { FixedSystemPromptCache, resolveSystemPrompt, type SystemPromptOption } from "./system-prompt.js";

/** The harness state the operations work on (owned by `AgentHarness`). */
export interface HarnessCore {
  session: Session;
  agent: Agent;
  hooks: HookRegistry;
  settings: HarnessSettings;
  recorder: SessionRecorder;
  port: CompactionPort | undefined;
  compaction: CompactionSettings;
  retry: RetryPolicy;
  systemPrompt: SystemPromptOption | undefined;
  streamFn: StreamFn;
  streamOptions(): HarnessStreamOptions;
  setToolContext(context: unknown): void;
  /** Ends the running turn at once with an error outcome (see `LoopHookHost.failRun`). */
  failRun(error: AgentHarnessError): void;
  emit(event: HarnessOwnEvent): void;
  /** Inspection observer for the phase machine (the Agent's loop actors get the same one). */
  inspect: Observer<InspectionEvent> | ((event: InspectionEvent) => void) | undefined;
}

/** One public call in progress: `prompt` (and its retries/compactions), `compact` or `navigateTree`. */
export interface Operation {
  kind: "prompt" | "compact" | "navigate";
  messages: AgentMessage[];
  prompt: string;
  images: ImageContent[];
  instructions?: string;
  navigation?: { targetId: string; options: NavigateTreeOptions };
  /** A `resume()`: the recorded reply whose calls the run answers first, and how each goes on. */
  resume?: { message: AssistantMessage; calls: Record<string, ResumedCallState> };
  controller: AbortController;
  result?: unknown;
  error?: unknown;
}

const EVENT_OF = { prompt: "PROMPT", compact: "COMPACT", navigate: "NAVIGATE" } as const;

/**
 * Runs the harness's operations on the phase machine: provides its actors (`runTurn`, `backoff`,
 * `compact`, `navigate`), keeps the operation in progress, and settles the caller's promise when the
 * machine is back in `idle`.
 */
export class HarnessOperations {
  readonly actor: Actor<typeof harnessMachine>;
  readonly phase = new BehaviorSubject<HarnessPhase>("idle");
  readonly #core: HarnessCore;
  #operation: (Operation & { settle: () => void }) | undefined;
  /** The prompt resolved at run start (possibly replaced by `before_agent_start`), for its first request. */
  #firstRequestPrompt: string | undefined;
  readonly #fixedPrompt: FixedSystemPromptCache;
  /** The port's context estimate of the transcript, incremental when the port offers it. */
  #estimateContext: ((messages: readonly AgentMessage[]) => number | { tokens: number }) | undefined;

  constructor(core: HarnessCore) {
    this.#core = core;
    this.#fixedPrompt = new FixedSystemPromptCache(
      typeof core.systemPrompt === "function" ? undefined : core.systemPrompt,
    );
    this.actor = createActor(
      harnessMachine.provide({
        actors: {
          backoff: fromPromise(({ input, signal }) => this.#backoff(input.attempt, signal)),
          compact: fromPromise(({ input, signal }) => this.#compact(input.reason, signal)),
          navigate: fromPromise(({ signal }) => this.#navigate(signal)),
        },
        actions: {
          runTurn: (_, params) => this.#startTurn(params.mode),
          recordFailure: (_, params) => {
            if (this.#operation)
              this.#operation.error = wrapError("invalid_state", "The operation failed", params.error);
          },
        },
      }),
      {
        input: {
          maxRetries: Math.max(0, core.retry.maxRetries),
          overflowRecovery: core.port !== undefined && core.compaction.enabled,
        },
        ...(core.inspect ? { inspect: core.inspect } : {}),
      },
    );
    this.actor.subscribe((snapshot) => this.#onPhase(snapshot.value));
    this.actor.start();
  }

  get current(): Operation | undefined {
    return this.#operation;
  }

  busy(): boolean {
    return this.#operation !== undefined || this.phase.value !== "idle";
  }

  /** Starts an operation; resolves with its result. `busy` unless idle. */
  begin(kind: Operation["kind"], fields: Partial<Operation>): Promise<unknown> {
    if (this.busy()) return Promise.reject(new AgentHarnessError("busy", "AgentHarness is busy"));
    return new Promise((resolve, reject) => {
      const operation: Operation & { settle: () => void } = {
        kind,
        messages: [],
        prompt: "",
        images: [],
        ...fields,
        controller: new AbortController(),
        settle: () => {
          if (operation.error !== undefined) reject(operation.error);
          else if (operation.result !== undefined) resolve(operation.result);
          else reject(new AgentHarnessError("invalid_state", "The run ended without an assistant message"));
        },
      };
      this.#operation = operation;
      this.actor.send({ type: EVENT_OF[kind] });
    });
  }

  /** Aborts the operation in progress: a compaction rejects, a navigation is cancelled, a turn ends. */
  abort(): void {
    const operation = this.#operation;
    if (operation && operation.result === undefined && operation.error === undefined) {
      if (operation.kind === "compact") {
        operation.error = new AgentHarnessError("compaction", "Compaction was aborted");
      }
      if (operation.kind === "navigate") operation.result = { cancelled: true };
    }
    operation?.controller.abort();
    this.#core.agent.abort();
    this.actor.send({ type: "ABORT" });
  }

  async waitForIdle(): Promise<void> {
    await firstValueFrom(this.phase.pipe(filter((phase) => phase === "idle" && !this.#operation)));
  }

  /**
   * The system prompt of a request: the first request of a run uses the prompt resolved at run start
   * (or what `before_agent_start` made of it); every later request resolves it again, so a prompt
   * function sees the current model, thinking level, tools and resources. Synchronous for a string
   * prompt (formatted once per list of skills).
   */
  requestSystemPrompt(): string | Promise<string> {
    const first = this.#firstRequestPrompt;
    this.#firstRequestPrompt = undefined;
    return first ?? this.#resolveSystemPrompt();
  }

  #resolveSystemPrompt(): string | Promise<string> {
    const { agent, settings, session, systemPrompt } = this.#core;
    if (typeof systemPrompt !== "function") return this.#fixedPrompt.get(settings.skills());
    const state = agent.state;
    return resolveSystemPrompt(systemPrompt, {
      session,
      model: state.model,
      thinkingLevel: state.thinkingLevel,
      activeTools: settings.activeTools(),
      resources: settings.resources(),
    });
  }

  #onPhase(phase: HarnessPhase): void {
    const operation = this.#operation;
    if (phase === "idle" && operation) {
      this.#operation = undefined;
      operation.settle();
    }
    this.phase.next(phase);
  }

  /**
   * Starts the turn the machine just entered, one promise job later (so `phase` already says `turn`
   * when the Agent's first events arrive), and reports its end to the machine.
   */
  #startTurn(mode: TurnInput["mode"]): void {
    Promise.resolve(mode)
      .then((turnMode) => this.#runTurn(turnMode))
      .then(
        (outcome) => this.actor.send({ type: "TURN_DONE", outcome }),
        (error: unknown) => this.actor.send({ type: "TURN_FAILED", error }),
      );
  }

  async #runTurn(mode: "prompt" | "continue"): Promise<TurnOutcome> {
    const core = this.#core;
    const { agent } = core;
    const operation = this.#operation!;
    this.#firstRequestPrompt = undefined;
    // Each step awaits only what is really asynchronous (a tool context or prompt function, hooks).
    let systemPrompt = "";
    let failure: AgentHarnessError | undefined;
    try {
      const toolContext = core.settings.resolveToolContext();
      core.setToolContext(isPromiseLike(toolContext) ? await toolContext : toolContext);
      const resolved = this.#resolveSystemPrompt();
      systemPrompt = typeof resolved === "string" ? resolved : await resolved;
    } catch (error) {
      failure = wrapError("hook", "Preparing the run failed", error);
      systemPrompt = agent.state.systemPrompt;
    }
    let messages = operation.messages;
    if (mode === "prompt" && core.hooks.has("before_agent_start")) {
      try {
        const start = await runBeforeAgentStart(core.hooks, {
          prompt: operation.prompt,
          images: operation.images,
          systemPrompt,
          resources: core.settings.resources(),
          signal: operation.controller.signal,
        });
        messages = [...messages, ...start.messages];
        systemPrompt = start.systemPrompt;
      } catch (error) {
        failure = error as AgentHarnessError;
      }
    } else if (mode === "continue") {
      agent.setMessages(withoutTrailingFailures(agent.state.messages));
    }
    agent.setSystemPrompt(systemPrompt);
    this.#firstRequestPrompt = systemPrompt;
    core.recorder.running = true;
    const resume = mode === "prompt" ? operation.resume : undefined;
    const run = resume
      ? agent.resumeToolCalls(resume.message, resume.calls)
      : mode === "prompt"
        ? agent.prompt(messages)
        : agent.continue();
    if (failure) agent.fail(failure);
    if (operation.controller.signal.aborted) agent.abort();
    await run;
    await core.recorder.flush();
    const last = agent.state.messages.findLast((m): m is AssistantMessage => m.role === "assistant");
    if (last) operation.result = last;
    return this.#classify(last);
  }

  #classify(last: AssistantMessage | undefined): TurnOutcome {
    if (!last) return { verdict: "done", compactionDue: false };
    if (isRetryableError(last)) return { verdict: "retryable", compactionDue: false };
    if (isContextOverflow(last)) return { verdict: "overflow", compactionDue: false };
    const { port, compaction, agent } = this.#core;
    const settled = last.stopReason !== "error" && last.stopReason !== "aborted";
    if (!port || !compaction.enabled || !settled) return { verdict: "done", compactionDue: false };
    this.#estimateContext ??=
      port.createContextEstimator?.() ?? ((messages) => port.estimateContextTokens([...messages]));
    const tokens = tokensOf(this.#estimateContext(agent.state.messages));
    return {
      verdict: "done",
      compactionDue: port.shouldCompact(tokens, agent.state.model.contextWindow, compaction),
    };
  }

  async #backoff(attempt: number, signal: AbortSignal): Promise<void> {
    const { agent, retry } = this.#core;
    const last = agent.state.messages.findLast((m): m is AssistantMessage => m.role === "assistant");
    const delayMs = retryDelayMs(retry, attempt);
    this.#core.emit({
      type: "retry",
      attempt,
      maxRetries: retry.maxRetries,
      delayMs,
      errorMessage: last?.errorMessage ?? "",
    });
    await (retry.sleep ?? abortableDelay)(delayMs, signal);
  }

  /** Manual compactions fail the operation; automatic ones report `compaction_failed` and go on. */
  async #compact(reason: CompactionReason, signal: AbortSignal): Promise<{ compacted: boolean }> {
    const operation = this.#operation;
    try {
      const result = await compactSession(this.#summaryHost(), reason, operation?.instructions, signal);
      if (reason === "manual" && operation) operation.result = result;
      return { compacted: result.compacted };
    } catch (error) {
      if (reason === "manual") throw error;
      if (!signal.aborted) {
        const errorMessage = errorText(error);
        this.#core.emit({ type: "compaction_failed", reason, errorMessage });
      }
      return { compacted: false };
    }
  }

  async #navigate(signal: AbortSignal): Promise<void> {
    const operation = this.#operation!;
    const { targetId, options } = operation.navigation!;
    operation.result = await navigateSession(this.#summaryHost(), targetId, options, signal);
  }

  #summaryHost(): SummaryHost {
    const core = this.#core;
    return {
      session: core.session,
      port: core.port,
      hooks: core.hooks,
      settings: core.compaction,
      model: core.agent.state.model,
      // Summary requests carry the harness's stream options (keys, headers) but no provider hooks.
      streamFn: (model, context, options) =>
        core.streamFn(model, context, { ...core.streamOptions(), ...options }),
      reloadTranscript: () => core.agent.setMessages(core.session.buildContext().messages),
      emit: (event) => core.emit(event),
    };
  }
}

/** The transcript without the failed assistant replies at its end (a retry must not resend them). */
function withoutTrailingFailures(messages: readonly AgentMessage[]): AgentMessage[] {
  let end = messages.length;
  while (end > 0) {
    const last = messages[end - 1]!;
    if (last.role !== "assistant" || last.stopReason !== "error") break;
    end--;
  }
  return messages.slice(0, end);
}

import type { Subscription } from "rxjs";
import { CommandError } from "../commands/command-error.js";
import type { AgentSurface } from "../harness/agent-surface.js";
import type { HarnessEvent } from "../harness/hooks.js";
import { messageText, userMessage } from "../loop/messages.js";
import { AgUiError } from "./ag-ui-error.js";
import { AG_UI_PROTOCOL_VERSION } from "./ag-ui-events.js";
import { RunLog } from "./run-log.js";
import { runOutcomeEvent } from "./run-outcome.js";
import type { SharedAgentState } from "./shared-state.js";
import { AgUiTranslator } from "./to-ag-ui-events.js";
import { toAgUiMessages } from "./to-ag-ui-messages.js";
import { waitsForClientOnly } from "./waits-for-client-only.js";

/** Events after which the shared state may have changed. */
const STATE_EVENTS = new Set<HarnessEvent["type"]>([
  "tool_approval_request",
  "tool_client_request",
  "tool_execution_start",
  "tool_execution_end",
  "message_start",
  "queue_update",
  "budget_exceeded",
  "loop_detected",
  "agent_end",
]);

/** Events after which the agent's run may have come to wait for the client alone (not checked per delta). */
const PARKING_EVENTS = new Set<HarnessEvent["type"]>(["tool_client_request", "tool_execution_end"]);

/** What an {@link AgUiRun} runs. */
export interface AgUiRunInput {
  threadId: string;
  runId: string;
  /**
   * A new user message: the `MESSAGES_SNAPSHOT` shows it after the transcript and it is not streamed
   * again. Without one the run continues the agent's run (e.g. one waiting for the client).
   */
  prompt?: string;
  /**
   * Starts the agent's work once the run listens to it (prompting, or answering calls of client tools)
   * and returns the promise that settles when the agent's run ends.
   */
  start: () => Promise<unknown>;
  /**
   * The text a client sees in `RUN_ERROR` when the agent's work fails (default: the error's message).
   * The endpoint reports the error and shows a correlation id instead; an `AgUiError` or a
   * `CommandError` is shown as is.
   */
  failureText?: (error: unknown) => string;
}

/**
 * One AG-UI run: work given to an `AgentSurface` (an `Agent` or an `AgentHarness`: a prompt, or
 * answers that continue a run waiting for the client), its events translated into a {@link RunLog}
 * between `RUN_STARTED` and `RUN_FINISHED` (or `RUN_ERROR`), with a `MESSAGES_SNAPSHOT` of the transcript first and a
 * `STATE_SNAPSHOT` whenever the shared state changes — read from `surface.state`, which the machine
 * computes at every depth. The run is independent of whoever reads its log: it ends when the agent's
 * run ends (an `ABORT` command included), or — as AG-UI runs do for frontend tools — when the agent's
 * run can go on only once the client answers calls of client tools (`RUN_FINISHED` with
 * `outcome.pendingToolCallIds`; the agent's run waits, and the next AG-UI run continues it).
 *
 * ```ts
 * const run = new AgUiRun(agent, { threadId: "t1", runId: "r1", prompt: "Hello", start: () => agent.prompt("Hello") });
 * run.log.read(0, { frame: (text) => process.stdout.write(text), end: () => process.stdout.end() });
 * await run.finished;
 * ```
 */
export class AgUiRun {
  readonly threadId: string;
  readonly runId: string;
  readonly log = new RunLog();
  /** Settles (never rejects) once the last event is in the log. */
  readonly finished: Promise<void>;
  readonly #surface: AgentSurface;
  readonly #translator: AgUiTranslator;
  readonly #subscription: Subscription;
  #lastState = "";
  #ended = false;
  /** The run ended because the agent's run waits for the client. */
  #parked = false;
  #finish!: () => void;
  readonly #failureText: ((error: unknown) => string) | undefined;

  constructor(surface: AgentSurface, input: AgUiRunInput) {
    this.#surface = surface;
    this.threadId = input.threadId;
    this.runId = input.runId;
    this.#failureText = input.failureText;
    this.finished = new Promise((resolve) => {
      this.#finish = resolve;
    });
    const transcript = surface.state.messages;
    const shown = input.prompt === undefined ? transcript : [...transcript, userMessage(input.prompt)];
    const messages = toAgUiMessages(shown);
    const translator = new AgUiTranslator({
      firstMessageIndex: transcript.length,
      skipUserMessages: input.prompt === undefined ? 0 : 1,
      knownToolCallIds: messages.flatMap((message) =>
        message.role === "assistant" ? (message.toolCalls ?? []).map((call) => call.id) : [],
      ),
    });
    this.#translator = translator;
    this.log.append({
      type: "RUN_STARTED",
      threadId: this.threadId,
      runId: this.runId,
      protocolVersion: AG_UI_PROTOCOL_VERSION,
    });
    this.log.append({ type: "MESSAGES_SNAPSHOT", messages });
    this.#publishState();
    this.#subscription = surface.events$.subscribe((event) => {
      if (this.#ended) return;
      for (const translated of translator.translate(event)) this.log.append(translated);
      if (STATE_EVENTS.has(event.type)) this.#publishState();
      if (PARKING_EVENTS.has(event.type)) this.#endIfParked();
    });
    let work: Promise<unknown>;
    try {
      work = input.start();
    } catch (error) {
      work = Promise.reject(error);
    }
    work.then(
      () => this.#end(undefined),
      (error: unknown) => this.#end(error),
    );
    this.#endIfParked();
  }

  /** Whether the run has ended. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Appends a `STATE_SNAPSHOT` when the shared state changed since the last one: the endpoint calls it
   * after sending the agent a command (an approval, a budget answer, a queued message).
   *
   * Contract: synchronous; never throws.
   */
  publishState(): void {
    if (this.#ended && !this.#parked) return;
    this.#publishState();
  }

  #state(): SharedAgentState {
    const live = !this.#ended || this.#parked;
    const state = this.#surface.state;
    const queued = this.#surface.queued;
    const awaitingBudget = live ? [...state.awaitingBudget] : [];
    const awaitingApproval = live ? [...state.awaitingApproval] : [];
    const waiting = awaitingApproval.length > 0 || awaitingBudget.length > 0 || this.#parked;
    return {
      phase: !live ? "idle" : waiting ? "waiting" : "running",
      awaitingApproval,
      awaitingClient: live ? [...state.awaitingClient] : [],
      queued: {
        steering: queued.steering.map((m) => messageText(m)),
        followUp: queued.followUp.map((m) => messageText(m)),
      },
      ...(awaitingBudget.length > 0 ? { awaitingBudget } : {}),
      ...(live && state.budget ? { budget: { limits: state.budget.limits, usage: state.budget.usage } } : {}),
    };
  }

  /** Appends a STATE_SNAPSHOT when the shared state differs from the last one sent. */
  #publishState(): void {
    const state = this.#state();
    const text = JSON.stringify(state);
    if (text === this.#lastState) return;
    this.#lastState = text;
    this.log.append({ type: "STATE_SNAPSHOT", snapshot: state });
  }

  /** Ends the run, leaving the agent's run waiting, once that can go on only with the client's answers. */
  #endIfParked(): void {
    if (this.#ended || !waitsForClientOnly(this.#surface.state)) return;
    this.#parked = true;
    this.#end(undefined);
  }

  #end(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#subscription.unsubscribe();
    this.#publishState();
    // Sub-agents still open: a parked run's wait with it (the next run goes on with them); else the run was cut short.
    const subAgentsEnd = this.#parked
      ? ({ type: "suspended" } as const)
      : ({
          type: "error",
          code: "aborted",
          message: "The run ended before this sub-agent finished",
        } as const);
    for (const event of this.#translator.closeSubAgents(subAgentsEnd)) this.log.append(event);
    const outcome = {
      threadId: this.threadId,
      runId: this.runId,
      messages: this.#surface.state.messages,
      ...(this.#parked
        ? { pendingToolCallIds: this.#surface.state.awaitingClient.map((call) => call.toolCallId) }
        : {}),
    };
    this.log.append(
      runOutcomeEvent(error === undefined ? outcome : { ...outcome, error: this.#shown(error) }),
    );
    this.log.end();
    this.#finish();
  }

  /** The error as the client may see it: its code, and the text `failureText` gives for it. */
  #shown(error: unknown): unknown {
    if (!this.#failureText || error instanceof AgUiError || error instanceof CommandError) return error;
    const code = (error as { code?: unknown } | null)?.code;
    return Object.assign(new Error(this.#failureText(error)), typeof code === "string" ? { code } : {});
  }
}

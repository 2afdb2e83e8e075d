import type { Subscription } from "rxjs";
import type { WaitingToolCall } from "../agent/agent-state.js";
import type { HarnessEvent } from "../harness/hooks.js";
import { messageText, userMessage } from "../loop/messages.js";
import { AgUiError } from "./ag-ui-error.js";
import { AG_UI_PROTOCOL_VERSION } from "./ag-ui-events.js";
import type { AgentCommand } from "./agent-command.js";
import { RunLog } from "./run-log.js";
import { runOutcomeEvent } from "./run-outcome.js";
import { type RunTarget, waitsForClientOnly } from "./run-target.js";
import type { BudgetPause, PendingApproval, SharedAgentState } from "./shared-state.js";
import { AgUiTranslator } from "./to-ag-ui-events.js";
import { toAgUiMessages } from "./to-ag-ui-messages.js";

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

/** Events after which the target's run may have come to wait for the client alone (not checked per delta). */
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
   * The endpoint reports the error and shows a correlation id instead; an `AgUiError` is shown as is.
   */
  failureText?: (error: unknown) => string;
}

/**
 * One AG-UI run: work given to a {@link RunTarget} (a prompt, or answers that continue a run waiting
 * for the client), its events translated into a {@link RunLog} between `RUN_STARTED` and
 * `RUN_FINISHED` (or `RUN_ERROR`), with a `MESSAGES_SNAPSHOT` of the transcript first and a
 * `STATE_SNAPSHOT` whenever the shared state changes. The run is independent of whoever reads its log:
 * it ends when the target's run ends, on an `abort` command, or — as AG-UI runs do for frontend tools —
 * when the target's run can go on only once the client answers calls of client tools (`RUN_FINISHED`
 * with `outcome.pendingToolCallIds`; the target's run waits, and the next AG-UI run continues it).
 *
 * ```ts
 * declare const target: ConstructorParameters<typeof AgUiRun>[0]; // the agent, as the handler drives it
 * const run = new AgUiRun(target, { threadId: "t1", runId: "r1", prompt: "Hello", start: () => target.prompt("Hello") });
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
  readonly #target: RunTarget;
  readonly #translator: AgUiTranslator;
  readonly #awaitingApproval = new Map<string, PendingApproval>();
  /** Runs held at a budget limit or a loop breaker, by agent path. */
  readonly #awaitingBudget = new Map<string, BudgetPause>();
  readonly #subscription: Subscription;
  #lastState = "";
  #ended = false;
  /** The run ended because the target's run waits for the client. */
  #parked = false;
  #finish!: () => void;
  readonly #failureText: ((error: unknown) => string) | undefined;

  constructor(target: RunTarget, input: AgUiRunInput) {
    this.#target = target;
    this.threadId = input.threadId;
    this.runId = input.runId;
    this.#failureText = input.failureText;
    this.finished = new Promise((resolve) => {
      this.#finish = resolve;
    });
    const transcript = target.messages();
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
    this.#subscription = target.events$.subscribe((event) => {
      if (this.#ended) return;
      this.#track(event);
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
   * Applies a command to this run. Throws `AgUiError` `not_awaiting` for an approval of a call that
   * does not wait, `invalid_state` when the target refuses (e.g. steering a run that has ended).
   *
   * Contract: synchronous; throws only `AgUiError`.
   */
  command(command: AgentCommand): void {
    if (command.type === "abort") {
      // A run that ended waiting for the client leaves the target's run waiting: abort stops that too.
      if (!this.#ended || this.#parked) this.#target.abort();
      return;
    }
    if (this.#ended) throw new AgUiError("invalid_state", `Run ${this.runId} has ended`);
    try {
      switch (command.type) {
        case "approve":
          this.#requireAwaiting(command.toolCallId, command.agentPath);
          this.#target.approve(command.toolCallId, command.agentPath);
          break;
        case "deny":
          this.#requireAwaiting(command.toolCallId, command.agentPath);
          this.#target.deny(command.toolCallId, command.reason, command.agentPath);
          break;
        case "steer":
          this.#target.steer(command.text);
          break;
        case "followUp":
          this.#target.followUp(command.text);
          break;
        case "raiseBudget":
          this.#requireBudgetPause(command.agentPath);
          this.#target.raiseBudget(command.limits, command.agentPath);
          break;
        case "continuePastBudget":
          this.#requireBudgetPause(command.agentPath);
          this.#target.continuePastBudget(command.agentPath);
          break;
      }
    } catch (error) {
      if (error instanceof AgUiError) throw error;
      throw new AgUiError("invalid_state", error instanceof Error ? error.message : String(error), {
        cause: error,
      });
    }
    if (command.type === "approve" || command.type === "deny")
      this.#awaitingApproval.delete(approvalKey(command.toolCallId, command.agentPath));
    if (command.type === "raiseBudget" || command.type === "continuePastBudget")
      this.#awaitingBudget.delete(pathKey(command.agentPath));
    this.#publishState();
  }

  /** Whether the tool call (a sub-agent's at `agentPath`) waits for approval in this run. */
  awaits(toolCallId: string, agentPath?: readonly string[]): boolean {
    return this.#awaitingApproval.has(approvalKey(toolCallId, agentPath));
  }

  /**
   * The `agentPath` of the one call of that id waiting for approval (`[]` for the root's own), or
   * `undefined` when none or several wait: for an answer that names only the call.
   */
  awaitingPathOf(toolCallId: string): string[] | undefined {
    const waiting = [...this.#awaitingApproval.values()].filter((call) => call.toolCallId === toolCallId);
    return waiting.length === 1 ? (waiting[0]!.agentPath ?? []) : undefined;
  }

  /** Whether the run (a sub-agent's at `agentPath`) waits at a budget limit or a loop breaker. */
  awaitsBudget(agentPath?: readonly string[]): boolean {
    return this.#awaitingBudget.has(pathKey(agentPath));
  }

  #requireBudgetPause(agentPath: readonly string[] | undefined): void {
    if (!this.awaitsBudget(agentPath))
      throw new AgUiError(
        "not_awaiting",
        `${agentPath?.length ? `The sub-agent at ${agentPath.join("/")}` : "The run"} is not waiting at a budget limit in run ${this.runId}`,
      );
  }

  #requireAwaiting(toolCallId: string, agentPath: readonly string[] | undefined): void {
    if (!this.awaits(toolCallId, agentPath))
      throw new AgUiError(
        "not_awaiting",
        `No tool call "${toolCallId}"${agentPath?.length ? ` of the sub-agent at ${agentPath.join("/")}` : ""} is awaiting approval in run ${this.runId}`,
      );
  }

  #track(event: HarnessEvent): void {
    if (event.type === "tool_approval_request") {
      const agentPath = event.agentPath?.length ? { agentPath: event.agentPath } : {};
      this.#awaitingApproval.set(approvalKey(event.toolCallId, event.agentPath), {
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        args: event.args,
        ...agentPath,
      });
    } else if (event.type === "tool_execution_start" || event.type === "tool_execution_end")
      this.#awaitingApproval.delete(approvalKey(event.toolCallId, event.agentPath));
    if ((event.type === "budget_exceeded" || event.type === "loop_detected") && event.action === "pause") {
      const { type: _type, ...pause } = event;
      this.#awaitingBudget.set(pathKey(event.agentPath), pause);
    } else if (event.type === "agent_end") this.#awaitingBudget.delete(pathKey(event.agentPath));
  }

  #state(): SharedAgentState {
    const queued = this.#target.queued();
    const live = !this.#ended || this.#parked;
    const awaitingClient = live ? this.#target.state().awaitingClient.map(pendingCall) : [];
    const budget = live ? this.#target.state().budget : undefined;
    const waiting = this.#awaitingApproval.size > 0 || this.#awaitingBudget.size > 0 || this.#parked;
    return {
      phase: !live ? "idle" : waiting ? "waiting" : "running",
      awaitingApproval: [...this.#awaitingApproval.values()],
      awaitingClient,
      queued: {
        steering: queued.steering.map((m) => messageText(m)),
        followUp: queued.followUp.map((m) => messageText(m)),
      },
      ...(this.#awaitingBudget.size > 0 ? { awaitingBudget: [...this.#awaitingBudget.values()] } : {}),
      ...(budget ? { budget: { limits: budget.limits, usage: budget.usage } } : {}),
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

  /** Ends the run, leaving the target's run waiting, once that can go on only with the client's answers. */
  #endIfParked(): void {
    if (this.#ended || !waitsForClientOnly(this.#target.state())) return;
    this.#parked = true;
    this.#end(undefined);
  }

  #end(error: unknown): void {
    if (this.#ended) return;
    this.#awaitingApproval.clear();
    this.#awaitingBudget.clear();
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
      messages: this.#target.messages(),
      ...(this.#parked
        ? { pendingToolCallIds: this.#target.state().awaitingClient.map((call) => call.toolCallId) }
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
    if (!this.#failureText || error instanceof AgUiError) return error;
    const code = (error as { code?: unknown } | null)?.code;
    return Object.assign(new Error(this.#failureText(error)), typeof code === "string" ? { code } : {});
  }
}

function pendingCall(call: WaitingToolCall): PendingApproval {
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    ...(call.agentPath ? { agentPath: call.agentPath } : {}),
  };
}

/** A waiting call's key: tool call ids are unique per agent, so the path and the id name it. */
function pathKey(agentPath: readonly string[] | undefined): string {
  return JSON.stringify(agentPath ?? []);
}

function approvalKey(toolCallId: string, agentPath: readonly string[] | undefined): string {
  return JSON.stringify([...(agentPath ?? []), toolCallId]);
}

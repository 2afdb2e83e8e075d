import type { Subscription } from "rxjs";
import type { HarnessEvent } from "../harness/harness-hooks.js";
import { userMessage } from "../loop/messages.js";
import type { AgentMessage } from "../types/messages.js";
import { AgUiError } from "./ag-ui-error.js";
import { AG_UI_PROTOCOL_VERSION } from "./ag-ui-events.js";
import type { AgentCommand } from "./agent-command.js";
import { RunLog } from "./run-log.js";
import { runOutcomeEvent } from "./run-outcome.js";
import type { RunTarget } from "./run-target.js";
import type { PendingApproval, SharedAgentState } from "./shared-state.js";
import { AgUiTranslator, messageText } from "./to-ag-ui-events.js";
import { toAgUiMessages } from "./to-ag-ui-messages.js";

/** Events after which the shared state may have changed. */
const STATE_EVENTS = new Set<HarnessEvent["type"]>([
  "tool_approval_request",
  "tool_execution_start",
  "tool_execution_end",
  "message_start",
  "queue_update",
]);

/**
 * One AG-UI run: a prompt given to a {@link RunTarget}, its events translated into a {@link RunLog}
 * between `RUN_STARTED` and `RUN_FINISHED` (or `RUN_ERROR`), with a `MESSAGES_SNAPSHOT` of the
 * transcript first and a `STATE_SNAPSHOT` whenever the shared state changes. The run is independent of
 * whoever reads its log: it ends when the target's run ends, or on an `abort` command.
 *
 * ```ts
 * const run = new AgUiRun(runTargetOf(agent), { threadId: "t1", runId: "r1", prompt: "Hello" });
 * run.log.read(0, { frame: write, end: close });
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
  readonly #awaitingApproval = new Map<string, PendingApproval>();
  readonly #subscription: Subscription;
  #lastState = "";
  #ended = false;

  constructor(target: RunTarget, input: { threadId: string; runId: string; prompt: string }) {
    this.#target = target;
    this.threadId = input.threadId;
    this.runId = input.runId;
    const transcript = target.messages();
    const translator = new AgUiTranslator({ firstMessageIndex: transcript.length, skipUserMessages: 1 });
    this.log.append({
      type: "RUN_STARTED",
      threadId: this.threadId,
      runId: this.runId,
      protocolVersion: AG_UI_PROTOCOL_VERSION,
    });
    this.log.append({
      type: "MESSAGES_SNAPSHOT",
      messages: toAgUiMessages([...transcript, userMessage(input.prompt)]),
    });
    this.#publishState();
    this.#subscription = target.events$.subscribe((event) => {
      if (this.#ended) return;
      this.#track(event);
      for (const translated of translator.translate(event)) this.log.append(translated);
      if (STATE_EVENTS.has(event.type)) this.#publishState();
    });
    this.finished = target.prompt(input.prompt).then(
      () => this.#end(undefined),
      (error: unknown) => this.#end(error),
    );
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
      if (!this.#ended) this.#target.abort();
      return;
    }
    if (this.#ended) throw new AgUiError("invalid_state", `Run ${this.runId} has ended`);
    try {
      switch (command.type) {
        case "approve":
          this.#requireAwaiting(command.toolCallId);
          this.#target.approve(command.toolCallId);
          break;
        case "deny":
          this.#requireAwaiting(command.toolCallId);
          this.#target.deny(command.toolCallId, command.reason);
          break;
        case "steer":
          this.#target.steer(command.text);
          break;
        case "followUp":
          this.#target.followUp(command.text);
          break;
      }
    } catch (error) {
      if (error instanceof AgUiError) throw error;
      throw new AgUiError("invalid_state", error instanceof Error ? error.message : String(error), {
        cause: error,
      });
    }
    if (command.type === "approve" || command.type === "deny")
      this.#awaitingApproval.delete(command.toolCallId);
    this.#publishState();
  }

  /** Whether the tool call waits for approval in this run. */
  awaits(toolCallId: string): boolean {
    return this.#awaitingApproval.has(toolCallId);
  }

  #requireAwaiting(toolCallId: string): void {
    if (!this.#awaitingApproval.has(toolCallId))
      throw new AgUiError(
        "not_awaiting",
        `No tool call "${toolCallId}" is awaiting approval in run ${this.runId}`,
      );
  }

  #track(event: HarnessEvent): void {
    if (event.type === "tool_approval_request")
      this.#awaitingApproval.set(event.toolCallId, {
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        args: event.args,
      });
    else if (event.type === "tool_execution_start" || event.type === "tool_execution_end")
      this.#awaitingApproval.delete(event.toolCallId);
  }

  #state(): SharedAgentState {
    const queued = this.#target.queued();
    return {
      phase: this.#ended ? "idle" : this.#awaitingApproval.size > 0 ? "waiting" : "running",
      awaitingApproval: [...this.#awaitingApproval.values()],
      queued: { steering: queued.steering.map(textOf), followUp: queued.followUp.map(textOf) },
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

  #end(error: unknown): void {
    this.#awaitingApproval.clear();
    this.#ended = true;
    this.#subscription.unsubscribe();
    this.#publishState();
    const outcome = { threadId: this.threadId, runId: this.runId, messages: this.#target.messages() };
    this.log.append(runOutcomeEvent(error === undefined ? outcome : { ...outcome, error }));
    this.log.end();
  }
}

function textOf(message: AgentMessage): string {
  return messageText(message);
}

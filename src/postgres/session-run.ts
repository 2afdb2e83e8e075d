import type { AddressedCommand } from "../commands/addressed-command.js";
import { callKey } from "../commands/addressed-command.js";
import { type CommandError, isCommandError } from "../commands/command-error.js";
import { AgentHarness } from "../harness/agent-harness.js";
import type { AgentHarnessOptions } from "../harness/harness-options.js";
import { planResume } from "../harness/resume-run.js";
import { failedAssistantMessage, messageText, toolResultMessage } from "../loop/messages.js";
import { ABORTED_CALL_TEXT } from "../loop/tool-batch.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import type { AgentMessage, ImageContent, UserMessage } from "../types/messages.js";
import { resolveModel } from "../types/resolve-model.js";
import { type CommandDecision, decideCommand, type RunView } from "./command-decision.js";
import type { PostgresSession } from "./postgres-session.js";
import type { DecisionCommand, ParkedRun, RunState, RunStore, StoredCommand } from "./run-store.js";
import { pausedAt, runWaitOf } from "./run-wait.js";
import {
  type BoundDecision,
  callsAwaitingApproval,
  decisionCommand,
  recordDecisions,
  storedDecisions,
} from "./tool-decisions.js";

/** `customType` of the entry recording that a prompt command was taken into the session. */
export const COMMAND_ENTRY_TYPE = "agentchart.command";

/** The error text of the reply that ends a parked run aborted while it waited for approval. */
export const PARKED_RUN_ABORTED = "Run was aborted while waiting for approval";

/** How a run served by a worker ended. */
export type DriveOutcome = "idle" | "parked" | "handed_back" | "lost";

/** What a {@link SessionRun} needs. */
export interface SessionRunHost {
  session: PostgresSession;
  options: AgentHarnessOptions;
  store: RunStore;
  /** Aborted when the worker hands its runs back (drain time is up). */
  handBack: AbortSignal;
  /** Aborted when the worker drains: no new prompt is started. */
  draining: AbortSignal;
  /** How often commands (steer, follow-up, abort, decisions) are read during a run. */
  commandPollMs: number;
  /** Called with each harness built for the session, before it runs (hooks, observers). */
  onHarness?: (harness: AgentHarness) => void;
}

/** A stored steer or follow-up. */
type MessageCommand = StoredCommand & { command: Extract<AddressedCommand, { type: "STEER" | "FOLLOW_UP" }> };

/** A stored decision. */
type StoredDecision = StoredCommand & { command: DecisionCommand };

/**
 * `customType` of the entry a worker stores when it refuses a command row (it is then deleted): its
 * data is the row's id and the `CommandError` (`code`, `message`, `command`, `agentPath`,
 * `toolCallId`), so a `watch` of the session shows why the command did nothing.
 */
export const COMMAND_REFUSED_ENTRY_TYPE = "agentchart.command_refused";

/** The key of the call an event is about (a sub-agent's with its path). */
function eventKey(event: { toolCallId: string; agentPath?: readonly string[] }): string {
  const { toolCallId } = event;
  return callKey(isDescendants(event) ? { toolCallId, agentPath: [...event.agentPath!] } : { toolCallId });
}

/** A view of a run no worker drives now (idle or parked), for {@link decideCommand}. */
function restingView(parked: ParkedRun | undefined, requests: ReadonlyMap<string, string>): RunView {
  return {
    phase: parked ? "parked" : "idle",
    requests,
    awaitingApproval: [],
    awaitingClient: [],
    awaitingBudget: parked?.awaitingBudget ?? [],
  };
}

/** The text of a user message. */
function userText(message: AgentMessage): string | undefined {
  return message.role === "user" ? messageText(message) : undefined;
}

/** The command ids already taken into the session (their user message is stored). */
function takenCommands(session: PostgresSession): Set<string> {
  const taken = new Set<string>();
  for (const entry of session.getEntries()) {
    if (entry.type !== "custom" || entry.customType !== COMMAND_ENTRY_TYPE) continue;
    const commandId = (entry.data as { commandId?: unknown } | undefined)?.commandId;
    if (typeof commandId === "string") taken.add(commandId);
  }
  return taken;
}

/**
 * One worker's turn at a session it holds the lease of: finishes what is interrupted (a parked run
 * whose wait is answered, or a run a dead worker left), then takes the session's commands in order
 * until none is left. What to do with each command is {@link decideCommand}'s; every command that
 * reaches the run goes through `harness.send`, for the root's calls and the sub-agents' alike. A
 * run that waits only for people (approvals, a budget limit) is persisted (`harness.persist()` into
 * `parked_runs`) and the session given back; a drained worker hands its run back.
 */
export class SessionRun {
  #harness: AgentHarness | undefined;
  /** Commands whose user message is stored in the session (with an `agentchart.command` entry). */
  #taken = new Set<string>();
  /** Steers and follow-ups given to the live harness whose message is not stored yet, oldest first. */
  #inFlight: MessageCommand[] = [];
  /** The writes of `approval_requests` (asked, answered), one after the other, in event order. */
  #requestWrites: Promise<void> = Promise.resolve();
  /** What the run parked for waits on: approvals only, or (also) a budget limit. */
  #parkedAs: "awaiting_approval" | "awaiting_budget" = "awaiting_approval";

  constructor(private readonly host: SessionRunHost) {}

  /** Serves the session; resolves with the run state to record (or "lost" when the lease was lost). */
  async serve(): Promise<RunState | "lost"> {
    try {
      return await this.#serve();
    } finally {
      await this.#requestWrites; // the approval requests are as the run left them
    }
  }

  async #serve(): Promise<RunState | "lost"> {
    const { session, store } = this.host;
    this.#taken = takenCommands(session);
    let parked = await store.parked(session.id);
    let harness: AgentHarness | undefined;
    if (!parked) {
      // A worker that died between an approval request and parking the run left calls waiting.
      harness = this.#build();
      const awaiting = callsAwaitingApproval(session, harness.tools);
      if (awaiting.length > 0) {
        parked = { harness: null, awaiting, awaitingBudget: [] };
        await store.askApproval(session.id, awaiting, "keep"); // the same wait: decisions sent stay bound
      }
    }
    let outcome: DriveOutcome;
    if (parked) {
      const commands = await store.commands(session.id);
      const view = restingView(parked, await store.approvalRequests(session.id));
      const decided = await this.#settleResting(commands, view);
      const abort = decided.find(({ decision }) => decision.action === "abort_parked");
      if (abort) {
        await this.#abortParked(commands, abort.stored);
        outcome = "idle";
      } else {
        const answers = decided
          .filter(({ decision }) => decision.action === "resume")
          .map(({ stored }) => stored);
        if (!answersWait(parked, answers)) {
          if (parked.harness === null) await store.park(session.id, parked);
          return parked.awaitingBudget.length > 0 ? "awaiting_budget" : "awaiting_approval";
        }
        const resent = await this.#recordAnswers(answers);
        await store.answerApproval(session.id, parked.awaiting);
        let resumed: Promise<unknown>;
        if (parked.harness === null) {
          harness ??= this.#build();
          resumed = harness.resume();
        } else {
          const restored = AgentHarness.restore(parked.harness, this.host.options);
          this.#adopt(restored.harness);
          resumed = restored.resumed ?? Promise.resolve();
        }
        sendWhenWaiting(this.#harness!, resent);
        outcome = await this.#drive(this.#harness!, resumed);
        await store.deleteCommands(answers.map(({ id }) => id));
        if (outcome !== "parked") await store.unpark(session.id);
      }
    } else {
      sendWhenWaiting(harness!, this.#storedDenials());
      outcome = await this.#drive(harness!, harness!.resume());
    }
    for (;;) {
      if (outcome === "parked") return this.#parkedAs;
      if (outcome === "handed_back") return "queued";
      if (outcome === "lost") return "lost";
      this.#takeBackUndelivered();
      const next = await this.#nextPrompt();
      if (next === undefined) return "idle";
      if (this.host.draining.aborted) return "queued";
      outcome = await this.#drive(this.#harness!, this.#startPrompt(next));
      await store.deleteCommands([next.id]);
    }
  }

  /** A harness over the session (built from the session as it is now), adopted by this run. */
  #build(): AgentHarness {
    const harness = new AgentHarness(this.host.options);
    this.#adopt(harness);
    return harness;
  }

  /**
   * Makes `harness` the run's: the host sees it first, then each steer or follow-up it delivers is
   * marked taken in the same append batch as its user message.
   */
  #adopt(harness: AgentHarness): void {
    void this.#harness?.abort().catch(() => {});
    this.#harness = harness;
    this.host.onHarness?.(harness);
    harness.events$.subscribe((event) => {
      if (event.type !== "message_end" || isDescendants(event)) return;
      const text = userText(event.message);
      const index = this.#inFlight.findIndex((stored) => messageText(stored.command.message) === text);
      if (text === undefined || index === -1) return;
      const [stored] = this.#inFlight.splice(index, 1);
      this.#markTaken(stored!.id, true);
    });
  }

  /**
   * Appends the entry saying the command is taken (call it in the tick its user message is
   * appended: one batch, one statement). With `deleteRow`, its row goes once that is stored.
   */
  #markTaken(commandId: string, deleteRow: boolean): void {
    const { session, store } = this.host;
    this.#taken.add(commandId);
    session
      .appendCustom(COMMAND_ENTRY_TYPE, { commandId })
      .then(() => (deleteRow ? store.deleteCommands([commandId]) : undefined))
      .catch(() => {}); // not stored: the row stays, the next worker finds it taken or not
  }

  /**
   * The harness went idle with steers or follow-ups it had not delivered (they came in as the run
   * ended): they leave its queues and are taken again from their rows, as prompts, in order.
   */
  #takeBackUndelivered(): void {
    if (this.#inFlight.length === 0) return;
    this.#inFlight = [];
    this.#harness?.agent.clearQueues();
  }

  /**
   * Denials stored before a worker died, as the commands sent again when their calls ask. (A stored
   * approval is not sent again: the call may have started, so it follows its `replay` policy — or,
   * in a sub-agent that starts over, its call asks again.)
   */
  #storedDenials(): DecisionCommand[] {
    return [...storedDecisions(this.host.session)]
      .filter(([, decision]) => !decision.approved)
      .map(([key, decision]) => decisionCommand(key, decision));
  }

  /**
   * Stores the decisions that answer the parked run (before they take effect; of several on one
   * call the last stored counts) and returns the commands the resumed run is sent: the stored
   * denials, the new decisions and the budget commands. A call approved earlier by a worker that
   * then died may have started, so it follows its `replay` policy (no approval is sent).
   */
  async #recordAnswers(answers: readonly StoredCommand[]): Promise<AddressedCommand[]> {
    const stored = storedDecisions(this.host.session);
    const fresh = new Map<string, BoundDecision>();
    const budget: AddressedCommand[] = [];
    for (const answer of answers) {
      const { command } = answer as StoredCommand & { command: AddressedCommand };
      if (command.type !== "APPROVE_TOOL" && command.type !== "DENY_TOOL") budget.push(command);
      else if (!stored.has(callKey(command)))
        fresh.set(callKey(command), {
          command,
          ...(answer.requestId === undefined ? {} : { requestId: answer.requestId }),
        });
    }
    await recordDecisions(this.host.session, [...fresh.values()]);
    return [...this.#storedDenials(), ...[...fresh.values()].map(({ command }) => command), ...budget];
  }

  /**
   * Decides the commands of a run no worker drives (idle or parked): refuses and drops what cannot
   * or need not apply (a refusal is recorded in the session), and returns the others with their
   * decision, in order.
   */
  async #settleResting(
    commands: readonly StoredCommand[],
    view: RunView,
  ): Promise<{ stored: StoredCommand; decision: CommandDecision }[]> {
    const kept: { stored: StoredCommand; decision: CommandDecision }[] = [];
    const dropped: string[] = [];
    for (const stored of commands) {
      const decision = decideCommand(view, stored);
      if (decision.action === "refuse") await this.#refuse(stored, decision.error);
      if (decision.action === "refuse" || decision.action === "stale") dropped.push(stored.id);
      else kept.push({ stored, decision });
    }
    await this.host.store.deleteCommands(dropped);
    return kept;
  }

  /** Records in the session why a command row does nothing (its row is deleted by the caller). */
  async #refuse(stored: StoredCommand, error: CommandError): Promise<void> {
    await this.host.session.appendCustom(COMMAND_REFUSED_ENTRY_TYPE, {
      commandId: stored.id,
      code: error.code,
      message: error.message,
      ...(error.command === undefined ? {} : { command: error.command }),
      agentPath: error.agentPath,
      ...(error.toolCallId === undefined ? {} : { toolCallId: error.toolCallId }),
    });
  }

  /**
   * Records, after the writes before it, that a call asks for approval now (a new request) or was
   * answered (its request is forgotten). A failed write is retried by the next step that needs it
   * (parking asks again); meanwhile a decision for the call is refused.
   */
  #trackRequest(key: string, change: "asked" | "answered"): void {
    const { session, store } = this.host;
    this.#requestWrites = this.#requestWrites
      .then(() =>
        change === "asked"
          ? store.askApproval(session.id, [key], "fresh")
          : store.answerApproval(session.id, [key]),
      )
      .catch(() => {});
  }

  /**
   * Ends a parked run on an abort: every unanswered call gets the result "Tool call aborted" (as in
   * a live run) and the run ends with an aborted reply ({@link PARKED_RUN_ABORTED}), so nothing is
   * left to resume; the parked run is forgotten, and the abort and the commands before it that act
   * on a run (steers, follow-ups, decisions, budget commands) are dropped; prompts stay, in order.
   */
  async #abortParked(commands: readonly StoredCommand[], abort: StoredCommand): Promise<void> {
    const { session, store } = this.host;
    for (const { toolCall } of planResume(session).pending) {
      const outcome = errorOutcome(toolCall, ABORTED_CALL_TEXT);
      void session.appendMessage(toolResultMessage(toolCall, outcome.result, outcome.isError));
    }
    void session.appendMessage(
      failedAssistantMessage(resolveModel(this.host.options.model), "aborted", PARKED_RUN_ABORTED),
    );
    await session.flush();
    await store.unpark(session.id);
    await store.answerApproval(session.id, [...(await store.approvalRequests(session.id)).keys()]);
    const upTo = commands.indexOf(abort);
    await store.deleteCommands(
      commands
        .filter((stored, at) => at <= upTo && stored.command?.type !== "PROMPT")
        .map((stored) => stored.id),
    );
    this.#build(); // over the session as it is now: the calls answered
  }

  /** Stops the harness of this run without storing anything more (call once the session is closed). */
  dispose(): void {
    void this.#harness?.abort().catch(() => {});
  }

  /**
   * The oldest command that starts a run (a prompt, or a steer or follow-up sent while idle) not yet
   * taken; the others are decided on the way (refused, or dropped as stale).
   */
  async #nextPrompt(): Promise<
    MessageCommand | (StoredCommand & { command: { type: "PROMPT" } }) | undefined
  > {
    const { session, store } = this.host;
    const all = await store.commands(session.id);
    // A taken command's message is stored: a worker died before removing its row.
    await store.deleteCommands(all.filter(({ id }) => this.#taken.has(id)).map(({ id }) => id));
    const commands = all.filter(({ id }) => !this.#taken.has(id));
    const decided = await this.#settleResting(commands, restingView(undefined, new Map()));
    return decided.find(({ decision }) => decision.action === "start")?.stored as
      | MessageCommand
      | (StoredCommand & { command: { type: "PROMPT" } })
      | undefined;
  }

  /**
   * Starts a run for the command: the prompt of its one user message (a steer or follow-up sent while
   * idle is a prompt too). The entry naming the command is appended in the same tick as the
   * prompt's user message (one append batch, one statement), so a command is taken exactly once.
   */
  #startPrompt(stored: StoredCommand): Promise<unknown> {
    const harness = this.#harness!;
    const subscription = harness.events$.subscribe((event) => {
      if (event.type !== "message_end" || event.message.role !== "user" || isDescendants(event)) return;
      subscription.unsubscribe();
      this.#markTaken(stored.id, false); // the row goes once the run ends
    });
    const command = stored.command as Extract<AddressedCommand, { type: "PROMPT" | "STEER" | "FOLLOW_UP" }>;
    const message = (command.type === "PROMPT" ? command.messages[0] : command.message) as UserMessage;
    const images =
      typeof message.content === "string"
        ? []
        : message.content.filter((block): block is ImageContent => block.type === "image");
    return harness.prompt(messageText(message), { images }).finally(() => subscription.unsubscribe());
  }

  /**
   * Follows a run until it settles ("idle"), waits only for people (persisted: "parked"), is handed
   * back (drain time up) or loses its lease. Meanwhile applies the commands that act on a run.
   */
  #drive(harness: AgentHarness, run: Promise<unknown>): Promise<DriveOutcome> {
    const { session, store, handBack } = this.host;
    return new Promise<DriveOutcome>((resolve, reject) => {
      let settled = false;
      let parking = false;
      /**
       * Set by an approval request or a pause of the current turn: only then can the run come to wait.
       * A restored run may still wait for people from the start (one of several pauses was answered).
       */
      let peopleAsked = harness.state.awaitingApproval.length > 0 || harness.state.awaitingBudget.length > 0;
      const settle = () => {
        if (settled) return false;
        settled = true;
        clearInterval(poll);
        subscription.unsubscribe();
        handBack.removeEventListener("abort", onHandBack);
        session.leaseLost.removeEventListener("abort", onLost);
        return true;
      };
      const finish = (outcome: DriveOutcome) => {
        if (settle()) resolve(outcome);
      };
      const fail = (error: unknown) => {
        if (session.leaseLost.aborted) finish("lost");
        else if (settle()) reject(error);
      };
      const onHandBack = () => finish("handed_back");
      const onLost = () => finish("lost");
      const park = async () => {
        parking = true;
        try {
          await session.flush();
          const wait = runWaitOf(harness);
          if (!wait.onlyForPeople) return;
          await session.renewLease(); // still ours: the parked run is the current one
          await this.#requestWrites;
          await store.askApproval(session.id, wait.approvals, "keep");
          // Undelivered steers and follow-ups stay in their rows (the restored run takes them from there).
          const persisted = harness.persist();
          const queues = { ...persisted.queues, steering: [], followUp: [] };
          await store.park(session.id, {
            harness: { ...persisted, queues },
            awaiting: wait.approvals,
            awaitingBudget: wait.awaitingBudget,
          });
          this.#parkedAs = wait.awaitingBudget.length > 0 ? "awaiting_budget" : "awaiting_approval";
          finish("parked");
        } finally {
          parking = false;
        }
      };
      const subscription = harness.events$.subscribe((event) => {
        if (event.type === "tool_approval_request") this.#trackRequest(eventKey(event), "asked");
        else if (event.type === "tool_execution_end") this.#trackRequest(eventKey(event), "answered");
        // A sub-agent's request counts too; only the root's own turn starts anew.
        if (event.type === "tool_approval_request" || isPause(event)) peopleAsked = true;
        else if (event.type === "turn_start" && !isDescendants(event)) peopleAsked = false;
        const settling =
          event.type === "tool_approval_request" ||
          event.type === "tool_execution_end" ||
          event.type === "message_end" ||
          isPause(event);
        if (settled || parking || !peopleAsked || !settling) return;
        // The state shows a pause once its event is out: parking reads it after the session's flush.
        if (isPause(event) || runWaitOf(harness).onlyForPeople) park().catch(fail);
      });
      const poll = setInterval(() => {
        if (!settled) void this.#applyRunCommands(harness).catch(fail);
      }, this.host.commandPollMs);
      handBack.addEventListener("abort", onHandBack);
      session.leaseLost.addEventListener("abort", onLost);
      if (handBack.aborted) onHandBack();
      run.then(() => finish(session.leaseLost.aborted ? "lost" : "idle"), fail);
    });
  }

  /**
   * Applies the commands that act on a running harness, as {@link decideCommand} says; prompts wait
   * for the run to end. A steer or follow-up keeps its row until its message is stored (so a worker
   * that dies meanwhile loses nothing: the next one delivers it); a decision is stored in the session
   * before it takes effect; a command the harness refuses (`CommandError`) is recorded as refused.
   */
  async #applyRunCommands(harness: AgentHarness): Promise<void> {
    const { session, store } = this.host;
    const done: string[] = [];
    const commands = await store.commands(session.id);
    const decides = commands.some(
      ({ command }) => command?.type === "APPROVE_TOOL" || command?.type === "DENY_TOOL",
    );
    const requests = decides ? await store.approvalRequests(session.id) : new Map<string, string>();
    for (const stored of commands) {
      if (!harness.isRunning) break;
      if (this.#taken.has(stored.id)) {
        done.push(stored.id); // its message is stored (a worker died before removing the row)
        continue;
      }
      const { state } = harness;
      const decision = decideCommand(
        {
          phase: "running",
          requests,
          awaitingApproval: state.awaitingApproval.map((call) => callKey(call)),
          awaitingClient: state.awaitingClient.map((call) => callKey(call)),
          awaitingBudget: state.awaitingBudget,
        },
        stored,
      );
      if (decision.action === "refuse") await this.#refuse(stored, decision.error);
      if (decision.action === "refuse" || decision.action === "stale") done.push(stored.id);
      if (decision.action !== "apply") continue;
      const command = stored.command!;
      if (command.type === "STEER" || command.type === "FOLLOW_UP") {
        if (this.#inFlight.some((inFlight) => inFlight.id === stored.id)) continue;
        if (!this.#send(harness, stored, done)) continue;
        this.#inFlight.push(stored as MessageCommand);
        continue;
      }
      if (command.type === "APPROVE_TOOL" || command.type === "DENY_TOOL") {
        await recordDecisions(session, [{ command, requestId: requests.get(callKey(command))! }]);
        requests.delete(callKey(command));
        this.#trackRequest(callKey(command), "answered");
      }
      if (command.type === "ABORT" && !command.agentPath) {
        // Aborting clears the queues: the steers and follow-ups given to the harness go too.
        done.push(...this.#inFlight.map((inFlight) => inFlight.id));
        this.#inFlight = [];
      }
      this.#send(harness, stored, done);
      done.push(stored.id);
    }
    await store.deleteCommands(done);
  }

  /**
   * Sends a stored command to the harness; a `CommandError` (the call or agent is gone meanwhile) is
   * recorded as the command's refusal and its row marked done. Returns whether it was sent.
   */
  #send(harness: AgentHarness, stored: StoredCommand, done: string[]): boolean {
    try {
      harness.send(stored.command!);
      return true;
    } catch (error) {
      if (!isCommandError(error)) throw error;
      void this.#refuse(stored, error).catch(() => {});
      done.push(stored.id);
      return false;
    }
  }
}

/**
 * Whether a parked run's wait is answered by `answers` (each decided `resume`): one of its budget
 * pauses (the run goes on and parks again if others still wait), or every call it waits on.
 */
function answersWait(parked: ParkedRun, answers: readonly StoredCommand[]): boolean {
  const types = answers.map(({ command }) => command?.type);
  if (parked.awaitingBudget.length > 0)
    return types.includes("RAISE_BUDGET") || types.includes("CONTINUE_ONCE");
  const decided = new Set(
    answers
      .filter((answer): answer is StoredDecision => isDecision(answer))
      .map(({ command }) => callKey(command)),
  );
  return parked.awaiting.every((key) => decided.has(key));
}

function isDecision(stored: StoredCommand): boolean {
  return stored.command?.type === "APPROVE_TOOL" || stored.command?.type === "DENY_TOOL";
}

/** Whether the event is a sub-agent's (it carries the path down to it). */
function isDescendants(event: { agentPath?: readonly string[] }): boolean {
  return event.agentPath !== undefined && event.agentPath.length > 0;
}

/** Whether the event says a run waits at a budget limit or loop breaker. */
function isPause(event: { type: string; action?: string }): boolean {
  return (event.type === "budget_exceeded" || event.type === "loop_detected") && event.action === "pause";
}

/**
 * Sends each command to the harness as soon as what it answers waits — at once for a restored run
 * (its calls wait again right after the restore), or when the call asks again or the run pauses
 * (a run resumed from the session goes through its calls' preflight first) — in this run only.
 * The one place stored decisions and budget commands reach a resumed run, at every depth.
 */
function sendWhenWaiting(harness: AgentHarness, commands: readonly AddressedCommand[]): void {
  const pending = [...commands];
  if (pending.length === 0) return;
  const waits = (command: AddressedCommand): boolean => {
    if (command.type === "RAISE_BUDGET" || command.type === "CONTINUE_ONCE")
      return pausedAt(harness.state.awaitingBudget, command);
    if (command.type !== "APPROVE_TOOL" && command.type !== "DENY_TOOL") return true;
    return harness.state.awaitingApproval.some((call) => callKey(call) === callKey(command));
  };
  const sendWaiting = () => {
    for (const command of [...pending]) {
      if (!waits(command)) continue;
      pending.splice(pending.indexOf(command), 1); // it answers that wait only, not a later one
      try {
        harness.send(command);
      } catch {
        // Answered meanwhile (aborted): nothing waits any more.
      }
    }
    if (pending.length === 0) subscription?.unsubscribe();
  };
  let subscription: { unsubscribe(): void } | undefined;
  subscription = harness.events$.subscribe((event) => {
    if (event.type === "agent_end" && !isDescendants(event)) subscription?.unsubscribe();
    else if (event.type === "tool_approval_request" || isPause(event)) sendWaiting();
  });
  sendWaiting();
}

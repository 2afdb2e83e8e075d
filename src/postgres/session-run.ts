import { AgentHarness } from "../harness/agent-harness.js";
import type { AgentHarnessOptions } from "../harness/harness-options.js";
import { planResume, type ToolCallDecision } from "../harness/resume-run.js";
import { failedAssistantMessage, messageText, toolResultMessage } from "../loop/messages.js";
import { ABORTED_CALL_TEXT } from "../loop/tool-batch.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import type { AgentMessage } from "../types/messages.js";
import { resolveModel } from "../types/resolve-model.js";
import { type ApprovalRequest, approvalKey, approvalRequestOf, approvalWaitOf } from "./approval-wait.js";
import type { PostgresSession } from "./postgres-session.js";
import type { DecisionCommand, ParkedRun, RunState, RunStore, StoredCommand } from "./run-store.js";
import { callsAwaitingApproval, recordDecisions, storedDecisions } from "./tool-decisions.js";

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

/** A steer or follow-up command. */
type MessageCommand = Extract<StoredCommand, { kind: "steer" | "followUp" }>;

/** The decision a command carries. */
function decisionOf(command: DecisionCommand): ToolCallDecision {
  if (command.kind === "approve") return { approved: true };
  return command.reason === undefined ? { approved: false } : { approved: false, reason: command.reason };
}

/** The call a decision command names (with its path, for a sub-agent's call). */
function requestOf(command: DecisionCommand): ApprovalRequest {
  const { toolCallId, agentPath } = command;
  return agentPath && agentPath.length > 0 ? { toolCallId, agentPath } : { toolCallId };
}

/** A decision command bound to the approval request waiting now. */
interface BoundDecision {
  /** The command's id. */
  id: string;
  requestId: string;
  decision: ToolCallDecision;
}

/**
 * The decision commands that answer the approval requests waiting now (`requests`: request id by
 * `approvalKey`), by key; of several for one request, the last stored counts. A decision bound to an
 * earlier request (answered since) answers nothing.
 */
function decisionsFor(
  commands: readonly StoredCommand[],
  requests: ReadonlyMap<string, string>,
): Map<string, BoundDecision> {
  const decisions = new Map<string, BoundDecision>();
  for (const command of commands) {
    if (command.kind !== "approve" && command.kind !== "deny") continue;
    const key = approvalKey(requestOf(command));
    const requestId = requests.get(key);
    if (requestId === undefined || command.requestId !== requestId) continue;
    decisions.set(key, { id: command.id, requestId, decision: decisionOf(command) });
  }
  return decisions;
}

/** The key of the call an event is about (a sub-agent's with its path). */
function eventKey(event: { toolCallId: string; agentPath?: readonly string[] }): string {
  const { toolCallId } = event;
  return approvalKey(
    isDescendants(event) ? { toolCallId, agentPath: [...event.agentPath!] } : { toolCallId },
  );
}

/** Decisions by `approvalKey`, split: the root's calls by id (for the harness), the sub-agents' by key. */
function splitDecisions(decisions: ReadonlyMap<string, ToolCallDecision>): {
  root: Record<string, ToolCallDecision>;
  nested: Map<string, ToolCallDecision>;
} {
  const root: Record<string, ToolCallDecision> = {};
  const nested = new Map<string, ToolCallDecision>();
  for (const [key, decision] of decisions) {
    if (approvalRequestOf(key).agentPath) nested.set(key, decision);
    else root[key] = decision;
  }
  return { root, nested };
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
 * whose calls all have decisions, or a run a dead worker left), then takes the session's commands in
 * order until none is left. A run whose calls wait for approval is persisted (`harness.persist()`
 * into `parked_runs`) and the session given back; a drained worker hands its run back.
 */
export class SessionRun {
  #harness: AgentHarness | undefined;
  /** Commands whose user message is stored in the session (with an `agentchart.command` entry). */
  #taken = new Set<string>();
  /** Steers and follow-ups given to the live harness whose message is not stored yet, oldest first. */
  #inFlight: MessageCommand[] = [];
  /** The writes of `approval_requests` (asked, answered), one after the other, in event order. */
  #requestWrites: Promise<void> = Promise.resolve();

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
        parked = { harness: null, awaiting };
        await store.askApproval(session.id, awaiting, "keep"); // the same wait: decisions sent stay bound
      }
    }
    let outcome: DriveOutcome;
    if (parked) {
      const commands = await store.commands(session.id);
      const abort = commands.find((command) => command.kind === "abort");
      if (abort) {
        await this.#abortParked(commands, abort);
        outcome = "idle";
      } else {
        const decisions = decisionsFor(commands, await store.approvalRequests(session.id));
        if (!parked.awaiting.every((id) => decisions.has(id))) {
          if (parked.harness === null) await store.park(session.id, parked);
          return "awaiting_approval";
        }
        const { root, nested } = splitDecisions(
          await this.#applyDecisions(parked.awaiting.map((key) => [key, decisions.get(key)!] as const)),
        );
        await store.answerApproval(session.id, parked.awaiting);
        let resumed: Promise<unknown>;
        if (parked.harness === null) {
          harness ??= this.#build();
          decideNestedWhenAsked(harness, nested);
          resumed = harness.resume({ approvals: root });
        } else {
          const restored = AgentHarness.restore(parked.harness, this.host.options, { approvals: root });
          this.#adopt(restored.harness);
          decideNestedWhenAsked(restored.harness, nested);
          resumed = restored.resumed ?? Promise.resolve();
        }
        outcome = await this.#drive(this.#harness!, resumed);
        await store.deleteCommands(parked.awaiting.map((key) => decisions.get(key)!.id));
        if (outcome !== "parked") await store.unpark(session.id);
      }
    } else {
      const { root, nested } = splitDecisions(this.#storedDenials());
      decideNestedWhenAsked(harness!, nested);
      outcome = await this.#drive(harness!, harness!.resume({ approvals: root }));
    }
    for (;;) {
      if (outcome === "parked") return "awaiting_approval";
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
      const index = this.#inFlight.findIndex((command) => command.text === text);
      if (text === undefined || index === -1) return;
      const [command] = this.#inFlight.splice(index, 1);
      this.#markTaken(command!.id, true);
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
   * Denials stored before a worker died, by `approvalKey`. (A stored approval is not applied again: the
   * call may have started, so it follows its `replay` policy — or, in a sub-agent that starts over, its
   * call asks again.)
   */
  #storedDenials(): Map<string, ToolCallDecision> {
    const denials = new Map<string, ToolCallDecision>();
    for (const [key, decision] of storedDecisions(this.host.session))
      if (!decision.approved) denials.set(key, decision);
    return denials;
  }

  /**
   * Stores the decisions (before they take effect) and returns what the resumed run applies: a call
   * approved earlier by a worker that then died may have started, so it follows its `replay` policy
   * (no approval passed); a stored denial stays a denial.
   */
  async #applyDecisions(
    decisions: readonly (readonly [string, BoundDecision])[],
  ): Promise<Map<string, ToolCallDecision>> {
    const stored = storedDecisions(this.host.session);
    const fresh = new Map<string, BoundDecision>();
    for (const [key, bound] of decisions) if (!stored.has(key)) fresh.set(key, bound);
    await recordDecisions(
      this.host.session,
      [...fresh].map(([key, { decision, requestId }]) => ({
        request: approvalRequestOf(key),
        decision,
        requestId,
      })),
    );
    return new Map([
      ...this.#storedDenials(),
      ...[...fresh].map(([key, { decision }]) => [key, decision] as const),
    ]);
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
   * on a run (steers, follow-ups, decisions) are dropped; prompts stay, in order.
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
      commands.filter((command, at) => at <= upTo && command.kind !== "prompt").map((command) => command.id),
    );
    this.#build(); // over the session as it is now: the calls answered
  }

  /** Stops the harness of this run without storing anything more (call once the session is closed). */
  dispose(): void {
    void this.#harness?.abort().catch(() => {});
  }

  /**
   * The oldest prompt-like command not yet taken; commands that only make sense during a run
   * (abort, decisions without a parked run) and prompts already taken are dropped on the way.
   */
  async #nextPrompt(): Promise<StoredCommand | undefined> {
    const { session, store } = this.host;
    const commands = await store.commands(session.id);
    const taken = this.#taken;
    const stale: string[] = [];
    let next: StoredCommand | undefined;
    for (const command of commands) {
      if (command.kind === "prompt" || command.kind === "steer" || command.kind === "followUp") {
        if (!taken.has(command.id)) {
          next = command;
          break;
        }
      }
      stale.push(command.id);
    }
    await store.deleteCommands(stale);
    return next;
  }

  /**
   * Starts a prompt for the command. The entry naming the command is appended in the same tick as
   * the prompt's user message (one append batch, one statement), so a command is taken exactly once.
   */
  #startPrompt(command: StoredCommand): Promise<unknown> {
    const harness = this.#harness!;
    const subscription = harness.events$.subscribe((event) => {
      if (event.type !== "message_end" || event.message.role !== "user" || isDescendants(event)) return;
      subscription.unsubscribe();
      this.#markTaken(command.id, false); // the row goes once the run ends
    });
    const text = "text" in command ? command.text : "";
    return harness.prompt(text).finally(() => subscription.unsubscribe());
  }

  /**
   * Follows a run until it settles ("idle"), waits only for approvals (persisted: "parked"), is
   * handed back (drain time up) or loses its lease. Meanwhile applies steer, follow-up, abort and
   * decision commands to it.
   */
  #drive(harness: AgentHarness, run: Promise<unknown>): Promise<DriveOutcome> {
    const { session, store, handBack } = this.host;
    return new Promise<DriveOutcome>((resolve, reject) => {
      let settled = false;
      let parking = false;
      /** Set by an approval request of the current turn: only then can the run come to wait. */
      let approvalAsked = false;
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
          const wait = approvalWaitOf(harness.agent.persist());
          if (!wait.onlyApprovals) return;
          await session.renewLease(); // still ours: the parked run is the current one
          await this.#requestWrites;
          await store.askApproval(session.id, wait.waiting.map(approvalKey), "keep");
          // Undelivered steers and follow-ups stay in their rows (the restored run takes them from there).
          const persisted = harness.persist();
          const queues = { ...persisted.queues, steering: [], followUp: [] };
          const parked: ParkedRun = {
            harness: { ...persisted, queues },
            awaiting: wait.waiting.map(approvalKey),
          };
          await store.park(session.id, parked);
          finish("parked");
        } finally {
          parking = false;
        }
      };
      const subscription = harness.events$.subscribe((event) => {
        if (event.type === "tool_approval_request") this.#trackRequest(eventKey(event), "asked");
        else if (event.type === "tool_execution_end") this.#trackRequest(eventKey(event), "answered");
        // A sub-agent's request counts too; only the root's own turn starts anew.
        if (event.type === "tool_approval_request") approvalAsked = true;
        else if (event.type === "turn_start" && !isDescendants(event)) approvalAsked = false;
        const settling =
          event.type === "tool_approval_request" ||
          event.type === "tool_execution_end" ||
          event.type === "message_end";
        if (settled || parking || !approvalAsked || !settling) return;
        if (approvalWaitOf(harness.agent.persist()).onlyApprovals) park().catch(fail);
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
   * Applies the commands that act on a running harness; prompts wait for the run to end. A steer or
   * follow-up keeps its row until its message is stored (so a worker that dies meanwhile loses
   * nothing: the next one delivers it); a decision is stored in the session before it takes effect.
   */
  async #applyRunCommands(harness: AgentHarness): Promise<void> {
    const { session, store } = this.host;
    const applied: string[] = [];
    let requests: Map<string, string> | undefined;
    for (const command of await store.commands(session.id)) {
      if (harness.phase === "idle") break;
      if (this.#taken.has(command.id)) {
        applied.push(command.id); // its message is stored (a worker died before removing the row)
        continue;
      }
      if (command.kind === "steer" || command.kind === "followUp") {
        if (this.#inFlight.some((inFlight) => inFlight.id === command.id)) continue;
        try {
          if (command.kind === "steer") harness.steer(command.text);
          else harness.followUp(command.text);
          this.#inFlight.push(command);
        } catch {
          // The run ended meanwhile: the command is taken as a prompt.
        }
      } else if (command.kind === "abort") {
        void harness.abort(); // clears the queues: the steers and follow-ups given to it go too
        applied.push(command.id, ...this.#inFlight.map((inFlight) => inFlight.id));
        this.#inFlight = [];
      } else if (command.kind === "approve" || command.kind === "deny") {
        const request = requestOf(command);
        const key = approvalKey(request);
        requests ??= await store.approvalRequests(session.id);
        const requestId = requests.get(key);
        if (requestId === undefined || command.requestId !== requestId) {
          applied.push(command.id); // bound to a request answered since: it answers nothing
          continue;
        }
        // A decision for a call that does not wait here (yet) is left for the parked run.
        const { waiting } = approvalWaitOf(harness.agent.persist());
        if (!waiting.some((call) => approvalKey(call) === key)) continue;
        await recordDecisions(session, [{ request, decision: decisionOf(command), requestId }]);
        try {
          applyDecision(harness, request, decisionOf(command));
        } catch {
          // Aborted meanwhile: the call was answered as aborted.
        }
        requests.delete(key);
        this.#trackRequest(key, "answered");
        applied.push(command.id);
      }
    }
    await store.deleteCommands(applied);
  }
}

/** Whether the event is a sub-agent's (it carries the path down to it). */
function isDescendants(event: { agentPath?: readonly string[] }): boolean {
  return event.agentPath !== undefined && event.agentPath.length > 0;
}

/** Approves or denies the waiting call (a sub-agent's at its path). Throws when it does not wait. */
function applyDecision(harness: AgentHarness, request: ApprovalRequest, decision: ToolCallDecision): void {
  const options = request.agentPath ? { agentPath: request.agentPath } : {};
  if (decision.approved) harness.approveToolCall(request.toolCallId, options);
  else harness.denyToolCall(request.toolCallId, decision.reason, options);
}

/**
 * Applies `decisions` (by `approvalKey`) to the sub-agents' calls they name as soon as those ask for
 * approval in the harness's next run — a restored tree asks again, a sub-agent that starts over asks
 * when it gets there. (The harness's own `approvals` serve the root's calls.)
 */
function decideNestedWhenAsked(harness: AgentHarness, decided: ReadonlyMap<string, ToolCallDecision>): void {
  const decisions = new Map(decided);
  if (decisions.size === 0) return;
  const subscription = harness.events$.subscribe((event) => {
    if (event.type === "agent_end" && !isDescendants(event)) subscription.unsubscribe();
    if (event.type !== "tool_approval_request" || !isDescendants(event)) return;
    const request = { toolCallId: event.toolCallId, agentPath: [...event.agentPath!] };
    const key = approvalKey(request);
    const decision = decisions.get(key);
    if (!decision) return;
    decisions.delete(key); // it answers that request only, not a later call under the same id
    try {
      applyDecision(harness, request, decision);
    } catch {
      // Answered meanwhile (aborted): nothing waits any more.
    }
  });
}

import type { PersistedAgent } from "../agent/agent-snapshot.js";
import { AgentHarness, type AgentHarnessOptions } from "../harness/agent-harness.js";
import type { ToolCallDecision } from "../harness/resume-run.js";
import type { PostgresSession } from "./postgres-session.js";
import type { ParkedRun, RunState, RunStore, StoredCommand } from "./run-store.js";

/** `customType` of the entry recording that a prompt command was taken into the session. */
export const COMMAND_ENTRY_TYPE = "agentchart.command";

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
}

/** The ids of the tool calls a persisted agent waits on for approval. */
export function awaitingApprovalOf(persisted: PersistedAgent): string[] {
  return Object.entries(persisted.snapshot.children)
    .filter(([, child]) => child.snapshot.value === "awaitingApproval")
    .map(([id]) => id);
}

/** Whether every unsettled call of the agent waits for approval (and at least one does). */
function waitsOnlyForApproval(persisted: PersistedAgent): boolean {
  const children = Object.values(persisted.snapshot.children);
  const waiting = children.filter((child) => child.snapshot.value === "awaitingApproval");
  const busy = children.filter(
    (child) => child.snapshot.status !== "done" && child.snapshot.value !== "awaitingApproval",
  );
  return waiting.length > 0 && busy.length === 0;
}

function decisionsFor(
  commands: readonly StoredCommand[],
): Map<string, { id: string; decision: ToolCallDecision }> {
  const decisions = new Map<string, { id: string; decision: ToolCallDecision }>();
  for (const command of commands) {
    if (command.kind === "approve")
      decisions.set(command.toolCallId, { id: command.id, decision: { approved: true } });
    else if (command.kind === "deny")
      decisions.set(command.toolCallId, {
        id: command.id,
        decision:
          command.reason === undefined ? { approved: false } : { approved: false, reason: command.reason },
      });
  }
  return decisions;
}

/** The command ids already taken into the session (their prompt's user message is stored). */
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

  constructor(private readonly host: SessionRunHost) {}

  /** Serves the session; resolves with the run state to record (or "lost" when the lease was lost). */
  async serve(): Promise<RunState | "lost"> {
    const { session, store } = this.host;
    const parked = await store.parked(session.id);
    let outcome: DriveOutcome;
    if (parked) {
      const decisions = decisionsFor(await store.commands(session.id));
      if (!parked.awaiting.every((id) => decisions.has(id))) return "awaiting_approval";
      const approvals: Record<string, ToolCallDecision> = {};
      for (const id of parked.awaiting) approvals[id] = decisions.get(id)!.decision;
      const { harness, resumed } = AgentHarness.restore(parked.harness, this.host.options, { approvals });
      this.#harness = harness;
      outcome = await this.#drive(harness, resumed ?? Promise.resolve());
      await store.deleteCommands(parked.awaiting.map((id) => decisions.get(id)!.id));
      if (outcome !== "parked") await store.unpark(session.id);
    } else {
      const harness = new AgentHarness(this.host.options);
      this.#harness = harness;
      outcome = await this.#drive(harness, harness.resume());
    }
    for (;;) {
      if (outcome === "parked") return "awaiting_approval";
      if (outcome === "handed_back") return "queued";
      if (outcome === "lost") return "lost";
      const next = await this.#nextPrompt();
      if (next === undefined) return "idle";
      if (this.host.draining.aborted) return "queued";
      outcome = await this.#drive(this.#harness!, this.#startPrompt(next));
      await store.deleteCommands([next.id]);
    }
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
    const taken = takenCommands(session);
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
      if (event.type !== "message_end" || event.message.role !== "user") return;
      subscription.unsubscribe();
      this.host.session.appendCustom(COMMAND_ENTRY_TYPE, { commandId: command.id }).catch(() => {});
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
          const agent = harness.agent.persist();
          if (!waitsOnlyForApproval(agent)) return;
          await session.renewLease(); // still ours: the parked run is the current one
          const parked: ParkedRun = { harness: harness.persist(), awaiting: awaitingApprovalOf(agent) };
          await store.park(session.id, parked);
          finish("parked");
        } finally {
          parking = false;
        }
      };
      const subscription = harness.events$.subscribe((event) => {
        if (event.type === "tool_approval_request") approvalAsked = true;
        else if (event.type === "turn_start") approvalAsked = false;
        const settling =
          event.type === "tool_approval_request" ||
          event.type === "tool_execution_end" ||
          event.type === "message_end";
        if (settled || parking || !approvalAsked || !settling) return;
        if (waitsOnlyForApproval(harness.agent.persist())) park().catch(fail);
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

  /** Applies the commands that act on a running harness; prompts wait for the run to end. */
  async #applyRunCommands(harness: AgentHarness): Promise<void> {
    const { session, store } = this.host;
    const applied: string[] = [];
    for (const command of await store.commands(session.id)) {
      if (harness.phase === "idle") break;
      try {
        if (command.kind === "steer") harness.steer(command.text);
        else if (command.kind === "followUp") harness.followUp(command.text);
        else if (command.kind === "abort") void harness.abort();
        else if (command.kind === "approve") harness.agent.approveToolCall(command.toolCallId);
        else if (command.kind === "deny") harness.agent.denyToolCall(command.toolCallId, command.reason);
        else continue;
      } catch {
        // A decision for a call that does not wait here (yet): left for the parked run.
        if (command.kind === "approve" || command.kind === "deny") continue;
      }
      applied.push(command.id);
    }
    await store.deleteCommands(applied);
  }
}

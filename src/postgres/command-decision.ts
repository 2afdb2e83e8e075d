import { callKey } from "../commands/addressed-command.js";
import { CommandError } from "../commands/command-error.js";
import type { BudgetPause } from "../types/budget.js";
import type { StoredCommand } from "./run-store.js";
import { pausedAt } from "./run-wait.js";

/** What a worker's run of a session is, as data: all {@link decideCommand} reads. */
export interface RunView {
  /**
   * `idle`: no run (the worker takes prompts); `running`: a live run on this worker; `parked`: a run
   * persisted while it waits for people (approvals, or the budget limits in `awaitingBudget`).
   */
  phase: "idle" | "running" | "parked";
  /** The approval requests on the run row: each request's id by the `callKey` of its call. */
  requests: ReadonlyMap<string, string>;
  /** The calls waiting for approval in the live run now, by `callKey` (`state.awaitingApproval`). */
  awaitingApproval: readonly string[];
  /** The calls of client tools waiting for their result in the live run now, by `callKey`. */
  awaitingClient: readonly string[];
  /**
   * The runs of the tree waiting at a budget limit or loop breaker, the root's and the sub-agents'
   * (`state.awaitingBudget` of the live run, or the parked row's).
   */
  awaitingBudget: readonly BudgetPause[];
}

/**
 * What a worker does with a stored command:
 * - `start`: runs it as a prompt (the session is idle; a steer or follow-up then is a prompt too);
 * - `apply`: sends it to the live harness (`harness.send`);
 * - `keep`: leaves the row for later (a prompt while a run is on, a decision for a call that has not
 *   asked yet, a command for a parked run that does not resume it by itself);
 * - `resume`: it answers what the parked run waits for (a decision on one of its calls, a budget
 *   command for one of its runs at a limit — the root's or a sub-agent's at the command's
 *   `agentPath`): the run is restored and the command sent to it;
 * - `abort_parked`: ends the parked run;
 * - `refuse`: the command cannot apply; the worker records the `CommandError` in the session (an
 *   `agentchart.command_refused` entry a watch shows) and deletes the row;
 * - `stale`: it answered something that is over (a decision bound to a request answered since, an
 *   abort with nothing running); the row is deleted, the reason is only for tests and logs.
 */
export type CommandDecision =
  | { action: "start" | "apply" | "keep" | "resume" | "abort_parked" }
  | { action: "refuse"; error: CommandError }
  | { action: "stale"; reason: string };

/**
 * Decides what a worker does with a stored command, given its run as data — the whole policy of
 * command rows in one pure function (`test/postgres/command-decision.test.ts` is its table).
 *
 * Contract: pure; never throws (a command that cannot apply is a `refuse` decision naming the
 * command, the agent path and the call).
 *
 * ```ts
 * const run: RunView = { phase: "idle", requests: new Map(), awaitingApproval: [], awaitingClient: [], awaitingBudget: [] };
 * decideCommand(run, { id: "1", command: { type: "ABORT" } }); // { action: "stale", reason: "nothing runs" }
 * ```
 */
export function decideCommand(run: RunView, stored: StoredCommand): CommandDecision {
  if (stored.error) return { action: "refuse", error: stored.error };
  const { command } = stored;
  const path = command.agentPath ?? [];
  const at = path.length > 0 ? ` at agent path ${path.join("/")}` : "";
  switch (command.type) {
    case "PROMPT":
    case "STEER":
    case "FOLLOW_UP":
      if (path.length > 0)
        return refuse(command.type, `a worker takes ${command.type} for the root agent only, not${at}`, path);
      if (command.type === "PROMPT" && command.messages.length !== 1)
        return refuse(
          command.type,
          `a worker takes a prompt of one user message, not ${command.messages.length}`,
          path,
        );
      if (run.phase === "idle") return { action: "start" };
      if (run.phase === "parked" || command.type === "PROMPT") return { action: "keep" };
      return { action: "apply" };
    case "ABORT":
      if (run.phase === "running") return { action: "apply" };
      if (run.phase === "parked" && path.length === 0) return { action: "abort_parked" };
      return { action: "stale", reason: `nothing runs${at}` };
    case "APPROVE_TOOL":
    case "DENY_TOOL": {
      const key = callKey(command);
      const requestId = run.requests.get(key);
      if (requestId === undefined || (stored.requestId !== undefined && stored.requestId !== requestId))
        return { action: "stale", reason: `the approval request of call ${key} was answered` };
      if (run.phase === "parked") return { action: "resume" };
      if (run.phase === "running")
        return run.awaitingApproval.includes(key) ? { action: "apply" } : { action: "keep" };
      return { action: "stale", reason: `no run waits for call ${key}` };
    }
    case "ANSWER_TOOL": {
      const key = callKey(command);
      if (run.phase === "running" && run.awaitingClient.includes(key)) return { action: "apply" };
      return refuse(
        command.type,
        `tool call ${command.toolCallId}${at} does not wait for a client's result`,
        path,
        {
          toolCallId: command.toolCallId,
        },
      );
    }
    case "RAISE_BUDGET":
    case "CONTINUE_ONCE":
      if (!pausedAt(run.awaitingBudget, command))
        return { action: "stale", reason: `no run waits at a budget limit${at}` };
      return run.phase === "parked" ? { action: "resume" } : { action: "apply" };
  }
}

function refuse(
  command: string,
  why: string,
  agentPath: readonly string[],
  call: { toolCallId?: string } = {},
): CommandDecision {
  const code = command === "ANSWER_TOOL" ? "not_waiting" : "refused";
  return {
    action: "refuse",
    error: new CommandError(code, `${command}: ${why}`, { command, agentPath, ...call }),
  };
}

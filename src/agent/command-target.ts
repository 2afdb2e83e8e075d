import type { AnyActorRef } from "xstate";
import type { AddressedCommand } from "../commands/addressed-command.js";
import { CommandError } from "../commands/command-error.js";
import { continueRefusal } from "../loop/continue-refusal.js";
import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import { agentAt } from "./agent-tree.js";

/** Commands that start a run or replace the transcript: the agent they go to must be idle. */
const IDLE_ONLY = new Set(["PROMPT", "CONTINUE", "RESUME_CALLS", "RESET", "SET_MESSAGES"]);

/**
 * The agent actor a command goes to — the one at `command.agentPath` under `root` — once the command
 * is known to apply there. This is the one place that reads, from the machines' snapshots, who is
 * waiting for what at every depth.
 *
 * Contract: pure read of snapshots; throws `CommandError`: `no_agent` (nothing runs at the path),
 * `not_waiting` (`APPROVE_TOOL`/`DENY_TOOL` for a call not awaiting approval, `ANSWER_TOOL` for one not
 * awaiting the client, `RAISE_BUDGET`/`CONTINUE_ONCE` while no run waits at a budget limit), `busy`
 * (a command of an idle agent while a run is on), `refused` (`CONTINUE` with nothing to continue).
 * `ABORT` and `FAIL` apply to an idle agent as no-ops, so a repeated abort never fails.
 *
 * ```ts
 * const target = commandTarget(agent.actor, { type: "APPROVE_TOOL", toolCallId: "call_1" });
 * target.send({ type: "APPROVE_TOOL", toolCallId: "call_1" });
 * ```
 */
export function commandTarget(root: AnyActorRef, command: AddressedCommand): AnyActorRef {
  const agentPath = command.agentPath ?? [];
  const where = agentPath.length > 0 ? `the sub-agent at ${agentPath.join("/")}` : "the agent";
  const address = { command: command.type, agentPath };
  const agent = agentAt(root, agentPath);
  if (!agent)
    throw new CommandError(
      "no_agent",
      `${command.type}: no sub-agent runs at ${agentPath.join("/")}`,
      address,
    );
  const snapshot = agent.getSnapshot() as {
    context: AgentMachineContext;
    children: Record<string, AnyActorRef | undefined>;
    hasTag(tag: string): boolean;
  };
  switch (command.type) {
    case "APPROVE_TOOL":
    case "DENY_TOOL":
    case "ANSWER_TOOL": {
      const waitsIn = command.type === "ANSWER_TOOL" ? "awaitingClient" : "awaitingApproval";
      const call = snapshot.children[command.toolCallId]?.getSnapshot() as
        | { matches?: (state: string) => boolean }
        | undefined;
      if (!call?.matches?.(waitsIn)) throw callNotWaiting(command);
      return agent;
    }
    case "RAISE_BUDGET":
    case "CONTINUE_ONCE":
      if (!snapshot.context.run?.ledger?.paused)
        throw new CommandError(
          "not_waiting",
          `${command.type}: ${where} is not waiting at a budget limit`,
          address,
        );
      return agent;
    case "CONTINUE": {
      if (snapshot.hasTag("busy")) break;
      const { messages, steering, followUp } = snapshot.context;
      const refusal = continueRefusal(messages, steering.length + followUp.length);
      if (refusal) throw new CommandError("refused", `CONTINUE: ${refusal}`, address);
      return agent;
    }
    default:
      if (!IDLE_ONLY.has(command.type) || !snapshot.hasTag("busy")) return agent;
  }
  throw new CommandError(
    "busy",
    `${command.type}: ${where} is running; it takes this command only when idle`,
    address,
  );
}

/** A command that answers a waiting call. */
export type CallAnswer = Extract<AddressedCommand, { type: "APPROVE_TOOL" | "DENY_TOOL" | "ANSWER_TOOL" }>;

/**
 * The `not_waiting` error of a command answering a call that does not wait for it.
 *
 * Contract: pure; returns the error (the caller throws it).
 *
 * ```ts
 * throw callNotWaiting({ type: "APPROVE_TOOL", toolCallId: "call_1" });
 * ```
 */
export function callNotWaiting(command: CallAnswer): CommandError {
  const agentPath = command.agentPath ?? [];
  const waitsFor = command.type === "ANSWER_TOOL" ? "awaiting the client" : "awaiting approval";
  const of = agentPath.length > 0 ? ` of the sub-agent at ${agentPath.join("/")}` : "";
  return new CommandError(
    "not_waiting",
    `${command.type}: no tool call "${command.toolCallId}"${of} is ${waitsFor}`,
    {
      command: command.type,
      agentPath,
      toolCallId: command.toolCallId,
    },
  );
}

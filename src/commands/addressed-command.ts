import type { AgentCommand } from "../machines/agent/agent.events.js";

/**
 * Where a command goes in a tree of agents: the sub-agent at `agentPath` — the tool call ids from the
 * root down to it, as `tool_approval_request`, `state.awaitingApproval` and every sub-agent event give
 * it. Absent or `[]`: the root agent.
 */
export interface AgentAddress {
  agentPath?: readonly string[];
}

/**
 * A command of the agent machine's vocabulary (`AgentCommand`) addressed to any agent of the tree:
 * what every room sends and stores — `agent.send` / `harness.send`, the AG-UI command request, the
 * client store, PostgreSQL's command rows, the CLI and the worker. Plain JSON for the commands
 * `parseAgentCommand` accepts from outside.
 *
 * ```ts
 * const approve: AddressedCommand = { type: "APPROVE_TOOL", toolCallId: "call_2", agentPath: ["call_1"] };
 * ```
 */
export type AddressedCommand = AgentCommand & AgentAddress;

/**
 * The address as a command carries it: the path copied, absent for the root (an empty path is the
 * root's), so one address has one spelling.
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * const command: AddressedCommand = { type: "ABORT", ...addressOf({ agentPath: [] }) }; // { type: "ABORT" }
 * ```
 */
export function addressOf(address: AgentAddress): AgentAddress {
  return address.agentPath?.length ? { agentPath: [...address.agentPath] } : {};
}

/** A tool call anywhere in the tree: its id and the path of the agent that made it. */
export interface CallAddress extends AgentAddress {
  toolCallId: string;
}

/**
 * The one text key of a call anywhere in the tree: the path's ids and the call's id joined by `/`
 * (`"call_1/call_2"` for a sub-agent's call, `"call_2"` for the root's). Stored by PostgreSQL's run
 * rows, so it never changes.
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * callKey({ toolCallId: "r1", agentPath: ["s1", "b1"] }); // "s1/b1/r1"
 * ```
 */
export function callKey(call: CallAddress): string {
  return [...(call.agentPath ?? []), call.toolCallId].join("/");
}

/**
 * The call a key names (the inverse of {@link callKey}).
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * callOfKey("s1/b1/r1"); // { toolCallId: "r1", agentPath: ["s1", "b1"] }
 * ```
 */
export function callOfKey(key: string): CallAddress {
  const ids = key.split("/");
  const toolCallId = ids.pop()!;
  return ids.length > 0 ? { toolCallId, agentPath: ids } : { toolCallId };
}

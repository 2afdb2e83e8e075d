import type { AnyActorRef } from "xstate";
import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import type { ToolCallContext } from "../machines/tool-call/tool-call.context.js";
import type { WaitingToolCall } from "./agent-state.js";

// An agent and its sub-agents form a tree of actors: agent → tool call (id = tool call id) → its child
// agent (invoked as "agent") → … An `agentPath` names a node by the tool call ids on the way down.

interface NodeSnapshot {
  value?: unknown;
  context?: unknown;
  children?: Record<string, AnyActorRef | undefined>;
}

const snapshotOf = (ref: AnyActorRef) => ref.getSnapshot() as NodeSnapshot;

/**
 * The actor of the agent at `path` under `root` (`root` itself for an empty path), or `undefined`
 * when no call on the way runs a child agent now.
 *
 * Contract: pure read of snapshots; never throws.
 *
 * ```ts
 * const message = { role: "user" as const, content: "Only the last quarter, please", timestamp: Date.now() };
 * agentAt(agent.actor, ["call_1", "call_7"])?.send({ type: "STEER", message });
 * ```
 */
export function agentAt(root: AnyActorRef, path: readonly string[]): AnyActorRef | undefined {
  let agent: AnyActorRef | undefined = root;
  for (const toolCallId of path) {
    const call: AnyActorRef | undefined = agent && snapshotOf(agent).children?.[toolCallId];
    agent = call && snapshotOf(call).children?.agent;
  }
  return agent;
}

/**
 * The calls of the tree under `root` whose actor is in `state`, in source order, each sub-agent's
 * calls right after the call that runs it (with their `agentPath` relative to `root`).
 *
 * Contract: pure read of snapshots; never throws.
 */
export function waitingCalls(
  root: AnyActorRef,
  state: "awaitingApproval" | "awaitingClient",
  path: string[] = [],
): WaitingToolCall[] {
  const snapshot = snapshotOf(root);
  const calls = (snapshot.context as AgentMachineContext | undefined)?.run?.batch?.calls ?? [];
  const waiting: WaitingToolCall[] = [];
  for (const call of calls) {
    const child = snapshot.children?.[call.id];
    if (!child) continue;
    const callSnapshot = snapshotOf(child);
    const context = callSnapshot.context as ToolCallContext | undefined;
    if (callSnapshot.value === state && context)
      waiting.push({
        toolCallId: call.id,
        toolName: call.name,
        args: context.args,
        ...(path.length > 0 ? { agentPath: path } : {}),
      });
    const agent = callSnapshot.children?.agent;
    if (agent) waiting.push(...waitingCalls(agent, state, [...path, call.id]));
  }
  return waiting;
}

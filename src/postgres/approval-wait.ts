import type { PersistedAgent, PersistedAgentMachine, PersistedChild } from "../agent/agent-snapshot.js";

/**
 * A tool call waiting for approval somewhere in an agent tree: its id, and — for a sub-agent's call —
 * the tool call ids from the root down to the agent that made it (as `harness.awaitingApproval` gives it).
 */
export interface ApprovalRequest {
  toolCallId: string;
  agentPath?: string[];
}

/**
 * The key a waiting call is stored and matched under (`parked_runs.awaiting`, decisions): the path and
 * the id joined by "/" — a root call's key is its id. Tool call ids never hold "/" (agent ids use it).
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * approvalKey({ toolCallId: "r1", agentPath: ["s1", "b1"] }); // "s1/b1/r1"
 * ```
 */
export function approvalKey(request: ApprovalRequest): string {
  return [...(request.agentPath ?? []), request.toolCallId].join("/");
}

/** The request a key names (the inverse of {@link approvalKey}). Contract: pure; never throws. */
export function approvalRequestOf(key: string): ApprovalRequest {
  const parts = key.split("/");
  const toolCallId = parts.pop()!;
  return parts.length > 0 ? { toolCallId, agentPath: parts } : { toolCallId };
}

/** Where a persisted agent tree stands on approvals: the calls waiting, and whether anything else runs. */
export interface ApprovalWait {
  /** Calls waiting for approval at every depth, in source order, each sub-agent's after its call. */
  waiting: ApprovalRequest[];
  /** Whether every unsettled call of the tree waits for approval (and at least one does). */
  onlyApprovals: boolean;
}

/**
 * Reads a persisted agent (`agent.persist()`, any depth): which calls wait for approval, and whether
 * the tree waits for nothing else — a call running a sub-agent counts as waiting only when that
 * sub-agent's tree waits only for approvals. Such a tree can be parked and finished on any worker.
 *
 * Contract: pure read of the snapshot; never throws.
 */
export function approvalWaitOf(persisted: PersistedAgent): ApprovalWait {
  const { waiting, busy } = walk(persisted.snapshot, []);
  return { waiting, onlyApprovals: waiting.length > 0 && !busy };
}

function walk(agent: PersistedAgentMachine, path: string[]): { waiting: ApprovalRequest[]; busy: boolean } {
  const waiting: ApprovalRequest[] = [];
  let busy = false;
  for (const [toolCallId, call] of Object.entries(agent.children ?? {}) as [string, PersistedChild][]) {
    const { status, value } = call.snapshot;
    if (status === "done") continue;
    if (value === "awaitingApproval") {
      waiting.push(path.length > 0 ? { toolCallId, agentPath: path } : { toolCallId });
      continue;
    }
    const child = call.snapshot.children?.agent as PersistedChild | undefined;
    if (value !== "delegating" || !child) {
      busy = true;
      continue;
    }
    const below = walk(child.snapshot as unknown as PersistedAgentMachine, [...path, toolCallId]);
    waiting.push(...below.waiting);
    if (below.busy || below.waiting.length === 0) busy = true;
  }
  return { waiting, busy };
}

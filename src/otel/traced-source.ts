import type { AnyActorRef } from "xstate";
import { agentAt } from "../agent/agent-tree.js";
import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import type { Model } from "../types/model.js";
import type { TracedSource } from "./run-tracer.js";

/** What the traced agent itself (the root of its tree) tells a tracer. */
export interface TracedRoot {
  /** The root agent's actor, once it exists (its sub-agents are found under it). */
  actor(): AnyActorRef | undefined;
  model(): Model;
  systemPrompt(): string;
  runAborted(): boolean;
}

/**
 * The `TracedSource` of an agent tree: the root's answers for the root, and for a sub-agent what its
 * actor's context holds (found by `agentPath` under the root's actor); the root's model and prompt
 * when the sub-agent is gone already.
 *
 * Contract: never throws; reads snapshots only.
 *
 * ```ts
 * const source = treeSource({
 *   actor: () => agent.actor,
 *   model: () => agent.state.model,
 *   systemPrompt: () => agent.state.systemPrompt,
 *   runAborted: () => false,
 * });
 * source.requestModel(["call_1"]); // the sub-agent's model
 * ```
 */
export function treeSource(root: TracedRoot): TracedSource {
  const contextAt = (path: readonly string[]) => {
    const actor = root.actor();
    const agent = path.length > 0 && actor ? agentAt(actor, path) : undefined;
    return (agent?.getSnapshot() as { context?: AgentMachineContext } | undefined)?.context;
  };
  return {
    requestModel: (path) => contextAt(path)?.model ?? root.model(),
    systemPrompt: (path) => contextAt(path)?.systemPrompt ?? root.systemPrompt(),
    runAborted: () => root.runAborted(),
  };
}

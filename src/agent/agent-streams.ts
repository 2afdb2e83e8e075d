import { Observable } from "rxjs";
import type { AnyActorRef } from "xstate";
import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import type { AgentEvent } from "../types/events.js";
import { type AgentMachineState, type LiveProgress, reduceLiveProgress } from "./agent-state.js";
import { waitingCalls } from "./agent-tree.js";

/**
 * Every AgentEvent of an agent actor — a root actor, one an app machine invokes or spawns, or a
 * sub-agent (`agentAt(root, path)`) — as an RxJS Observable: the actor's `on("*")` listeners, in
 * order. It completes when the actor stops (or fails).
 *
 * Contract: never throws; each subscription adds one listener and removes it on unsubscribe.
 *
 * ```ts
 * import { filter } from "rxjs";
 * agentEvents$(agent.actor).pipe(filter((event) => event.type === "agent_end")).subscribe(console.log);
 * ```
 */
export function agentEvents$(agent: AnyActorRef): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const listener = agent.on("*", (event: AgentEvent) => subscriber.next(event));
    const life = agent.subscribe({
      complete: () => subscriber.complete(),
      error: () => subscriber.complete(),
    });
    return () => {
      listener.unsubscribe();
      life.unsubscribe();
    };
  });
}

/**
 * The state of an agent actor as data, now and after every change of its snapshot or of its live
 * progress (a reply starting or ending, a tool call starting or ending; not each streamed delta — use
 * `agentEvents$` for those). It agrees with the machine: `isStreaming` is its `busy` tag, so at
 * `agent_end` it is already `false`. It completes when the actor stops.
 *
 * Contract: never throws; the arrays are the machine's (do not mutate).
 *
 * ```ts
 * agentState$(agent.actor).subscribe((state) => console.log(state.messages.length, state.awaitingApproval));
 * ```
 */
export function agentState$(agent: AnyActorRef): Observable<AgentMachineState> {
  return new Observable<AgentMachineState>((subscriber) => {
    const progress: LiveProgress = { streamingMessage: undefined, pendingToolCalls: new Set() };
    const publish = () => subscriber.next(agentMachineStateOf(agent, progress));
    publish();
    const listener = agent.on("*", (event: AgentEvent) => {
      if (event.agentPath === undefined && reduceLiveProgress(progress, event)) publish();
    });
    const life = agent.subscribe({
      next: publish,
      complete: () => subscriber.complete(),
      error: () => subscriber.complete(),
    });
    return () => {
      listener.unsubscribe();
      life.unsubscribe();
    };
  });
}

/**
 * The state of `agent` as data, with the live progress the events gave.
 *
 * Contract: pure read of snapshots; never throws.
 */
export function agentMachineStateOf(agent: AnyActorRef, progress: LiveProgress): AgentMachineState {
  const snapshot = agent.getSnapshot() as { context: AgentMachineContext; hasTag(tag: string): boolean };
  const context = snapshot.context;
  return {
    systemPrompt: context.systemPrompt,
    model: context.model,
    thinkingLevel: context.thinkingLevel,
    toolNames: context.toolNames,
    messages: context.messages,
    isStreaming: snapshot.hasTag("busy"),
    streamingMessage: progress.streamingMessage,
    pendingToolCalls: progress.pendingToolCalls,
    errorMessage: context.errorMessage,
    awaitingApproval: waitingCalls(agent, "awaitingApproval"),
    awaitingClient: waitingCalls(agent, "awaitingClient"),
    activeAgent: context.activeAgent,
    budget: context.run?.ledger
      ? {
          limits: context.run.ledger.budget,
          usage: context.run.ledger.usage,
          paused: context.run.ledger.paused,
        }
      : undefined,
  };
}

import type { InspectionEvent } from "xstate";
import { stateValueText } from "../otel/state-value-text.js";
import { transitionLabel } from "../testing/transition-coverage.js";

/** The name {@link StatePathStep.actor} gives the agent machine itself (its children keep their ids). */
export const AGENT_ACTOR = "agent";

/**
 * One state an actor of the run entered: the agent machine (`actor: "agent"`) or one of its child
 * machines (a tool call's actor, named by its tool call id), the state as dotted text
 * (`"running.streaming"`), and the event that led there.
 */
export interface StatePathStep {
  actor: string;
  state: string;
  event: string;
}

/** What a run's inspection recorded: the states entered, and the agent machine's transitions taken. */
export interface StatePathRecording {
  readonly path: StatePathStep[];
  /** The agent machine's transitions taken, in order, named by `transitionLabel` (agentchart/testing). */
  readonly transitions: string[];
  /** The `inspect` observer that records them (pass it as the agent's `inspect` option). */
  readonly inspect: (event: InspectionEvent) => void;
}

/**
 * Records the states a run's machines enter and the agent machine's transitions, through XState's
 * inspection API (`@xstate.snapshot` for states, `@xstate.microstep` for transitions).
 *
 * Contract: the observer never throws; only machine actors (snapshots with a state value) are recorded,
 * and a step is recorded only when the actor's state changed.
 *
 * @example
 * ```ts
 * import { Agent } from "agentchart";
 * const recording = recordStatePath();
 * const agent = new Agent({ model, streamFn, inspect: recording.inspect });
 * await agent.prompt("Hello");
 * recording.path.map((step) => step.state); // ["idle", "running.preparingTurn", …]
 * ```
 */
export function recordStatePath(): StatePathRecording {
  const path: StatePathStep[] = [];
  const transitions: string[] = [];
  const lastState = new Map<string, string>();
  const inspect = (event: InspectionEvent) => {
    const isAgent = event.actorRef.sessionId === event.rootId;
    if (event.type === "@xstate.snapshot") {
      const value = (event.snapshot as { value?: unknown }).value;
      if (value === undefined || value === null) return;
      const actor = isAgent
        ? AGENT_ACTOR
        : ((event.actorRef as { id?: string }).id ?? event.actorRef.sessionId);
      const state = stateValueText(value as Parameters<typeof stateValueText>[0]);
      if (lastState.get(actor) === state) return;
      lastState.set(actor, state);
      path.push({ actor, state, event: event.event.type });
    } else if (event.type === "@xstate.microstep" && isAgent) {
      for (const transition of event._transitions) transitions.push(transitionLabel(transition));
    }
  };
  return { path, transitions, inspect };
}

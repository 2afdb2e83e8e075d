import { type AnyEventObject, type AnyMachineSnapshot, type AnyStateMachine, createEmptyActor } from "xstate";
import { adjacencyMapToArray, getAdjacencyMap, getShortestPaths } from "xstate/graph";

export const stateKey = (state: AnyMachineSnapshot) => JSON.stringify([state.value, state.context]);

/**
 * One generated test: from the model's initial state, the shortest path to the edge's source state
 * (each step: an event and the state it leads to), then the edge itself.
 */
export interface EdgeCase<TState extends AnyMachineSnapshot, TEvent extends AnyEventObject> {
  name: string;
  initial: TState;
  path: { event: TEvent; state: TState }[];
  source: TState;
  event: TEvent;
  target: TState;
}

/**
 * Every edge of the model's adjacency map (events a state does not accept are left out), each with
 * the shortest path that reaches its source state.
 */
export function edgeCases<TState extends AnyMachineSnapshot, TEvent extends AnyEventObject>(
  model: AnyStateMachine,
  events: TEvent[],
  describeState: (state: TState) => string,
): EdgeCase<TState, TEvent>[] {
  const options = {
    events,
    filterEvents: (state: AnyMachineSnapshot, event: AnyEventObject) => state.can(event),
  };
  const paths = new Map(
    getShortestPaths(model, options).map((path) => [
      stateKey(path.state),
      path.steps.filter((step) => (step.event.type as string) !== "xstate.init") as EdgeCase<
        TState,
        TEvent
      >["path"],
    ]),
  );
  return adjacencyMapToArray(getAdjacencyMap(model, options)).map((edge) => {
    const { type, ...payload } = edge.event;
    const detail = Object.values(payload).join(",");
    const source = edge.state as TState;
    const target = edge.nextState as TState;
    return {
      name: `${describeState(source)} —${type}${detail ? `(${detail})` : ""}→ ${describeState(target)}`,
      initial: model.getInitialSnapshot(createEmptyActor() as never) as TState,
      path: paths.get(stateKey(source)) ?? [],
      source,
      event: edge.event as TEvent,
      target,
    };
  });
}

/** Every reachable state of the model, with the shortest path (events and states) that reaches it. */
export function stateCases<TState extends AnyMachineSnapshot, TEvent extends AnyEventObject>(
  model: AnyStateMachine,
  events: TEvent[],
  describeState: (state: TState) => string,
): { name: string; path: EdgeCase<TState, TEvent>["path"]; state: TState }[] {
  const options = {
    events,
    filterEvents: (state: AnyMachineSnapshot, event: AnyEventObject) => state.can(event),
  };
  return getShortestPaths(model, options).map((path) => ({
    name: describeState(path.state as TState),
    path: path.steps.filter((step) => (step.event.type as string) !== "xstate.init") as EdgeCase<
      TState,
      TEvent
    >["path"],
    state: path.state as TState,
  }));
}

import type { AgentClient } from "../client/agent-client.js";
import type { AgentClientContext } from "../client/agent-client-state.js";
import { useSelector } from "./store-react-peer.js";

/**
 * Reads a slice of an agent client's context in a React component, re-rendering only when that slice
 * changes (`compare`, default `Object.is`): a component that selects `status` does not re-render for
 * each streamed delta. Without a selector it returns the whole context (and re-renders on every event).
 *
 * Contract: a React hook (call it during render); never throws by itself; `selector` must be pure.
 *
 * ```tsx
 * const status = useAgent(client, (context) => context.status);
 * const streaming = useAgent(client, (context) => context.streaming?.content);
 * ```
 */
export function useAgent<TSelected = AgentClientContext>(
  client: AgentClient,
  selector?: (context: AgentClientContext) => TSelected,
  compare?: (previous: TSelected | undefined, next: TSelected) => boolean,
): TSelected {
  return useSelector(
    client,
    (snapshot) => (selector ? selector(snapshot.context) : (snapshot.context as TSelected)),
    compare,
  );
}

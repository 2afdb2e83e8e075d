import type { InspectionEvent, Observer } from "xstate";

/** An XState inspection observer, as `createActor`'s `inspect` option takes it. */
export type InspectOption = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/**
 * One inspection observer that gives each event to `first`, then to `inspect` (when given).
 *
 * Contract: synchronous; never throws itself (the observers' throws reach XState, which reports them).
 *
 * ```ts
 * import { createActor } from "xstate";
 * import { agentMachine } from "agentchart/machines";
 * const log = (event: { type: string }) => console.log(event.type);
 * createActor(agentMachine, { input: { model }, inspect: chainInspect(recording.inspect, log) });
 * ```
 */
export function chainInspect(
  first: (event: InspectionEvent) => void,
  inspect: InspectOption | undefined,
): (event: InspectionEvent) => void {
  if (!inspect) return first;
  const forward = typeof inspect === "function" ? inspect : (event: InspectionEvent) => inspect.next?.(event);
  return (event) => {
    first(event);
    forward(event);
  };
}

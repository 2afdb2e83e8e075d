/** The xstate versions agentchart supports (its peer range). */
export const SUPPORTED_XSTATE = "^5.33.0";

/**
 * Checks that the installed xstate has what agentchart's machines use — `setup`, `enqueueActions`,
 * `emit`, `stateIn`, `initialTransition` — given the module's exports: an xstate 4, or a 5.x older than
 * agentchart supports, gets an error naming the supported versions instead of failing later.
 *
 * Contract: synchronous; throws `Error` naming what is missing and the supported range.
 *
 * ```ts
 * import * as xstate from "xstate";
 * requireXState(xstate);
 * ```
 */
export function requireXState(exports: Record<string, unknown>): void {
  const missing = ["setup", "enqueueActions", "emit", "stateIn", "initialTransition"].filter(
    (name) => typeof exports[name] !== "function",
  );
  if (missing.length > 0)
    throw new Error(
      `agentchart needs xstate ${SUPPORTED_XSTATE} (a peer dependency: install it next to agentchart); the installed xstate has no ${missing.join(", ")}`,
    );
}

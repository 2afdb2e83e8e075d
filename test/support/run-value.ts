/**
 * An agent snapshot's state value without the compound `running` state around a run's states — the
 * values the abstract models of the model-based tests name (`"executingTools"`, `{ streaming: … }`).
 *
 * Contract: pure; any other value is returned as it is.
 */
export function unwrapRunning(value: unknown): unknown {
  return typeof value === "object" && value !== null && "running" in value
    ? (value as { running: unknown }).running
    : value;
}

/**
 * An agent snapshot's state value as the abstract models of the model-based tests name it: without
 * the compound `running` state around a run's states, and `executingTools` without its substates
 * (`working` / `awaitingHuman`, which the models read from the calls instead).
 *
 * Contract: pure; any other value is returned as it is.
 */
export function unwrapRunning(value: unknown): unknown {
  const inner =
    typeof value === "object" && value !== null && "running" in value
      ? (value as { running: unknown }).running
      : value;
  return typeof inner === "object" && inner !== null && "executingTools" in inner ? "executingTools" : inner;
}

import { Recording } from "../replay/recording.js";
import { type AgentActor, type PersistedAgent, persistAgent } from "./agent-snapshot.js";

/** The `record` option of `Agent` and `AgentHarness`: `true` for a new recording, or one to fill. */
export type RecordOption = boolean | Recording<PersistedAgent>;

/**
 * The recording an agent with `record` fills: a new one, whose steps hold `persist()`'s format, for
 * `true`; the given one; none without `record`.
 *
 * Contract: synchronous; never throws.
 *
 * ```ts
 * const recording = agentRecordingOf(true, "agent");
 * ```
 */
export function agentRecordingOf(
  record: RecordOption | undefined,
  source: "agent" | "harness",
): Recording<PersistedAgent> | undefined {
  if (!record) return undefined;
  return record === true ? new Recording<PersistedAgent>({ source, persist: persistAgentActor }) : record;
}

/** `persistAgent` of any actor ref (the recording's step snapshots). */
export function persistAgentActor(actor: unknown): PersistedAgent {
  return persistAgent(actor as AgentActor);
}

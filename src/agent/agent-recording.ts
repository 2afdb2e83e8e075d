import { Recording } from "../replay/recording.js";
import { chainInspect, type InspectOption } from "../xstate/chain-inspect.js";
import { type AgentActor, type PersistedAgent, persistAgent } from "./agent-snapshot.js";

/** The `record` option of `Agent` and `AgentHarness`: `true` for a new recording, or one to fill. */
export type RecordOption = boolean | Recording<PersistedAgent>;

/**
 * The recording an agent with `record` fills — a new one, whose steps hold `persist()`'s format, for
 * `true` — and the inspection observer its actor gets (the recording's, then `inspect`).
 *
 * Contract: synchronous; never throws; `undefined` recording (and `inspect` unchanged) without `record`.
 *
 * ```ts
 * const { recording, inspect } = agentRecordingOf(true, undefined, "agent");
 * ```
 */
export function agentRecordingOf(
  record: RecordOption | undefined,
  inspect: InspectOption | undefined,
  source: "agent" | "harness",
): { recording: Recording<PersistedAgent> | undefined; inspect: InspectOption | undefined } {
  if (!record) return { recording: undefined, inspect };
  const recording =
    record === true
      ? new Recording<PersistedAgent>({ source, persist: (actor) => persistAgent(actor as AgentActor) })
      : record;
  return { recording, inspect: chainInspect(recording.inspect, inspect) };
}

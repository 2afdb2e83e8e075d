/** Where a replay left the recording: the first request, call, result or state that differs from it. */
export interface ReplayDivergence {
  /** What differs: a model request, a tool call's arguments, a `"verify"` tool's result, the run's state. */
  what: "model_request" | "tool_call" | "tool_result" | "state";
  /** The recording entry compared with (0-based among the entries; its JSONL line is `step + 2`). */
  step: number;
  /** The agent it happened in: tool call ids from the root down (empty for the root agent). */
  agentPath: string[];
  /** What changed, one readable line each (e.g. `system prompt: "a" → "b"`, `tool spec "clock": description …`). */
  differences: string[];
  /** The recorded value (canonical request, arguments, result, state). */
  expected: unknown;
  /** The value of this run. */
  actual: unknown;
}

/**
 * A replay left its recording (see docs/replay.md): `divergence` says where and what changed. A
 * replayed model throws it for a request the recording does not hold (the run ends with it as a
 * failed reply), a replayed tool for a call it does not hold.
 */
export class ReplayDivergenceError extends Error {
  override readonly name = "ReplayDivergenceError";
  readonly code = "replay_divergence";
  readonly divergence: ReplayDivergence;
  constructor(divergence: ReplayDivergence) {
    super(divergenceText(divergence));
    this.divergence = divergence;
  }
}

const SUBJECT: Record<ReplayDivergence["what"], string> = {
  model_request: "the model request",
  tool_call: "the tool call",
  tool_result: "the tool's result",
  state: "the run's state",
};

function divergenceText(divergence: ReplayDivergence): string {
  const agent =
    divergence.agentPath.length > 0 ? `sub-agent ${divergence.agentPath.join("/")}` : "the root agent";
  return `Replay diverged at step ${divergence.step} (line ${divergence.step + 2}) of ${agent}: ${SUBJECT[divergence.what]} differs from the recording — ${divergence.differences.join("; ")}`;
}

import type { AgentMessage } from "../types/messages.js";

/** One tool call of a trajectory: the tool's name and, when they matter, its arguments. */
export interface TrajectoryStep {
  name: string;
  arguments?: Record<string, unknown>;
}

/**
 * One case of an eval dataset: what the agent is asked, and what a good run does. Plain JSON data, one
 * line of a JSONL dataset file (see docs/evals.md).
 */
export interface EvalCase {
  /** Unique in its dataset; names the case in every report. */
  id: string;
  /** The prompt, or the messages of the conversation so far (the last one the user's). */
  input: string | AgentMessage[];
  /** The expected final text (scored by `exactText`, or read by your own scorers). */
  expectedOutput?: string;
  /** The tool calls a good run makes (scored by `trajectoryMatch`). */
  expectedTrajectory?: TrajectoryStep[];
  /** Anything else: tags, difficulty, the session or recording it came from. */
  metadata?: Record<string, unknown>;
}

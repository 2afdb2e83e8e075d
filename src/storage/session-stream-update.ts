import type { SessionEntry } from "./entries.js";
import type { ReplyDelta } from "./reply-delta.js";

/**
 * Where a session's run stands in a store that workers serve: `queued` (a command waits for a
 * worker), `running` (a worker holds the session), `awaiting_approval` (persisted, no worker holds
 * it), `awaiting_budget` (persisted at a budget limit or loop breaker: `RAISE_BUDGET`, `CONTINUE_ONCE`
 * or `ABORT` go on), `idle`.
 */
export type SessionRunState = "queued" | "running" | "awaiting_approval" | "awaiting_budget" | "idle";

/**
 * What watching a served session reports: a new entry (`seq`, its number; `position`, its place in
 * the stream), a recorded delta of the reply streaming after entry `afterSeq`, or a run-state
 * change. Positions order entries and deltas in one sequence; `reply` names one streaming of a
 * reply: deltas with a new `reply` after the same entry mean the reply was abandoned (its worker
 * died) and is being made again.
 */
export type SessionStreamUpdate =
  | { type: "entry"; seq: number; position: number; entry: SessionEntry }
  | { type: "delta"; position: number; afterSeq: number; reply: string; delta: ReplyDelta }
  | { type: "run_state"; state: SessionRunState };

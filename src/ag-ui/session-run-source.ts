import type { Observable } from "rxjs";
import type { SessionStreamUpdate } from "../storage/session-stream-update.js";

/** A run started by id in a session store: where it begins in the session's stream, where it ends. */
export interface StoredRun {
  runId: string;
  /** The session's entry count when the run was started: its entries come after this one. */
  afterSeq: number;
  /** The stream position of entry `afterSeq` (0 for an empty session). */
  afterPosition: number;
  /** Where the next run of the session began, if one did (this run's entries are at most this one). */
  endSeq?: number;
}

/**
 * What {@link createAgUiHandler} needs of a session store whose sessions are run by workers
 * elsewhere (the `agentchart/postgres` client fits as it is): runs started once by id, the commands,
 * and a watch that replays entries and the recorded deltas of the streaming reply from any process.
 */
export interface SessionRunSource {
  /**
   * Starts the run `runId` with `prompt` once (a run that exists is returned, `started: false`).
   * Rejects with a `SessionError` "locked" while the session runs another run.
   */
  startRun(sessionId: string, runId: string, prompt: string): Promise<{ run: StoredRun; started: boolean }>;
  /** The run `runId`, if it was started. */
  run(sessionId: string, runId: string): Promise<StoredRun | undefined>;
  /** Entries, recorded reply deltas and run states after `afterSeq`, in stream order, then live. */
  watch(sessionId: string, options: { afterSeq: number; deltas: true }): Observable<SessionStreamUpdate>;
  /** The root agent's tool calls that wait for approval now. */
  awaitingApproval(sessionId: string): Promise<string[]>;
  /**
   * Approves a waiting call (a sub-agent's at `options.agentPath`). Rejects with a `SessionError`
   * "not_awaiting" when it does not wait (nothing stored), "not_found" for an unknown session,
   * "invalid_id" for a malformed id — as the other commands do for the last two.
   */
  approve(sessionId: string, toolCallId: string, options?: { agentPath?: readonly string[] }): Promise<void>;
  /** Denies a waiting call; rejects as `approve` does. */
  deny(
    sessionId: string,
    toolCallId: string,
    reason?: string,
    options?: { agentPath?: readonly string[] },
  ): Promise<void>;
  steer(sessionId: string, text: string): Promise<void>;
  followUp(sessionId: string, text: string): Promise<void>;
  abort(sessionId: string): Promise<void>;
}

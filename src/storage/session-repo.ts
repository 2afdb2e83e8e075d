import type { Session } from "./session.js";

/** Options of {@link SessionRepo.create}. */
export interface CreateSessionOptions {
  /** Working directory the session belongs to (default: the process cwd, or "/" without one). */
  cwd?: string;
  /** Explicit session id (`already_exists` if taken, `invalid_id` if unsafe); default a random UUID. */
  id?: string;
  /** JSON-serialisable data stored in the header. */
  metadata?: Record<string, unknown>;
  /**
   * The session this one belongs to (header `parentSession`): for a sub-agent's session, the path (JSONL)
   * or id of the session whose agent called it.
   */
  parentSession?: string;
  /** The tool call in `parentSession` that ran this session's agent (header `parentToolCallId`). */
  parentToolCallId?: string;
}

/** Options of {@link SessionRepo.open}. */
export interface OpenSessionOptions {
  /**
   * Skip malformed middle lines instead of failing with `invalid_entry`; skipped lines are listed in
   * `session.recovered` and kept beside the file.
   */
  recover?: boolean;
}

/** Options of {@link SessionRepo.fork}. */
export interface ForkSessionOptions {
  /** The entry to fork at (default: the source's leaf). `invalid_fork_target` if it does not exist. */
  entryId?: string;
  /** "at" keeps the target (default); "before" keeps only its ancestors (re-asking a prompt). */
  position?: "before" | "at";
}

/** What `list()` tells about a stored session without opening it. */
export interface SessionInfo {
  id: string;
  cwd: string;
  createdAt: Date;
  modifiedAt: Date;
  name?: string;
  parentSession?: string;
  /** A sub-agent's session: the tool call of `parentSession` that ran it. */
  parentToolCallId?: string;
  /** File path (JSONL repos). */
  path?: string;
}

/**
 * A store of sessions. `create`, `open` and `fork` return an open {@link Session} that holds the
 * session's single writer claim until `close()`: a second open of the same session gets
 * `SessionError("locked")`.
 */
export interface SessionRepo {
  /** Creates and opens a new session with only a header. */
  create(options?: CreateSessionOptions): Promise<Session>;
  /** Opens a stored session for reading and appending (`not_found`, `locked`, `invalid_entry`). */
  open(id: string, options?: OpenSessionOptions): Promise<Session>;
  /** Stored sessions, newest (last modified) first; only those of `cwd` if given. */
  list(options?: { cwd?: string }): Promise<SessionInfo[]>;
  /** Deletes a session; deleting a missing one succeeds. `locked` while a writer has it open. */
  delete(id: string): Promise<void>;
  /**
   * Creates a session holding the path root → target of `sourceId` (ids preserved, header
   * `parentSession` pointing at the source) and opens it. Reading the source takes no lock.
   */
  fork(sourceId: string, options?: ForkSessionOptions): Promise<Session>;
}

/** Test hook shared by the built-in repos: return an error to make the next write of a session fail. */
export type WriteFault = (sessionId: string) => Error | undefined;

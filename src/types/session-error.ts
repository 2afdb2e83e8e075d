/**
 * Why a session operation failed. `fenced`: the writer lost its lease on a shared session (another
 * writer took over), so the write was not stored. `not_awaiting`: a decision named a tool call that
 * does not wait for approval now (nothing was stored).
 */
export type SessionErrorCode =
  | "not_found"
  | "already_exists"
  | "invalid_entry"
  | "invalid_fork_target"
  | "locked"
  | "fenced"
  | "storage"
  | "invalid_id"
  | "not_awaiting";

/**
 * Error thrown (or rejected) by sessions and session repositories. Match on `code`, not on the message.
 * `cause` carries the underlying error (for example the `fs` error of a `storage` failure).
 */
export class SessionError extends Error {
  override readonly name = "SessionError";
  readonly code: SessionErrorCode;

  constructor(code: SessionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `error` is a {@link SessionError}, optionally with the given code. */
export function isSessionError(error: unknown, code?: SessionErrorCode): error is SessionError {
  return error instanceof SessionError && (code === undefined || error.code === code);
}

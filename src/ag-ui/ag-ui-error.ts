import type { CommandErrorCode } from "../commands/command-error.js";

/**
 * Why the AG-UI endpoint refused a request; each code has its HTTP status (see `AG_UI_ERROR_STATUS`).
 * A command that cannot apply is refused with the agent's `CommandError` instead (see
 * `COMMAND_ERROR_STATUS`).
 */
export type AgUiErrorCode =
  | "invalid_request"
  | "method_not_allowed"
  | "unsupported_media_type"
  | "origin_not_allowed"
  | "unauthenticated"
  | "forbidden"
  | "body_too_large"
  | "limit_exceeded"
  | "too_many_threads"
  | "unknown_thread"
  | "thread_busy"
  | "no_new_message"
  | "awaiting_client"
  | "internal";

/** The HTTP status answering each {@link AgUiErrorCode}. */
export const AG_UI_ERROR_STATUS: Readonly<Record<AgUiErrorCode, number>> = {
  invalid_request: 400,
  method_not_allowed: 405,
  unsupported_media_type: 415,
  origin_not_allowed: 403,
  unauthenticated: 401,
  forbidden: 403,
  body_too_large: 413,
  limit_exceeded: 413,
  too_many_threads: 503,
  unknown_thread: 404,
  thread_busy: 409,
  no_new_message: 400,
  awaiting_client: 409,
  internal: 500,
};

/**
 * The HTTP status answering each `CommandError` code: 400 for a request that is not a command, 409
 * for a command the agent cannot apply now.
 */
export const COMMAND_ERROR_STATUS: Readonly<Record<CommandErrorCode, number>> = {
  invalid_command: 400,
  no_agent: 409,
  not_waiting: 409,
  busy: 409,
  refused: 409,
};

/** A request the AG-UI endpoint refuses; answered as JSON `{ error: { code, message } }`. */
export class AgUiError extends Error {
  override readonly name = "AgUiError";
  readonly code: AgUiErrorCode;

  constructor(code: AgUiErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

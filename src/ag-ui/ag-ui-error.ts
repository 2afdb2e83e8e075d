/** Why the AG-UI endpoint refused a request; each code has its HTTP status (see `AG_UI_ERROR_STATUS`). */
export type AgUiErrorCode =
  | "invalid_request"
  | "method_not_allowed"
  | "unknown_thread"
  | "thread_busy"
  | "no_new_message"
  | "not_awaiting"
  | "awaiting_client"
  | "invalid_state";

/** The HTTP status answering each {@link AgUiErrorCode}. */
export const AG_UI_ERROR_STATUS: Readonly<Record<AgUiErrorCode, number>> = {
  invalid_request: 400,
  method_not_allowed: 405,
  unknown_thread: 404,
  thread_busy: 409,
  no_new_message: 400,
  not_awaiting: 409,
  awaiting_client: 409,
  invalid_state: 409,
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

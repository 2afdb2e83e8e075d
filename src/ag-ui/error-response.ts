import { AG_UI_ERROR_STATUS, AgUiError } from "./ag-ui-error.js";

/**
 * Told of each internal error of the endpoint (a failing `agentFor`, harness or session store, a bug),
 * with the correlation id the client was given instead of the error. It must not throw (a throw is
 * ignored).
 */
export type AgUiErrorListener = (error: unknown, details: { correlationId: string }) => void;

/** The default {@link AgUiErrorListener}: logs the error with its correlation id on `console.error`. */
export const logAgUiError: AgUiErrorListener = (error, { correlationId }) => {
  console.error(`agentchart/ag-ui: internal error (correlation id ${correlationId})`, error);
};

/**
 * Reports an internal error to `onError` and returns the text a client may see in its place: no
 * message, path or stack of the error, only its correlation id.
 *
 * Contract: synchronous; never throws (a throwing listener is ignored).
 *
 * ```ts
 * const text = reportInternalError(new Error("boom"), logAgUiError); // "Internal error (correlation id …)"
 * ```
 */
export function reportInternalError(
  error: unknown,
  onError: AgUiErrorListener,
): { message: string; correlationId: string } {
  const correlationId = globalThis.crypto.randomUUID();
  try {
    onError(error, { correlationId });
  } catch {
    // The listener's own failure must not turn a refusal into a rejection.
  }
  return {
    message: `Internal error: the server's log has it under correlation id ${correlationId}`,
    correlationId,
  };
}

/**
 * The JSON answer to a refused request: `{ error: { code, message } }` with the code's status for an
 * `AgUiError`; any other error is internal (500), reported to `onError`, and answered with a generic
 * message and its `correlationId`.
 *
 * Contract: synchronous; never throws.
 */
export function errorResponse(
  error: unknown,
  onError: AgUiErrorListener,
  headers: Record<string, string> = {},
): Response {
  if (error instanceof AgUiError)
    return Response.json(
      { error: { code: error.code, message: error.message } },
      { status: AG_UI_ERROR_STATUS[error.code], headers },
    );
  const { message, correlationId } = reportInternalError(error, onError);
  return Response.json({ error: { code: "internal", message, correlationId } }, { status: 500, headers });
}

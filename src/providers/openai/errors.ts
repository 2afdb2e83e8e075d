import { APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";

/**
 * Turns anything thrown by the SDK (or by our own stream handling) into one line a user can act on:
 * the HTTP status and the server's message for HTTP errors, the underlying cause for connection
 * failures, and a plain description for malformed streams.
 */
export function describeError(error: unknown, provider: string): string {
  if (error instanceof APIConnectionTimeoutError) {
    return `${provider} request timed out before the server answered`;
  }
  if (error instanceof APIError && !(error instanceof APIUserAbortError)) {
    const cause = causeMessage(error);
    if (error.status !== undefined) return `${provider} API error ${error.message}`;
    return `${provider} request failed: ${error.message}${cause ? ` (${cause})` : ""}`;
  }
  if (error instanceof SyntaxError) {
    return `${provider} sent a malformed stream event (invalid JSON): ${error.message}`;
  }
  if (error instanceof Error) {
    const cause = causeMessage(error);
    const detail = cause && cause !== error.message ? `${error.message} (${cause})` : error.message;
    return isConnectionLoss(error)
      ? `${provider} connection lost while streaming: ${detail}`
      : `${provider} request failed: ${detail}`;
  }
  return `${provider} request failed: ${String(error)}`;
}

function causeMessage(error: Error): string | undefined {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) return cause.message || cause.name;
  return typeof cause === "string" ? cause : undefined;
}

/** undici reports a socket closed mid-body as `TypeError: terminated`. */
function isConnectionLoss(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    error.message === "terminated" ||
    code === "ECONNRESET" ||
    code === "UND_ERR_SOCKET" ||
    (error.cause instanceof Error && (error.cause as { code?: unknown }).code === "UND_ERR_SOCKET")
  );
}

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
    if (cause === undefined) return `${provider} stream error: ${error.message}`;
    return `${provider} request failed: ${error.message} (${cause})`;
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

/** The messages of the error's cause chain, e.g. "fetch failed: connect ECONNREFUSED 127.0.0.1:1". */
function causeMessage(error: Error): string | undefined {
  const parts: string[] = [];
  let cause = (error as { cause?: unknown }).cause;
  for (let depth = 0; cause !== undefined && depth < 4; depth++) {
    if (cause instanceof Error) {
      parts.push(cause.message || cause.name);
      cause = (cause as { cause?: unknown }).cause;
    } else {
      parts.push(String(cause));
      break;
    }
  }
  return parts.length > 0 ? parts.join(": ") : undefined;
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

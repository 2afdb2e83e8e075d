import {
  causeMessage,
  describeOtherError,
  describeStreamError,
  hasUnreachableCause,
  ServerStreamError,
  ServerUnreachableError,
} from "../provider-errors.js";

/** The fields of the AI SDK's `APICallError` this adapter reads (matched by name, not by class). */
interface ApiCallErrorShape extends Error {
  statusCode?: number;
  isRetryable: boolean;
  url: string;
  responseHeaders?: Record<string, string>;
}

/** True for the AI SDK's `APICallError` (an HTTP request that failed or was refused). */
export function isApiCallError(error: unknown): error is ApiCallErrorShape {
  return error instanceof Error && error.name === "AI_APICallError" && "isRetryable" in error;
}

/** True when a failed first request is worth sending again: the provider says so, or nobody answered. */
export function isRetryableRequestError(error: unknown): boolean {
  return isApiCallError(error) && error.isRetryable;
}

/** True when the request failed because nothing listens at the address or the host is unknown. */
export function isUnreachableError(error: unknown): error is ApiCallErrorShape {
  return isApiCallError(error) && error.statusCode === undefined && hasUnreachableCause(error);
}

/**
 * One line a user can act on for anything an AI SDK model threw or streamed as an `error` part, in
 * the OpenAI provider's wording, so the harness classifies both alike (`isRetryableError`,
 * `isContextOverflow`): "<provider> API error <status> <message>" for HTTP errors; "<provider> stream
 * error <type>: <message>" for errors the server sent mid-stream (Anthropic's `overloaded_error` is
 * transient); "<provider> request failed: …" for setup errors such as a missing API key, whose
 * message names the variable.
 *
 * Contract: pure, never throws.
 */
export function describeAiSdkError(error: unknown, provider: string): string {
  if (error instanceof ServerStreamError) return describeStreamError(error, provider);
  if (error instanceof ServerUnreachableError) return `${provider} ${error.message}`;
  if (isApiCallError(error)) {
    if (error.statusCode !== undefined) return `${provider} API error ${error.statusCode} ${error.message}`;
    const cause = causeMessage(error);
    return cause === undefined || error.message.includes(cause)
      ? `${provider} request failed: ${error.message}`
      : `${provider} request failed: ${error.message} (${cause})`;
  }
  if (error instanceof Error) return describeOtherError(error, provider);
  if (typeof error === "object" && error !== null) return describeStreamError(streamErrorOf(error), provider);
  return `${provider} request failed: ${String(error)}`;
}

/** An error object a provider streamed (`{ type: "overloaded_error", message: "Overloaded" }`). */
function streamErrorOf(details: object): ServerStreamError {
  const record = details as Record<string, unknown>;
  const nested = record.error;
  if (typeof nested === "object" && nested !== null) return streamErrorOf(nested);
  const message = typeof record.message === "string" ? record.message : JSON.stringify(details);
  const code = [record.type, record.code, record.status].find(
    (value) => (typeof value === "string" && value !== "") || typeof value === "number",
  );
  return new ServerStreamError(message, "server_error", code === undefined ? undefined : String(code));
}

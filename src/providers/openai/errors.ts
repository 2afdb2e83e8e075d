import { APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import {
  causeMessage,
  describeOtherError,
  describeStreamError,
  ServerStreamError,
  ServerUnreachableError,
} from "../provider-errors.js";

/**
 * Turns anything thrown by the SDK (or by our own stream handling) into one line a user can act on:
 * the HTTP status and the server's message for HTTP errors, the underlying cause for connection
 * failures, and a plain description for malformed streams.
 */
export function describeError(error: unknown, provider: string): string {
  if (error instanceof ServerStreamError) return describeStreamError(error, provider);
  if (error instanceof ServerUnreachableError) return `${provider} ${error.message}`;
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
  return describeOtherError(error, provider);
}

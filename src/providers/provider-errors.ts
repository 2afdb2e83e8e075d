/** Server codes that mean "too many requests right now" (429-like): worth retrying later. */
const THROTTLING_CODE = /^429$|throttl|rate.?limit|too.?many.?requests|overloaded/i;
/** System error codes of "nobody listens there": connection refused, unknown or unreachable host. */
const UNREACHABLE_CODES = new Set<unknown>([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * An error the server sent inside a stream (`server_error`, with the server's own message and
 * `serverCode`), a stream event of a shape no server means (`malformed_event`), or a reply that held
 * no stream events at all (`not_an_event_stream`, quoting the start of the body).
 */
export class ServerStreamError extends Error {
  override readonly name = "ServerStreamError";

  constructor(
    message: string,
    readonly code: "server_error" | "malformed_event" | "not_an_event_stream",
    readonly serverCode?: string,
  ) {
    super(message);
  }

  /** True when the server's code says the request was throttled (a 429 in other words). */
  get throttled(): boolean {
    return this.serverCode !== undefined && THROTTLING_CODE.test(this.serverCode);
  }
}

/** The server at `url` could not be reached at all (connection refused, unknown host). */
export class ServerUnreachableError extends Error {
  override readonly name = "ServerUnreachableError";
  readonly code = "server_unreachable";

  constructor(
    readonly url: string,
    cause: Error,
  ) {
    super(`could not connect to ${url} (${causeMessage(cause) ?? cause.message}): is the server running?`, {
      cause,
    });
  }
}

/**
 * One line for an error the server sent in a stream, in the wording every provider of this package
 * uses (the harness's retry policy reads it: "(throttled: …)" and "overloaded" are transient).
 *
 * Contract: pure, never throws.
 *
 * ```ts
 * describeStreamError(new ServerStreamError("Overloaded", "server_error", "overloaded_error"), "anthropic");
 * // "anthropic stream error overloaded_error (throttled: rate limited, retry later): Overloaded"
 * ```
 */
export function describeStreamError(error: ServerStreamError, provider: string): string {
  switch (error.code) {
    case "server_error": {
      const code = error.serverCode === undefined ? "" : ` ${error.serverCode}`;
      const throttled = error.throttled ? " (throttled: rate limited, retry later)" : "";
      return `${provider} stream error${code}${throttled}: ${error.message}`;
    }
    case "malformed_event":
      return `${provider} sent a malformed stream event: ${error.message}`;
    case "not_an_event_stream":
      return `${provider} ${error.message}`;
  }
}

/**
 * One line for an error that is none of the provider's own kinds: connection loss while streaming
 * (undici's "terminated", ECONNRESET) or any other failure, with its cause chain.
 *
 * Contract: pure, never throws.
 */
export function describeOtherError(error: unknown, provider: string): string {
  if (error instanceof Error) {
    const cause = causeMessage(error);
    const detail = cause && cause !== error.message ? `${error.message} (${cause})` : error.message;
    return isConnectionLoss(error)
      ? `${provider} connection lost while streaming: ${detail}`
      : `${provider} request failed: ${detail}`;
  }
  return `${provider} request failed: ${String(error)}`;
}

/**
 * The messages of the error's cause chain, e.g. "fetch failed: connect ECONNREFUSED 127.0.0.1:1";
 * `undefined` when it has no cause. Contract: pure, never throws.
 */
export function causeMessage(error: Error): string | undefined {
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

/**
 * True when the error's cause chain says nothing listens at the address or the host is unknown
 * (ECONNREFUSED, ENOTFOUND, …). Contract: pure, never throws.
 */
export function hasUnreachableCause(error: unknown): boolean {
  let cause: unknown = (error as { cause?: unknown } | undefined)?.cause;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++) {
    if (UNREACHABLE_CODES.has((cause as { code?: unknown }).code)) return true;
    cause = cause.cause;
  }
  return false;
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

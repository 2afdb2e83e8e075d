import { AgUiError } from "./ag-ui-error.js";

/**
 * The `Origin` of a cross-origin request the endpoint accepts, or `undefined` for a request without
 * `Origin` (not sent by a browser page) or from the endpoint's own origin (the same host as the
 * request's URL; the scheme is not compared, so a proxy that ends TLS does not make the page foreign).
 * A browser always sends `Origin` with a cross-origin POST, so a page of another site is refused here
 * unless `allowedOrigins` lists its origin exactly (`"https://app.example.com"`).
 *
 * Contract: synchronous, pure; throws `AgUiError` `origin_not_allowed` for any other `Origin`.
 *
 * ```ts
 * const origin = allowedCrossOrigin(request, new Set(["https://app.example.com"]));
 * ```
 */
export function allowedCrossOrigin(
  request: Request,
  allowedOrigins: ReadonlySet<string>,
): string | undefined {
  const origin = request.headers.get("origin");
  if (origin === null || sameHost(origin, request.url)) return undefined;
  if (allowedOrigins.has(origin)) return origin;
  throw new AgUiError(
    "origin_not_allowed",
    `Requests from ${origin} are not allowed: list the origin in allowedOrigins to serve a page there`,
  );
}

/**
 * The CORS headers of an answer to a request from `origin`, an allowed cross origin: the page may
 * read the answer, and (on a preflight) send JSON with `Last-Event-ID` and credentials.
 */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-credentials": "true",
    vary: "origin",
  };
}

/** The answer to a CORS preflight (`OPTIONS`) from an allowed cross origin. */
export function preflightResponse(origin: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(origin),
      "access-control-allow-methods": "POST",
      "access-control-allow-headers": "content-type, last-event-id, authorization",
      "access-control-max-age": "600",
    },
  });
}

function sameHost(origin: string, url: string): boolean {
  try {
    return new URL(origin).host === new URL(url).host;
  } catch {
    return false;
  }
}

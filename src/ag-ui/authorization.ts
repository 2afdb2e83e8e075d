import { AgUiError } from "./ag-ui-error.js";

/**
 * What `authorize` decides for a request: `"allow"` serves it; `"unauthenticated"` refuses it with 401
 * (no or bad credentials), `"forbidden"` with 403 (the caller may not use this thread).
 */
export type AuthorizationVerdict = "allow" | "unauthenticated" | "forbidden";

/** The `authorize` option of `createAgUiHandler`. */
export type Authorize = (
  request: Request,
  threadId: string,
) => AuthorizationVerdict | Promise<AuthorizationVerdict>;

/**
 * Asks `authorize` (when there is one) about the request for `threadId`; settles when it allows it.
 *
 * Contract: async; rejects with `AgUiError` `unauthenticated` (401) or `forbidden` (403) as the
 * verdict says, with a TypeError for any other verdict, and with what `authorize` throws.
 *
 * ```ts
 * await checkAuthorization(async (request) => (request.headers.has("authorization") ? "allow" : "unauthenticated"), request, "t1");
 * ```
 */
export async function checkAuthorization(
  authorize: Authorize | undefined,
  request: Request,
  threadId: string,
): Promise<void> {
  if (!authorize) return;
  const verdict = await authorize(request, threadId);
  if (verdict === "allow") return;
  if (verdict === "unauthenticated")
    throw new AgUiError("unauthenticated", "The request has no valid credentials: sign in first");
  if (verdict === "forbidden")
    throw new AgUiError("forbidden", `The request's credentials do not allow thread ${threadId}`);
  throw new TypeError(
    `authorize returned ${JSON.stringify(verdict)}: expected "allow", "unauthenticated" or "forbidden"`,
  );
}

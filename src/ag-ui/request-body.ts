import { AgUiError } from "./ag-ui-error.js";

/**
 * The JSON object a request carries, read up to `maxBytes`: the content type must be
 * `application/json` (a page of another site cannot send that without a CORS preflight), a body
 * over the limit is refused as soon as its `Content-Length` or its bytes show it, without reading
 * further.
 *
 * Contract: async; rejects only with `AgUiError`: `unsupported_media_type` (415), `body_too_large`
 * (413, naming `maxBodyBytes`), `invalid_request` (400: not JSON, not an object).
 *
 * ```ts
 * const body = await readJsonBody(request, 1_000_000);
 * ```
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<Record<string, unknown>> {
  const mediaType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json")
    throw new AgUiError(
      "unsupported_media_type",
      `Send the request body as application/json (got ${mediaType === "" ? "no content type" : mediaType})`,
    );
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  let body: unknown;
  try {
    body = JSON.parse(await readText(request, maxBytes));
  } catch (error) {
    if (error instanceof AgUiError) throw error;
    throw new AgUiError("invalid_request", "The request body is not JSON", { cause: error });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new AgUiError("invalid_request", "The request body must be a JSON object");
  return body as Record<string, unknown>;
}

/** The body's text, refusing it once it passes `maxBytes` (the rest is left unread). */
async function readText(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function tooLarge(maxBytes: number): AgUiError {
  return new AgUiError(
    "body_too_large",
    `The request body is larger than maxBodyBytes (${maxBytes} bytes): send fewer or shorter messages`,
  );
}

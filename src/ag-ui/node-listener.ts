import type { IncomingMessage, ServerResponse } from "node:http";
import type { FetchHandler } from "./ag-ui-handler.js";

/**
 * Serves a fetch-style handler (e.g. `createAgUiHandler`'s) on Node's `http` server: the request
 * becomes a Web `Request` (body buffered), the `Response` is written back as it streams. A client that
 * disconnects cancels the response body — for the AG-UI handler that stops reading the run, never the
 * run itself.
 *
 * Contract: the listener never throws; a handler that rejects gets a 500 with its message.
 *
 * ```ts
 * http.createServer(toNodeListener(createAgUiHandler({ agentFor }))).listen(3000);
 * ```
 */
export function toNodeListener(
  handler: FetchHandler,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    void serve(handler, request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        response.statusCode = 500;
        response.setHeader("content-type", "application/json");
      }
      response.end(JSON.stringify({ error: { code: "internal", message: String(error) } }));
    });
  };
}

async function serve(
  handler: FetchHandler,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  const method = request.method ?? "GET";
  const url = new URL(request.url ?? "/", `http://${request.headers.host ?? "localhost"}`);
  const body = method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks);
  const answer = await handler(new Request(url, { method, headers, ...(body ? { body } : {}) }));
  const answerHeaders: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    answerHeaders[name] = value;
  });
  response.writeHead(answer.status, answerHeaders);
  if (!answer.body) {
    response.end();
    return;
  }
  const reader = answer.body.getReader();
  response.on("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (done) break;
    response.write(value);
  }
  response.end();
}

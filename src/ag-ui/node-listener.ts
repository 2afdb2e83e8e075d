import type { IncomingMessage, ServerResponse } from "node:http";
import type { FetchHandler } from "./ag-ui-handler.js";

/**
 * Serves a fetch-style handler (e.g. `createAgUiHandler`'s) on Node's `http` server: the request
 * becomes a Web `Request` whose body streams from the socket (nothing is buffered here: the handler
 * reads what it accepts, so its body limit holds), the `Response` is written back as it streams. A
 * request whose body the handler left unread is answered with `connection: close`. A client that
 * disconnects cancels the response body — for the AG-UI handler that stops reading the run, never
 * the run itself.
 *
 * Contract: the listener never throws; a handler that rejects gets a 500 with a generic message (the
 * error goes to `console.error`).
 *
 * ```ts
 * import http from "node:http";
 * import { createAgUiHandler } from "agentchart/ag-ui";
 * const agentFor = () => agent;
 * http.createServer(toNodeListener(createAgUiHandler({ agentFor }))).listen(3000);
 * ```
 */
export function toNodeListener(
  handler: FetchHandler,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    void serve(handler, request, response).catch((error: unknown) => {
      console.error("agentchart/ag-ui: the handler failed", error);
      if (!response.headersSent) {
        response.statusCode = 500;
        response.setHeader("content-type", "application/json");
      }
      response.end(JSON.stringify({ error: { code: "internal", message: "Internal error" } }));
    });
  };
}

async function serve(
  handler: FetchHandler,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  const method = request.method ?? "GET";
  const url = new URL(request.url ?? "/", `http://${request.headers.host ?? "localhost"}`);
  const body = method === "GET" || method === "HEAD" ? undefined : bodyOf(request);
  const init = body ? { method, headers, body, duplex: "half" } : { method, headers };
  const answer = await handler(new Request(url, init as RequestInit));
  const answerHeaders: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    answerHeaders[name] = value;
  });
  // The rest of a body the handler refused is not read: the connection closes after the answer.
  if (body && !request.complete) answerHeaders.connection = "close";
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

/** The request's body as a Web stream read from the socket as the handler pulls it. */
function bodyOf(request: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      request.pause();
      request.on("data", (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) request.pause();
      });
      request.on("end", () => {
        if (open) controller.close();
        open = false;
      });
      request.on("error", (error) => {
        if (open) controller.error(error);
        open = false;
      });
    },
    pull() {
      request.resume();
    },
    cancel() {
      open = false;
      request.pause();
    },
  });
}

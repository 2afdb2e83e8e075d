import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How a scripted reply ends after its last piece. */
export type ReplyEnding = "end" | "reset" | "hang";

/** One scripted HTTP reply of the test server. */
export type ScriptedReply =
  | {
      kind: "stream";
      /** Raw body pieces, written one by one (use `sseBody` + `splitAwkwardly`). */
      pieces: (string | Uint8Array)[];
      status?: number;
      headers?: Record<string, string>;
      /** "end" (default) closes normally; "reset" destroys the socket; "hang" keeps it open. */
      ending?: ReplyEnding;
    }
  | { kind: "json"; status: number; body: unknown; headers?: Record<string, string> };

/** A request the server received, with its parsed JSON body. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** Resolves when the client side of this request's connection has gone (finished or cancelled). */
  closed: Promise<void>;
}

/**
 * A small OpenAI-compatible HTTP server on 127.0.0.1 (random port) for tests and benchmarks. It
 * records every request and answers `/v1/chat/completions` and `/v1/responses` with the scripted
 * replies queued by `enqueue`, in order. With an empty queue it answers 500. Started with
 * `{ anyPath: true }` it answers every path alike, for other providers' APIs (Anthropic's
 * `/v1/messages`, Gemini's `…:streamGenerateContent`).
 */
export class OpenAITestServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ScriptedReply[] = [];
  private readonly waiters: ((request: RecordedRequest) => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly baseURL: string,
    private readonly anyPath: boolean,
  ) {}

  /** Starts a server on a random loopback port. */
  static async start(options: { anyPath?: boolean } = {}): Promise<OpenAITestServer> {
    let instance: OpenAITestServer | undefined;
    const server = createServer((req, res) => {
      void instance?.handle(req.method ?? "GET", req.url ?? "/", req.headers, req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    instance = new OpenAITestServer(server, `http://127.0.0.1:${port}/v1`, options.anyPath === true);
    return instance;
  }

  /** Queues replies; each request takes the next one. */
  enqueue(...replies: ScriptedReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Resolves with the `index`-th request (0-based) once it has arrived. */
  request(index: number): Promise<RecordedRequest> {
    const existing = this.requests[index];
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve) => {
      const check = (request: RecordedRequest) => {
        if (this.requests.indexOf(request) !== index) {
          this.waiters.push(check);
          return;
        }
        resolve(request);
      };
      this.waiters.push(check);
    });
  }

  /** Stops the server and drops open connections. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    req: NodeJS.ReadableStream,
    res: ServerResponse,
  ): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let closedResolve: () => void = () => {};
    const closed = new Promise<void>((resolve) => {
      closedResolve = resolve;
    });
    res.on("close", () => closedResolve());
    const request: RecordedRequest = {
      method,
      path,
      headers,
      body: text ? JSON.parse(text) : undefined,
      closed,
    };
    this.requests.push(request);
    for (const waiter of this.waiters.splice(0)) waiter(request);

    const known = this.anyPath || path === "/v1/chat/completions" || path === "/v1/responses";
    const reply = known ? this.queue.shift() : undefined;
    if (reply === undefined) {
      sendJson(res, known ? 500 : 404, { error: { message: `no scripted reply for ${method} ${path}` } });
      return;
    }
    if (reply.kind === "json") {
      sendJson(res, reply.status, reply.body, reply.headers);
      return;
    }
    res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", ...reply.headers });
    for (const piece of reply.pieces) {
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(piece, () => resolve()));
    }
    if (reply.ending === "reset") res.socket?.destroy();
    else if (reply.ending !== "hang") res.end();
  }
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Serialises chunks as an SSE body: `data: {json}` per chunk, then `data: [DONE]` if `done`. */
export function sseBody(chunks: unknown[], options: { done?: boolean; named?: boolean } = {}): string {
  let body = "";
  for (const chunk of chunks) {
    if (options.named) body += `event: ${(chunk as { type: string }).type}\n`;
    body += `data: ${JSON.stringify(chunk)}\n\n`;
  }
  if (options.done ?? true) body += "data: [DONE]\n\n";
  return body;
}

/**
 * Cuts a body into byte pieces of the given sizes (repeated), so lines and multi-byte UTF-8
 * characters are split across writes.
 */
export function splitAwkwardly(body: string, sizes: number[] = [7, 1, 23, 2, 61, 3]): Uint8Array[] {
  const bytes = new TextEncoder().encode(body);
  const pieces: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; offset < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    pieces.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return pieces;
}

/** A streamed reply made of SSE chunks split at awkward byte boundaries. */
export function streamReply(
  chunks: unknown[],
  options: { done?: boolean; named?: boolean; ending?: ReplyEnding; sizes?: number[] } = {},
): ScriptedReply {
  return {
    kind: "stream",
    pieces: splitAwkwardly(sseBody(chunks, options), options.sizes),
    ending: options.ending ?? "end",
  };
}

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import type { AnyStateMachine } from "xstate";
import { errorText } from "../types/error-text.js";
import { requireOptionalPeer } from "../types/optional-peer.js";
import { createInspectionBacklog, isInspectionRecord, namespaceRecord } from "./inspection-backlog.js";
import { createInspectionProjector, type InspectFunction } from "./inspection-projector.js";
import type { InspectionRecord, MachineDefinitionRecord } from "./inspection-record.js";
import { projectMachineDefinition } from "./machine-definition.js";
import { assertLayoutEngineInstalled, loadPageAsset } from "./page-assets.js";
import { inspectorPageHtml } from "./page-html.js";
import type { SanitizeLimits } from "./sanitize.js";

/** Options of {@link createInspectorServer}. */
export interface InspectorServerOptions {
  /** TCP port; `0` (default) picks a free one. */
  port?: number;
  /** Interface to bind; default `"127.0.0.1"` (local only). */
  host?: string;
  /** How many records are replayed to a page that connects late. Default 2,000. */
  backlogSize?: number;
  /** Cap on the backlog's JSON size in characters. Default 32 MiB. */
  backlogMaxBytes?: number;
  /** Limits for contexts and payloads projected by `inspect`. */
  limits?: Partial<SanitizeLimits>;
  /**
   * Machines the page can draw with no live actor: a recording opened on the page (see "Step through
   * a recording" in docs/inspector.md) is drawn on the machine whose id is `"agent"` — pass
   * `agentMachine`. Their definitions are sent to every page, keyed `"<machine id>#preloaded"`.
   */
  machines?: AnyStateMachine[];
}

/** A running inspector server. */
export interface InspectorServer {
  /** Address of the page, e.g. `http://127.0.0.1:50123/`. */
  url: string;
  port: number;
  /** Pass as `createActor(machine, { inspect })`; works for the whole actor system. */
  inspect: InspectFunction;
  /** The records currently in the backlog, oldest first. */
  records(): InspectionRecord[];
  /** Closes every connection and the server. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the local, offline inspector: an HTTP server for the page and its modules, a WebSocket
 * endpoint `/ws` that replays the backlog to each page and then streams new records, and `/ingest`,
 * where {@link createInspectorClient} in another process sends records to be rebroadcast.
 *
 * WebSocket upgrades that carry an `Origin` other than the server's own are refused, so other web
 * sites open in the same browser cannot read the inspected contexts.
 *
 * Contract: async; rejects with a `MissingPeerDependencyError` when the optional peers `ws` or
 * `elkjs` (the diagram layout) are not installed, and with the server's error when it cannot listen.
 *
 * ```ts
 * import { createActor } from "xstate";
 * import { agentMachine } from "agentchart/machines";
 * const inspector = await createInspectorServer({ port: 0 });
 * console.log(`inspector at ${inspector.url}`);
 * const actor = createActor(agentMachine, { input: { model }, inspect: inspector.inspect }).start();
 * ```
 */
export async function createInspectorServer(options: InspectorServerOptions = {}): Promise<InspectorServer> {
  const host = options.host ?? "127.0.0.1";
  const preloaded: MachineDefinitionRecord[] = (options.machines ?? []).map((machine) => ({
    machineKey: `${machine.id}#preloaded`,
    root: projectMachineDefinition(machine),
  }));
  const backlog = createInspectionBacklog(options.backlogSize ?? 2_000, options.backlogMaxBytes);
  const viewers = new Set<WebSocket>();
  const { WebSocketServer } = requireOptionalPeer<typeof import("ws")>("ws", "the inspector server");
  assertLayoutEngineInstalled();
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  let pending: string[] = [];
  let flushScheduled = false;
  let ingestCount = 0;
  let closed: Promise<void> | undefined;

  const flush = () => {
    flushScheduled = false;
    if (pending.length === 0) return;
    // Same shape as InspectorServerMessage "records", assembled from already serialized records.
    const data = `{"type":"records","records":[${pending.join(",")}]}`;
    pending = [];
    for (const viewer of viewers) if (viewer.readyState === viewer.OPEN) viewer.send(data);
  };

  const publish = (record: InspectionRecord) => {
    if (closed) return;
    pending.push(backlog.add(record));
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };

  const server = createServer((request, response) => {
    serveHttp(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      response.end(`Inspector error: ${errorText(error)}`);
    });
  });

  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? "/", "http://inspector").pathname;
    if ((path !== "/ws" && path !== "/ingest") || !isAllowedOrigin(request, address().port, host)) {
      socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => (path === "/ws" ? addViewer(ws) : addIngest(ws)));
  });

  const addViewer = (ws: WebSocket) => {
    flush(); // records queued before this viewer are already in the replay
    viewers.add(ws);
    ws.on("close", () => viewers.delete(ws));
    ws.on("error", () => viewers.delete(ws));
    const definitions = JSON.stringify([...backlog.replay().definitions, ...preloaded]);
    ws.send(`{"type":"replay","definitions":${definitions},"records":[${backlog.replayJson().join(",")}]}`);
  };

  const addIngest = (ws: WebSocket) => {
    ingestCount += 1;
    const prefix = `i${ingestCount}/`;
    ws.on("error", () => ws.terminate());
    ws.on("message", (data) => {
      let message: unknown;
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      const records = (message as { records?: unknown }).records;
      if (!Array.isArray(records)) return;
      for (const record of records) if (isInspectionRecord(record)) publish(namespaceRecord(record, prefix));
    });
  };

  const serveHttp = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://inspector").pathname;
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (path === "/" || path === "/index.html") {
      send(response, 200, "text/html; charset=utf-8", inspectorPageHtml);
      return;
    }
    const asset = path.startsWith("/assets/")
      ? await loadPageAsset(path.slice("/assets/".length))
      : undefined;
    if (asset !== undefined) {
      send(response, 200, "text/javascript; charset=utf-8", asset);
      return;
    }
    send(response, 404, "text/plain; charset=utf-8", "Not found");
  };

  const address = () => server.address() as AddressInfo;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  const port = address().port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/`,
    port,
    inspect: createInspectionProjector(publish, options.limits ? { limits: options.limits } : {}),
    records: () => backlog.replay().records,
    close() {
      closed ??= new Promise<void>((resolve) => {
        flush();
        for (const ws of sockets.clients) ws.terminate();
        sockets.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, {
    "content-type": contentType,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  response.end(body);
}

/** No Origin (a non-browser client) or the page's own origin. */
function isAllowedOrigin(request: IncomingMessage, port: number, host: string): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    if (url.port !== String(port)) return false;
    const local = ["127.0.0.1", "localhost", "[::1]"];
    return local.includes(url.hostname) || url.hostname === host || url.host === request.headers.host;
  } catch {
    return false;
  }
}

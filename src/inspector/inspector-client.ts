import { requireOptionalPeer } from "../types/optional-peer.js";
import { createInspectionProjector, type InspectFunction } from "./inspection-projector.js";
import type { InspectionRecord, InspectorIngestMessage } from "./inspection-record.js";
import type { SanitizeLimits } from "./sanitize.js";

/** Options of {@link createInspectorClient}. */
export interface InspectorClientOptions {
  /** Records kept while the connection is not open yet; older ones are dropped. Default 2,000. */
  maxBuffered?: number;
  /** Limits for contexts and payloads. */
  limits?: Partial<SanitizeLimits>;
}

/** A connection that streams inspection records to a running inspector server. */
export interface InspectorClient {
  /** Pass as `createActor(machine, { inspect })`. */
  inspect: InspectFunction;
  /** Resolves once the WebSocket is open; rejects if it cannot connect. */
  ready: Promise<void>;
  /** Sends what is buffered, then closes the connection. Idempotent; never rejects. */
  close(): Promise<void>;
}

/**
 * Streams the inspection records of actors in this process to an inspector server started
 * elsewhere (e.g. `agentchart --inspect=http://127.0.0.1:4000/`). `url` is the server's page URL
 * (`http://…`) or its ingest endpoint (`ws://…/ingest`).
 *
 * Inspection never breaks the inspected program: connection errors only reject `ready`, records
 * produced before the socket opens are buffered (bounded), records after `close()` are dropped.
 * Throws a `MissingPeerDependencyError` when the optional peer `ws` is not installed.
 *
 * ```ts
 * import { createActor } from "xstate";
 * import { agentMachine } from "agentchart/machines";
 * const client = createInspectorClient("http://127.0.0.1:4000/");
 * const actor = createActor(agentMachine, { inspect: client.inspect }).start();
 * // … later
 * await client.close();
 * ```
 */
export function createInspectorClient(url: string, options: InspectorClientOptions = {}): InspectorClient {
  const maxBuffered = options.maxBuffered ?? 2_000;
  const { WebSocket } = requireOptionalPeer<typeof import("ws")>("ws", "the inspector client");
  const socket = new WebSocket(toIngestUrl(url));
  let pending: InspectionRecord[] = [];
  let flushScheduled = false;
  let closing: Promise<void> | undefined;

  const ready = new Promise<void>((resolve, reject) => {
    socket.once("open", () => {
      flush();
      resolve();
    });
    socket.once("error", reject);
  });
  ready.catch(() => {
    pending = [];
  });
  socket.on("error", () => {
    // Reported through `ready`; a late error must not crash the process.
  });

  const flush = () => {
    flushScheduled = false;
    if (pending.length === 0 || socket.readyState !== WebSocket.OPEN) return;
    const message: InspectorIngestMessage = { type: "records", records: pending };
    pending = [];
    socket.send(JSON.stringify(message));
  };

  const onRecord = (record: InspectionRecord) => {
    if (closing || socket.readyState > WebSocket.OPEN) return;
    pending.push(record);
    if (pending.length > maxBuffered) pending.splice(0, pending.length - maxBuffered);
    if (!flushScheduled && socket.readyState === WebSocket.OPEN) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };

  return {
    inspect: createInspectionProjector(onRecord, options.limits ? { limits: options.limits } : {}),
    ready,
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once("close", () => resolve());
        if (socket.readyState === WebSocket.CONNECTING) {
          // Let buffered records out once connected; give up if the connection fails.
          ready.then(
            () => socket.close(1000),
            () => resolve(),
          );
          return;
        }
        flush();
        socket.close(1000);
      });
      return closing;
    },
  };
}

function toIngestUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === "http:") parsed.protocol = "ws:";
  if (parsed.protocol === "https:") parsed.protocol = "wss:";
  if (parsed.pathname !== "/ingest") parsed.pathname = "/ingest";
  return parsed.toString();
}

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A span as OTLP/HTTP JSON carries it, reduced to what the tests read. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** Start time in nanoseconds since the epoch. */
  startTime: bigint;
  attributes: Record<string, unknown>;
  eventNames: string[];
  statusCode: number;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        startTimeUnixNano: string | number;
        attributes?: { key: string; value: OtlpValue }[];
        events?: { name: string }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

/**
 * A minimal OTLP/HTTP trace receiver on 127.0.0.1: accepts JSON `POST /v1/traces`, decodes the spans
 * and the resources' `service.name`. `spansArrived(n)` resolves once at least n spans came in.
 */
export class OtlpReceiver {
  readonly spans: OtlpSpan[] = [];
  readonly serviceNames = new Set<string>();
  readonly contentTypes = new Set<string>();
  readonly #server: Server;
  #waiters: { count: number; resolve: () => void }[] = [];

  constructor() {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        if (request.method !== "POST" || request.url !== "/v1/traces") {
          response.writeHead(404).end();
          return;
        }
        this.contentTypes.add(String(request.headers["content-type"]));
        this.#accept(JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpRequest);
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
  }

  /** Listens on a free port of 127.0.0.1; resolves with the base URL (`http://127.0.0.1:port`). */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  spansArrived(count: number): Promise<void> {
    if (this.spans.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #accept(body: OtlpRequest): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = resourceSpans.resource?.attributes?.find((a) => a.key === "service.name");
      if (service?.value.stringValue) this.serviceNames.add(service.value.stringValue);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            startTime: BigInt(span.startTimeUnixNano),
            attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, decode(a.value)])),
            eventNames: (span.events ?? []).map((event) => event.name),
            statusCode: span.status?.code ?? 0,
          });
        }
      }
    }
    const ready = this.#waiters.filter((waiter) => this.spans.length >= waiter.count);
    this.#waiters = this.#waiters.filter((waiter) => this.spans.length < waiter.count);
    for (const waiter of ready) waiter.resolve();
  }
}

function decode(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(decode);
  return undefined;
}

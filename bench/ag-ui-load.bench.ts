// A bounded load test of the AG-UI endpoint on loopback, server and clients in one process:
// 1. 2,000 requests, 50 at a time, mixed: valid runs (a new thread each, a bearer token `authorize`
//    checks, a 50-delta reply read to its end; some declare a page tool whose `pattern` is
//    catastrophic for a backtracking engine, `^(a+)+$`, and the model calls it with 30 × "a" + "!"),
//    and hostile requests the endpoint refuses (text/plain, a foreign Origin, no token, a 2 MB body,
//    too many messages, a malformed `resume`). The same 2,000 requests, 50 at a time, to a bare SSE
//    relay (the same frames written straight to the response, no checks) give the baseline.
//    Printed: requests per second of each, p50/p99 latency of the valid runs (to their last event)
//    and of the relay's, the statuses, and the heap (after GC) before and after.
// 2. 1,000 runs re-declaring the same page tools (threads evicted beyond `maxThreads: 50`): the heap
//    after GC at run 200 and at run 1,000 (flat when the compiled schemas are cached, bounded).
//
//   node --expose-gc --import tsx bench/ag-ui-load.bench.ts [--requests N] [--concurrency N]
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAgUiHandler } from "../src/ag-ui/ag-ui-handler.js";
import { toNodeListener } from "../src/ag-ui/node-listener.js";
import { sseFrame } from "../src/ag-ui/sse-frame.js";
import { AgUiTranslator } from "../src/ag-ui/to-ag-ui-events.js";
import { Agent } from "../src/agent/agent.js";
import { readSse } from "../src/client/sse-reader.js";
import { scriptedModel } from "../src/providers/scripted/scripted-model.js";
import type { Model } from "../src/types/model.js";
import { canGc, fmt, table } from "./common.js";

const argument = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const REQUESTS = argument("requests", 2_000);
const CONCURRENCY = argument("concurrency", 50);
const DELTAS = 50;
const MODEL: Model = { id: "bench", api: "scripted", provider: "bench", contextWindow: 1e6, maxTokens: 1e5 };
const TOKEN = "Bearer load-test";

const spell = {
  name: "spell",
  description: "Spells a word",
  parameters: { type: "object", properties: { word: { type: "string", pattern: "^(a+)+$" } } },
};
const reply = () => ({ text: "abcd".repeat(DELTAS), deltas: DELTAS });
const scriptFor = (threadId: string) =>
  threadId.startsWith("regex-")
    ? [{ toolCalls: [{ id: "call_s", name: "spell", arguments: { word: `${"a".repeat(30)}!` } }] }, reply()]
    : [reply()];

const heapMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const ours = createServer(
  toNodeListener(
    createAgUiHandler({
      agentFor: (threadId) => new Agent({ model: MODEL, streamFn: scriptedModel(scriptFor(threadId)) }),
      authorize: (request) => (request.headers.get("authorization") === TOKEN ? "allow" : "unauthenticated"),
      onError: () => {},
    }),
  ),
);
const oursUrl = await listen(ours);

// The relay: the frames of one valid run, recorded once, written to every request.
const frames: string[] = [];
{
  const agent = new Agent({ model: MODEL, streamFn: scriptedModel([reply()]) });
  const translator = new AgUiTranslator();
  agent.subscribe((event) => {
    for (const translated of translator.translate(event))
      frames.push(sseFrame(frames.length + 1, translated));
  });
  await agent.prompt("Go");
}
const relay = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    for (const frame of frames) response.write(frame);
    response.end();
  });
});
const relayUrl = await listen(relay);

type Kind = "valid" | "regex" | "text/plain" | "origin" | "no token" | "2 MB body" | "messages" | "resume";
const KINDS: Kind[] = [
  "valid",
  "valid",
  "valid",
  "valid",
  "regex",
  "text/plain",
  "origin",
  "no token",
  "2 MB body",
  "messages",
  "resume",
];
const big = "x".repeat(2_000_000);

function requestOf(kind: Kind, index: number): RequestInit {
  const threadId = `${kind === "regex" ? "regex" : "t"}-${index}`;
  const input = { threadId, runId: "r1", messages: [{ id: "u1", role: "user", content: "Go" }] };
  const headers: Record<string, string> = { "content-type": "application/json", authorization: TOKEN };
  let body: unknown = input;
  switch (kind) {
    case "regex":
      body = { ...input, tools: [spell] };
      break;
    case "text/plain":
      headers["content-type"] = "text/plain";
      break;
    case "origin":
      headers.origin = "https://evil.example";
      break;
    case "no token":
      delete headers.authorization;
      break;
    case "2 MB body":
      body = { ...input, messages: [{ id: "u1", role: "user", content: big }] };
      break;
    case "messages":
      body = {
        ...input,
        messages: Array.from({ length: 1_001 }, (_, id) => ({ id: `m-${id}`, role: "user", content: "x" })),
      };
      break;
    case "resume":
      body = { ...input, resume: [null] };
      break;
  }
  return { method: "POST", headers, body: JSON.stringify(body) };
}

/** Sends one request and reads its answer to the end; the time to the last byte and the status. */
async function send(url: string, init: RequestInit): Promise<{ ms: number; status: number; events: number }> {
  const start = performance.now();
  const response = await fetch(url, init).catch(() => undefined);
  if (!response) return { ms: performance.now() - start, status: 0, events: 0 };
  let events = 0;
  if (response.headers.get("content-type")?.startsWith("text/event-stream") && response.body)
    for await (const message of readSse(response.body)) {
      JSON.parse(message.data);
      events++;
    }
  else await response.arrayBuffer().catch(() => undefined);
  return { ms: performance.now() - start, status: response.status, events };
}

async function load(url: string) {
  const results: { kind: Kind; ms: number; status: number; events: number }[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const index = next++;
        const kind = KINDS[index % KINDS.length]!;
        results.push({ kind, ...(await send(url, requestOf(kind, index))) });
      }
    }),
  );
  return { results, seconds: (performance.now() - started) / 1000 };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

if (!canGc) console.warn("(run with node --expose-gc for heap figures after GC)");
console.log(`AG-UI load: ${REQUESTS} requests, ${CONCURRENCY} at a time, ${DELTAS}-delta replies`);
await load(relayUrl); // warm-up of both
await load(oursUrl);
const heapBefore = heapMb();
const oursRun = await load(oursUrl);
const heapAfter = heapMb();
const relayRun = await load(relayUrl);

const valid = oursRun.results.filter((result) => result.kind === "valid" || result.kind === "regex");
const statuses = new Map<string, Map<number, number>>();
for (const result of oursRun.results) {
  const byStatus = statuses.get(result.kind) ?? new Map<number, number>();
  byStatus.set(result.status, (byStatus.get(result.status) ?? 0) + 1);
  statuses.set(result.kind, byStatus);
}
console.log(
  table(
    ["", "endpoint (checks on)", "bare relay"],
    [
      ["requests / s", fmt(REQUESTS / oursRun.seconds), fmt(REQUESTS / relayRun.seconds)],
      [
        "p50 / p99 ms of valid runs",
        `${fmt(
          percentile(
            valid.map((r) => r.ms),
            50,
          ),
        )} / ${fmt(
          percentile(
            valid.map((r) => r.ms),
            99,
          ),
        )}`,
        `${fmt(
          percentile(
            relayRun.results.map((r) => r.ms),
            50,
          ),
        )} / ${fmt(
          percentile(
            relayRun.results.map((r) => r.ms),
            99,
          ),
        )}`,
      ],
      ["heap MB before → after (after GC)", `${fmt(heapBefore)} → ${fmt(heapAfter)}`, ""],
    ],
  ),
);
console.log(
  [...statuses]
    .map(
      ([kind, byStatus]) =>
        `${kind}: ${[...byStatus].map(([status, count]) => `${count}×${status}`).join(" ")}`,
    )
    .join("; "),
);
if (valid.some((result) => result.status !== 200 || result.events < DELTAS))
  throw new Error("a valid run did not stream to its end");

// 2. 1,000 runs re-declaring the same page tools; threads beyond 50 are evicted.
const redeclaring = createAgUiHandler({
  agentFor: () => new Agent({ model: MODEL, streamFn: scriptedModel([{ text: "ok" }]) }),
  limits: { maxThreads: 50 },
});
let heapAt200 = 0;
for (let index = 1; index <= 1_000; index++) {
  const response = await redeclaring(
    new Request("http://127.0.0.1/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: `d-${index}`,
        runId: "r1",
        messages: [{ id: "u1", role: "user", content: "Go" }],
        tools: [spell, { ...spell, name: "spell_again" }],
      }),
    }),
  );
  await response.arrayBuffer();
  if (index === 200) heapAt200 = heapMb();
}
console.log(
  `1,000 runs re-declaring the same tools: heap ${fmt(heapAt200)} MB at run 200 → ${fmt(heapMb())} MB at run 1,000`,
);
for (const server of [ours, relay]) {
  server.closeAllConnections();
  server.close();
}

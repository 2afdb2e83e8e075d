// The AG-UI layer's cost, server and client in one process over loopback HTTP:
// 1. per streamed delta, server → store: an Agent streams one long reply (scripted, zero latency) through
//    `createAgUiHandler` (translation, run log with ids) and the Node listener to `createAgentClient` (SSE
//    reader, @xstate/store updates) — against a bare SSE relay of the same events: the same Agent run's
//    events translated by `AgUiTranslator`, written straight to the response, read and JSON-parsed.
//    The split: the endpoint read by a bare reader (SSE reader + JSON.parse, no store) gives the
//    server's share (endpoint − relay) and the client store's share (store − bare reader). The bare
//    readers take each chunk's messages at once (`readSseChunks`), as the client does. A second relay
//    writes the frames of one turn of the event loop at once, as the endpoint does: the ratio to it
//    shows what remains once both write alike.
// 2. a reconnect replay of a finished 10,000-event run (`Last-Event-ID: 0`) read by a client — against a
//    bare server writing the same 10,000 frames.
// Round-robin rounds with forced GC and a quiet-machine wait; CPU time (user + system) of the whole
// process (server and client), medians (min–max) and the medians of the per-round paired ratios.
//
//   node --expose-gc --import tsx bench/ag-ui.bench.ts [--rounds N] [--deltas N] [--events N]
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAgUiHandler } from "../src/ag-ui/ag-ui-handler.js";
import { toNodeListener } from "../src/ag-ui/node-listener.js";
import { sseFrame } from "../src/ag-ui/sse-frame.js";
import { AgUiTranslator } from "../src/ag-ui/to-ag-ui-events.js";
import { Agent } from "../src/agent/agent.js";
import { createAgentClient } from "../src/client/agent-client.js";
import { readSseChunks } from "../src/client/sse-reader.js";
import { scriptedModel } from "../src/providers/scripted/scripted-model.js";
import type { Model } from "../src/types/model.js";
import { canGc, fmt, fmtSummary, pairedRatio, roundRobin, summarize, table } from "./common.js";

const argument = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const ROUNDS = argument("rounds", 7);
const DELTAS = argument("deltas", 2_000);
const EVENTS = argument("events", 10_000);
const MODEL: Model = { id: "bench", api: "scripted", provider: "bench", contextWindow: 1e6, maxTokens: 1e5 };

const longReply = () => scriptedModel([{ text: "abcd".repeat(DELTAS), deltas: DELTAS }]);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

// 1. Our endpoint and store.
let thread = 0;
const ours = createServer(
  toNodeListener(createAgUiHandler({ agentFor: () => new Agent({ model: MODEL, streamFn: longReply() }) })),
);
const oursUrl = await listen(ours);

async function oursPerDelta(): Promise<number> {
  const start = cpuMs();
  const client = createAgentClient({ url: oursUrl, threadId: `bench-${++thread}`, memory: null });
  await new Promise<void>((resolve) => {
    const subscription = client.subscribe(({ context }) => {
      if (context.runId && context.status === "idle") {
        subscription.unsubscribe();
        resolve();
      }
    });
    client.trigger.submit({ text: "Go" });
  });
  client.close();
  return (cpuMs() - start) / DELTAS;
}

// 1''. Our endpoint, read by the bare reader of the relay (no store): the server's share alone.
async function oursBareReaderPerDelta(): Promise<number> {
  const start = cpuMs();
  const body = JSON.stringify({
    threadId: `bench-${++thread}`,
    runId: "r",
    messages: [{ id: "u", role: "user", content: "Go" }],
  });
  await readAll(oursUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
  return (cpuMs() - start) / DELTAS;
}

// 1'. The bare relay: same Agent run, translated events written as SSE and parsed by the reader.
const relay = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  const agent = new Agent({ model: MODEL, streamFn: longReply() });
  const translator = new AgUiTranslator();
  let id = 0;
  agent.subscribe((event) => {
    for (const translated of translator.translate(event)) response.write(sseFrame(++id, translated));
  });
  void agent.prompt("Go").then(() => response.end());
});
const relayUrl = await listen(relay);

// 1b. The bare relay writing the frames of one turn of the event loop at once (one write per turn).
const batchedRelay = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  const agent = new Agent({ model: MODEL, streamFn: longReply() });
  const translator = new AgUiTranslator();
  let id = 0;
  let pending: string[] = [];
  let flushing: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(flushing);
    flushing = undefined;
    if (pending.length > 0) response.write(pending.join(""));
    pending = [];
  };
  agent.subscribe((event) => {
    for (const translated of translator.translate(event)) pending.push(sseFrame(++id, translated));
    flushing ??= setTimeout(flush, 0);
  });
  void agent.prompt("Go").then(() => {
    flush();
    response.end();
  });
});
const batchedRelayUrl = await listen(batchedRelay);

async function readAll(url: string, init?: RequestInit): Promise<number> {
  const response = await fetch(url, init);
  let count = 0;
  for await (const messages of readSseChunks(response.body as ReadableStream<Uint8Array>))
    for (const message of messages) {
      JSON.parse(message.data);
      count++;
    }
  return count;
}

async function relayPerDelta(): Promise<number> {
  const start = cpuMs();
  await readAll(relayUrl);
  return (cpuMs() - start) / DELTAS;
}

async function batchedRelayPerDelta(): Promise<number> {
  const start = cpuMs();
  await readAll(batchedRelayUrl);
  return (cpuMs() - start) / DELTAS;
}

// 2. Replay of a finished run of EVENTS events, vs a bare server sending the same frames.
const replayHandler = createAgUiHandler({
  agentFor: () =>
    new Agent({ model: MODEL, streamFn: scriptedModel([{ text: "abcd".repeat(EVENTS), deltas: EVENTS }]) }),
});
const replayServer = createServer(toNodeListener(replayHandler));
const replayUrl = await listen(replayServer);
const replayInput = JSON.stringify({
  threadId: "replay",
  runId: "r",
  messages: [{ id: "u", role: "user", content: "Go" }],
});
const post = { method: "POST", headers: { "content-type": "application/json" }, body: replayInput };
const recorded: string[] = [];
{
  const response = await fetch(replayUrl, post);
  for await (const messages of readSseChunks(response.body as ReadableStream<Uint8Array>))
    for (const message of messages) recorded.push(`id: ${message.id}\ndata: ${message.data}\n\n`);
}
const recordedText = recorded.join("");
const bareReplay = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.end(recordedText);
});
const bareReplayUrl = await listen(bareReplay);

async function oursReplay(): Promise<number> {
  const start = cpuMs();
  const count = await readAll(replayUrl, { ...post, headers: { ...post.headers, "last-event-id": "0" } });
  if (count !== recorded.length) throw new Error(`replayed ${count} of ${recorded.length}`);
  return cpuMs() - start;
}

async function bareReplayRun(): Promise<number> {
  const start = cpuMs();
  const count = await readAll(bareReplayUrl);
  if (count !== recorded.length) throw new Error(`bare relay sent ${count} of ${recorded.length}`);
  return cpuMs() - start;
}

if (!canGc) console.warn("(run with node --expose-gc for forced GC between measurements)");
console.log(`AG-UI bench: ${DELTAS} deltas per run, replay of ${recorded.length} events, ${ROUNDS} rounds`);
const results = await roundRobin(
  [
    { name: "endpoint → store", measure: oursPerDelta },
    { name: "endpoint → bare reader", measure: oursBareReaderPerDelta },
    { name: "bare relay", measure: relayPerDelta },
    { name: "bare relay, one write per turn", measure: batchedRelayPerDelta },
    { name: "replay (endpoint)", measure: oursReplay },
    { name: "replay (bare)", measure: bareReplayRun },
  ],
  { rounds: ROUNDS, warmup: 2 },
);
const get = (name: string) => results.get(name) ?? [];
console.log(
  table(
    ["measure", "ours", "bare relay", "ratio (paired median)", "ratio to the relay writing once per turn"],
    [
      [
        "CPU ms per streamed delta, server → store",
        fmtSummary(summarize(get("endpoint → store"))),
        fmtSummary(summarize(get("bare relay"))),
        `${fmt(pairedRatio(get("endpoint → store"), get("bare relay")).median)}×`,
        `${fmt(pairedRatio(get("endpoint → store"), get("bare relay, one write per turn")).median)}×`,
      ],
      [
        "CPU ms per streamed delta, server → bare reader",
        fmtSummary(summarize(get("endpoint → bare reader"))),
        fmtSummary(summarize(get("bare relay"))),
        `${fmt(pairedRatio(get("endpoint → bare reader"), get("bare relay")).median)}×`,
        `${fmt(pairedRatio(get("endpoint → bare reader"), get("bare relay, one write per turn")).median)}×`,
      ],
      [
        `CPU ms per replay of ${recorded.length} events`,
        fmtSummary(summarize(get("replay (endpoint)"))),
        fmtSummary(summarize(get("replay (bare)"))),
        `${fmt(pairedRatio(get("replay (endpoint)"), get("replay (bare)")).median)}×`,
        "",
      ],
    ],
  ),
);
const median = (name: string) => summarize(get(name)).median;
const bare = median("bare relay");
const serverShare = median("endpoint → bare reader") - bare;
const storeShare = median("endpoint → store") - median("endpoint → bare reader");
console.log(
  `per delta: bare relay ${fmt(bare * 1000)} µs; the server adds ${fmt(serverShare * 1000)} µs ` +
    `(${fmt(serverShare / bare)}× the relay), the client store adds ${fmt(storeShare * 1000)} µs ` +
    `(${fmt(storeShare / bare)}×); whole ${fmt(median("endpoint → store") / bare)}× (target ≤ 1.3×); ` +
    `the relay writing once per turn: ${fmt(median("bare relay, one write per turn") * 1000)} µs`,
);
for (const server of [ours, relay, batchedRelay, replayServer, bareReplay]) {
  server.closeAllConnections();
  server.close();
}

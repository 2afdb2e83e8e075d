import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  createInspectorClient,
  createInspectorServer,
  type InspectorServer,
} from "../../src/inspector/index.js";
import type { InspectionRecord, InspectorServerMessage } from "../../src/inspector/inspection-record.js";
import type { LayoutEngine } from "../../src/inspector/page/diagram-layout.js";
import { callWaiting, promptRead, runEnded, startReadAgent } from "../support/inspected-agent.js";

/** A page stand-in: collects every record it receives and lets a test await a condition. */
function connectViewer(server: InspectorServer) {
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws`);
  const records: InspectionRecord[] = [];
  const messages: InspectorServerMessage[] = [];
  let onChange = () => {};
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as InspectorServerMessage;
    messages.push(message);
    records.push(...message.records);
    onChange();
  });
  const until = (predicate: () => boolean) =>
    new Promise<void>((resolve) => {
      if (predicate()) return resolve();
      onChange = () => {
        if (predicate()) resolve();
      };
    });
  const opened = new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return { socket, records, messages, until, opened };
}

let server: InspectorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("inspector server", () => {
  it("serves the page and its modules from the package, without any external URL", async () => {
    server = await createInspectorServer({ port: 0 });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    const page = await fetch(server.url);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain('src="/assets/main.js"');
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    for (const name of ["main.js", "state-diagram.js", "diagram-layout.js", "inspector-model.js"]) {
      const asset = await fetch(new URL(`/assets/${name}`, server.url));
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toContain("text/javascript");
      const source = await asset.text();
      expect(source).not.toContain(": string");
      expect(source).not.toMatch(/from "(?!\.\/)/);
    }
    expect((await fetch(new URL("/assets/..%2Finspector-server.js", server.url))).status).toBe(404);
    expect((await fetch(new URL("/nope", server.url))).status).toBe(404);
  });

  it("serves the installed elkjs as an ES module whose default export is the layout engine", async () => {
    server = await createInspectorServer({ port: 0 });
    const asset = await fetch(new URL("/assets/elk.js", server.url));
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("text/javascript");
    const folder = mkdtempSync(join(tmpdir(), "agentchart-elk-asset-"));
    try {
      const file = join(folder, "elk.mjs");
      writeFileSync(file, await asset.text());
      const { default: ELK } = (await import(pathToFileURL(file).href)) as {
        default: new () => LayoutEngine;
      };
      const graph = await new ELK().layout({
        id: "graph",
        layoutOptions: { "elk.algorithm": "layered", "elk.direction": "RIGHT" },
        children: [
          { id: "a", width: 40, height: 20 },
          { id: "b", width: 40, height: 20 },
        ],
        edges: [{ id: "a-b", sources: ["a"], targets: ["b"] }],
      });
      const [a, b] = graph.children ?? [];
      expect(b?.x).toBeGreaterThan((a?.x ?? 0) + 40);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("replays the backlog to a late viewer, then streams new records", async () => {
    server = await createInspectorServer({ port: 0, backlogSize: 3 });
    const agent = startReadAgent(server.inspect, { needsApproval: true });
    promptRead(agent);
    await callWaiting(agent);
    const viewer = connectViewer(server);
    await viewer.until(() => viewer.messages.length >= 1);
    const replay = viewer.messages[0];
    expect(replay?.type).toBe("replay");
    expect(replay?.records).toHaveLength(3);
    expect(replay?.type === "replay" && replay.definitions.map((d) => d.root.id)).toEqual([
      "agent",
      "toolCall",
    ]);

    agent.send({ type: "APPROVE_TOOL", toolCallId: "call_1" });
    await viewer.until(() =>
      viewer.records.some((r) => r.kind === "snapshot" && r.actorId === "agent" && r.value === "idle"),
    );
    const seqs = viewer.records.map((record) => record.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    viewer.socket.close();
  });

  it("rebroadcasts records that another process sends to /ingest, under its own namespace", async () => {
    server = await createInspectorServer({ port: 0 });
    const viewer = connectViewer(server);
    await viewer.opened;
    const client = createInspectorClient(server.url);
    const agent = startReadAgent(client.inspect, { needsApproval: true });
    promptRead(agent);
    await client.ready;
    await viewer.until(() => viewer.records.some((r) => r.kind === "actor" && r.actorId === "call_1"));
    expect(viewer.records.every((record) => record.sessionId.startsWith("i1/"))).toBe(true);
    expect(viewer.records.find((record) => record.kind === "actor")).toMatchObject({
      definition: { root: { id: "agent" } },
    });
    await client.close();
    viewer.socket.close();
  });

  it("flushes records buffered while connecting when the client is closed right away", async () => {
    server = await createInspectorServer({ port: 0 });
    const viewer = connectViewer(server);
    await viewer.opened;
    const client = createInspectorClient(`ws://127.0.0.1:${server.port}/ingest`);
    const agent = startReadAgent(client.inspect, { needsApproval: false });
    agent.send({ type: "SET_STREAM_OPTIONS", streamOptions: { temperature: 0.1 } });
    agent.send({ type: "SET_STREAM_OPTIONS", streamOptions: { temperature: 0.2 } });
    await client.close();
    await viewer.until(() =>
      viewer.records.some(
        (r) =>
          r.kind === "snapshot" &&
          (r.context as { streamOptions?: { temperature?: number } }).streamOptions?.temperature === 0.2,
      ),
    );
    expect(
      viewer.records.filter((r) => r.kind === "event").map((r) => r.kind === "event" && r.eventType),
    ).toEqual(["xstate.init", "SET_STREAM_OPTIONS", "SET_STREAM_OPTIONS"]);
    viewer.socket.close();
  });

  it("refuses WebSocket connections from other web origins", async () => {
    server = await createInspectorServer({ port: 0 });
    const foreign = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, { origin: "https://evil.example" });
    const status = await new Promise<number | undefined>((resolve) => {
      foreign.once("unexpected-response", (_request, response) => resolve(response.statusCode));
      foreign.once("error", () => resolve(undefined));
    });
    expect(status).toBe(403);
    const own = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, { origin: server.url.slice(0, -1) });
    await new Promise<void>((resolve, reject) => {
      own.once("open", () => resolve());
      own.once("error", reject);
    });
    own.close();
  });

  it("lets a client that cannot connect fail `ready` without crashing the inspected actor", async () => {
    server = await createInspectorServer({ port: 0 });
    const port = server.port;
    await server.close();
    server = undefined;
    const client = createInspectorClient(`http://127.0.0.1:${port}/`);
    const agent = startReadAgent(client.inspect, { needsApproval: false });
    promptRead(agent);
    await expect(client.ready).rejects.toThrow();
    await runEnded(agent);
    await client.close();
  });
});

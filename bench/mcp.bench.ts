// MCP benchmark, two figures, each against a bare baseline measured in the same run:
// 1. Per tool call over stdio: an agentchart MCP tool's `execute` (JSON Schema check, call, result
//    mapping) vs `client.callTool` of the bare SDK client, each on its own test server process
//    (test/support/mcp-test-server.mjs), N sequential calls of `echo` per measurement; also the bare
//    client passing what progress and abort need (`onprogress`, a fresh `signal`), to isolate the SDK's
//    own cost of those features from agentchart's.
// 2. Connecting 5 stdio servers in parallel with `connectMcpServers` vs the slowest of 5 single
//    connects (and, for reference, 5 bare SDK clients connecting in parallel).
// Round-robin rounds with forced GC and a quiet-machine wait; medians (min–max) and medians of the
// paired per-round ratios.
//
//   node --expose-gc --import tsx bench/mcp.bench.ts [--rounds N] [--calls N]
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { connectMcpServers, type McpConnection } from "../src/mcp.js";
import type { AgentTool } from "../src/types/tool.js";
import { canGc, fmt, fmtSummary, pairedRatio, quietStats, roundRobin, summarize, table } from "./common.js";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
}
const ROUNDS = option("rounds", 9);
const CALLS = option("calls", 300);
const SERVERS = 5;

const server = fileURLToPath(new URL("../test/support/mcp-test-server.mjs", import.meta.url));
const entry = { command: process.execPath, args: [server] };
const load = loadavg()[0]!;

// 1. Per call.
const bare = new Client({ name: "bench", version: "1.0.0" });
await bare.connect(new StdioClientTransport({ ...entry, stderr: "pipe" }));
const ours: McpConnection = await connectMcpServers({ mcpServers: { bench: entry } });
const echo = ours.tools.find((tool) => tool.name === "bench__echo") as AgentTool;
// A fresh signal per call, as the agent loop gives every tool call its own.
const ctx = () => ({
  toolCallId: "bench",
  idempotencyKey: "bench:bench",
  signal: new AbortController().signal,
  update: () => {},
  context: undefined,
});

/** CPU µs of this process (the client side) per call, by variant, in the order measured. */
const cpuPerCall = new Map<string, number[]>([
  ["bare", []],
  ["bare + progress + signal", []],
  ["agentchart", []],
]);
/** Runs CALLS sequential calls; returns the wall µs per call and records the client's CPU µs per call. */
async function timeCalls(variant: string, call: (index: number) => Promise<unknown>): Promise<number> {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  for (let index = 0; index < CALLS; index++) await call(index);
  const wall = ((performance.now() - start) / CALLS) * 1000;
  const cpu = process.cpuUsage(cpuStart);
  cpuPerCall.get(variant)!.push((cpu.user + cpu.system) / CALLS);
  return wall;
}
const callArgs = (index: number) => ({ text: `call ${index}` });
// The agent loop validates the arguments before `execute`; the tool's zod wrapper runs ajv.
const viaTool = (index: number) => {
  const parsed = echo.parameters.safeParse(callArgs(index));
  if (!parsed.success) throw new Error("invalid arguments");
  return echo.execute(parsed.data, ctx());
};
const perCall = await roundRobin(
  [
    {
      name: "bare",
      measure: () =>
        timeCalls("bare", (index) => bare.callTool({ name: "echo", arguments: callArgs(index) })),
    },
    {
      // What the two features cost in the SDK itself: a progress token and an abort listener per call.
      name: "bare + progress + signal",
      measure: () =>
        timeCalls("bare + progress + signal", (index) =>
          bare.callTool({ name: "echo", arguments: callArgs(index) }, undefined, {
            signal: new AbortController().signal,
            onprogress: () => {},
            resetTimeoutOnProgress: true,
          }),
        ),
    },
    { name: "agentchart", measure: () => timeCalls("agentchart", viaTool) },
  ],
  { rounds: ROUNDS, warmup: 2 },
);
await bare.close();
await ours.close();
// roundRobin keeps the measured rounds only; drop the warm-up CPU figures the same way.
for (const values of cpuPerCall.values()) values.splice(0, values.length - ROUNDS);

// 2. Connecting.
const config = (count: number) => ({
  mcpServers: Object.fromEntries(Array.from({ length: count }, (_, index) => [`s${index}`, entry])),
});
async function timed(run: () => Promise<() => Promise<void>>): Promise<number> {
  const start = performance.now();
  const close = await run();
  const elapsed = performance.now() - start;
  await close();
  return elapsed;
}
const connectOne = () =>
  timed(async () => {
    const connection = await connectMcpServers(config(1));
    if (connection.servers[0]?.state !== "connected") throw new Error("the server did not connect");
    return () => connection.close();
  });
async function slowestSingle(): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < SERVERS; index++) times.push(await connectOne());
  return Math.max(...times);
}
const parallel = () =>
  timed(async () => {
    const connection = await connectMcpServers(config(SERVERS));
    if (connection.servers.some((status) => status.state !== "connected"))
      throw new Error("a server did not connect");
    return () => connection.close();
  });
const bareParallel = () =>
  timed(async () => {
    const clients = Array.from({ length: SERVERS }, () => new Client({ name: "bench", version: "1.0.0" }));
    await Promise.all(
      clients.map((client) =>
        client.connect(new StdioClientTransport({ ...entry, stderr: "pipe" })).then(() => client.listTools()),
      ),
    );
    return async () => {
      await Promise.all(clients.map((client) => client.close()));
    };
  });
const connecting = await roundRobin(
  [
    { name: "slowest single", measure: slowestSingle },
    { name: "parallel", measure: parallel },
    { name: "bare parallel", measure: bareParallel },
  ],
  { rounds: ROUNDS, warmup: 1 },
);

const callRatio = pairedRatio(perCall.get("agentchart")!, perCall.get("bare")!);
const cpuRatio = pairedRatio(cpuPerCall.get("agentchart")!, cpuPerCall.get("bare")!);
const featureRatio = pairedRatio(perCall.get("agentchart")!, perCall.get("bare + progress + signal")!);
const featureCpuRatio = pairedRatio(
  cpuPerCall.get("agentchart")!,
  cpuPerCall.get("bare + progress + signal")!,
);
const connectRatio = pairedRatio(connecting.get("parallel")!, connecting.get("slowest single")!);
const bareConnectRatio = pairedRatio(connecting.get("bare parallel")!, connecting.get("slowest single")!);
console.log(
  `${CALLS} calls per measurement, ${ROUNDS} rounds, gc ${canGc ? "forced" : "unavailable"}, ` +
    `load average at start ${load.toFixed(1)}, quiet waits timed out ${quietStats.timeouts}/${quietStats.waits}`,
);
console.log(
  table(
    ["figure", "agentchart", "bare SDK", "ratio (paired)", "target"],
    [
      [
        "µs per tool call over stdio",
        fmtSummary(summarize(perCall.get("agentchart")!)),
        fmtSummary(summarize(perCall.get("bare")!)),
        `${fmt(callRatio.median)}× (${fmt(callRatio.min)}–${fmt(callRatio.max)})`,
        "≤ 1.2×",
      ],
      [
        "client CPU µs per tool call",
        fmtSummary(summarize(cpuPerCall.get("agentchart")!)),
        fmtSummary(summarize(cpuPerCall.get("bare")!)),
        `${fmt(cpuRatio.median)}× (${fmt(cpuRatio.min)}–${fmt(cpuRatio.max)})`,
        "",
      ],
      [
        "µs per call vs bare SDK with progress + signal (wall / CPU)",
        "",
        `${fmtSummary(summarize(perCall.get("bare + progress + signal")!))} / ${fmtSummary(summarize(cpuPerCall.get("bare + progress + signal")!))}`,
        `${fmt(featureRatio.median)}× / ${fmt(featureCpuRatio.median)}×`,
        "",
      ],
      [
        `ms to connect ${SERVERS} servers in parallel`,
        fmtSummary(summarize(connecting.get("parallel")!)),
        fmtSummary(summarize(connecting.get("bare parallel")!)),
        `${fmt(connectRatio.median)}× of the slowest single (${fmt(connectRatio.min)}–${fmt(connectRatio.max)}); bare SDK ${fmt(bareConnectRatio.median)}×`,
        "≤ 1.2×",
      ],
      [
        "ms, slowest of 5 single connects",
        fmtSummary(summarize(connecting.get("slowest single")!)),
        "",
        "",
        "",
      ],
    ],
  ),
);

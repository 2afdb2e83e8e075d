// Sub-agents (issue 17), two figures, each with its baseline measured in the same run, round-robin,
// paired per-round ratios:
//
// 1. Time of one sub-agent call against a fresh Agent doing the same turn (target ≤ 1.5×). The turn:
//    one prompt answered by the faux LLM with a 20-delta text reply. Baseline: `new Agent` + `prompt()`
//    doing that turn. A sub-agent call's cost: a root run whose reply calls an agent tool (its child
//    does that turn) minus the same root run with a plain tool returning text at once — the root's own
//    two turns cancel out, what is left is starting, running and collecting the child.
// 2. Heap of an idle tree against independent agents (target ≤ 1.3×). Idle tree: one root whose reply
//    called an agent tool 100 times in parallel, each of the 100 children waiting for approval of its
//    one tool call. Baseline: 100 independent Agents, each waiting for approval of its one tool call.
//    Heap after GC, per waiting agent (the tree's root and its 100 call actors are counted in).
//
//   node --expose-gc --import tsx bench/subagents.bench.ts [--rounds N] [--n N] [--clock wall]
//
// Times are this process's CPU time (user + system, `process.cpuUsage`) unless `--clock wall`: the
// box is shared, and the difference of two runs is what is quoted, so noise from other jobs counts twice.
import { z } from "zod";
import { AGENTCHART_BUILD, core } from "./agentchart-build.js";
import {
  canGc,
  fmt,
  fmtRatio,
  fmtSummary,
  forceGc,
  pairedRatio,
  roundRobin,
  type Summary,
  summarize,
  table,
} from "./common.js";
import { FAUX_MODEL, type Script, TOOL_NAMES } from "./faux.js";
import { ourFauxStreamFn } from "./loop-runners.js";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback;
const rounds = option("--rounds", 6);
/** Runs per time measurement. */
const N = option("--n", 300);
/** Waiting agents per heap measurement. */
const TREE = 100;
/** The clock, in ms: this process's CPU time (default) or wall time. */
const clock =
  argv.includes("--clock") && argv[argv.indexOf("--clock") + 1] === "wall"
    ? () => performance.now()
    : () => {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1000;
      };
const DELTAS = 20;
const text: Script = { tools: 0, deltas: DELTAS };
const model = FAUX_MODEL as any;
const args = z.object({ path: z.string() });

/** The faux's tool call names the first tool `read_file`; `count` calls cycle through its four names. */
const plainTool = core.defineTool({
  name: TOOL_NAMES[0],
  description: "Answers at once",
  parameters: args,
  execute: async () => ({ content: [{ type: "text", text: "abcd".repeat(DELTAS) }] }),
});
const agentTool = (name: string, child: Script, requiresApproval: boolean) =>
  core.defineAgentTool({
    name,
    description: "Delegates to a child agent",
    parameters: args,
    maxConcurrent: TREE,
    input: ({ path }) => `look at ${path}`,
    agent: {
      streamFn: ourFauxStreamFn(child) as any,
      ...(requiresApproval ? { tools: [approvalTool()] } : {}),
    },
  });
const approvalTool = () =>
  core.defineTool({
    name: TOOL_NAMES[0],
    description: "Needs approval",
    parameters: args,
    requiresApproval: true,
    execute: async () => ({ content: [{ type: "text", text: "done" }] }),
  });

type TimeVariant = "fresh Agent" | "root + plain tool" | "root + agent tool";

/** µs per run: `N` fresh agents, each made, prompted once and run to its end (all inside the clock). */
async function perRun(variant: TimeVariant): Promise<number> {
  const root: Script = { tools: 1, deltas: DELTAS };
  const tools = [variant === "root + plain tool" ? plainTool : agentTool(TOOL_NAMES[0], text, false)];
  const agents: InstanceType<typeof core.Agent>[] = [];
  let deltas = 0;
  const count = (event: { type: string; assistantMessageEvent?: { type: string } }) => {
    if (event.type === "message_update" && event.assistantMessageEvent?.type === "text_delta") deltas++;
  };
  const start = clock();
  for (let index = 0; index < N; index++) {
    const agent =
      variant === "fresh Agent"
        ? new core.Agent({ model, streamFn: ourFauxStreamFn(text) as any })
        : new core.Agent({ model, streamFn: ourFauxStreamFn(root) as any, tools });
    agent.subscribe(count);
    await agent.prompt("go");
    agents.push(agent);
  }
  const elapsed = clock() - start;
  // Every delta of the run reaches the root's listener: with an agent tool, the child's 20 too.
  const expected = N * DELTAS * (variant === "root + agent tool" ? 2 : 1);
  if (deltas !== expected) throw new Error(`${variant}: ${deltas} deltas, expected ${expected}`);
  const messages = variant === "fresh Agent" ? 2 : 4;
  for (const agent of agents)
    if (agent.state.messages.length !== messages || agent.state.messages.at(-1)?.role !== "assistant")
      throw new Error(`${variant}: ${agent.state.messages.length} messages, expected ${messages}`);
  return (elapsed * 1000) / N;
}

type HeapVariant = "100 independent agents" | "idle tree of 100 children";

/** Bytes of heap per agent waiting for approval (after GC), the agents kept until measured. */
async function heapPerWaitingAgent(variant: HeapVariant): Promise<number> {
  forceGc();
  const before = process.memoryUsage().heapUsed;
  let asked = 0;
  let all!: () => void;
  const waiting = new Promise<void>((resolve) => {
    all = resolve;
  });
  const onEvent = (event: { type: string }) => {
    if (event.type === "tool_approval_request" && ++asked === TREE) all();
  };
  const agents: InstanceType<typeof core.Agent>[] = [];
  if (variant === "100 independent agents")
    for (let index = 0; index < TREE; index++)
      agents.push(
        new core.Agent({
          model,
          streamFn: ourFauxStreamFn({ tools: 1, deltas: 0 }) as any,
          tools: [approvalTool()],
        }),
      );
  else
    agents.push(
      new core.Agent({
        model,
        streamFn: ourFauxStreamFn({ tools: TREE, deltas: DELTAS }) as any,
        tools: TOOL_NAMES.map((name) => agentTool(name, { tools: 1, deltas: 0 }, true)),
      }),
    );
  const runs = agents.map((agent) => {
    agent.subscribe(onEvent);
    return agent.prompt("go");
  });
  await waiting;
  const waitingNow = agents.reduce((sum, agent) => sum + agent.state.awaitingApproval.length, 0);
  if (waitingNow !== TREE) throw new Error(`${variant}: ${waitingNow} calls waiting, expected ${TREE}`);
  forceGc();
  const after = process.memoryUsage().heapUsed;
  for (const agent of agents) agent.abort();
  await Promise.all(runs);
  return (after - before) / TREE;
}

if (!canGc) throw new Error("run with node --expose-gc: the heap figures need forced GC");
const log = (line: string) => process.stderr.write(`${line}\n`);
const times = await roundRobin(
  (["fresh Agent", "root + plain tool", "root + agent tool"] as const).map((name) => ({
    name,
    measure: () => perRun(name),
  })),
  { rounds, warmup: 2, log },
);
const heaps = await roundRobin(
  (["100 independent agents", "idle tree of 100 children"] as const).map((name) => ({
    name,
    measure: () => heapPerWaitingAgent(name),
  })),
  { rounds, warmup: 1, log },
);

/** A paired ratio: its median in bold, the range of the per-round ratios after it. */
const ratioText = (ratio: Summary) => `**${fmtRatio(ratio)}** (${fmt(ratio.min)}–${fmt(ratio.max)})`;
const time = (name: TimeVariant) => times.get(name)!;
const callCost = time("root + agent tool").map((value, round) => value - time("root + plain tool")[round]!);
console.log(`### Time: one sub-agent call vs a fresh Agent doing the same turn (${N} runs per figure), µs\n`);
console.log(
  table(
    ["run", "µs per run", "ratio to fresh Agent", "target"],
    [
      ["fresh Agent: one 20-delta text turn", fmtSummary(summarize(time("fresh Agent"))), "1×", "baseline"],
      ["root: tool call → plain tool → text", fmtSummary(summarize(time("root + plain tool"))), "—", "—"],
      [
        "root: tool call → agent tool (child: that turn) → text",
        fmtSummary(summarize(time("root + agent tool"))),
        "—",
        "—",
      ],
      [
        "**one sub-agent call** (agent tool − plain tool)",
        fmtSummary(summarize(callCost)),
        ratioText(pairedRatio(callCost, time("fresh Agent"))),
        "≤ 1.5×",
      ],
    ],
  ),
);
const heap = (name: HeapVariant) => heaps.get(name)!;
const kb = (values: number[]) => values.map((bytes) => bytes / 1024);
console.log(`\n### Heap per agent waiting for approval (${TREE} agents, after GC), KB\n`);
console.log(
  table(
    ["agents", "KB per waiting agent", "ratio", "target"],
    [
      [
        `${TREE} independent Agents`,
        fmtSummary(summarize(kb(heap("100 independent agents")))),
        "1×",
        "baseline",
      ],
      [
        `idle tree: a root + ${TREE} children`,
        fmtSummary(summarize(kb(heap("idle tree of 100 children")))),
        ratioText(pairedRatio(heap("idle tree of 100 children"), heap("100 independent agents"))),
        "≤ 1.3×",
      ],
    ],
  ),
);
const clockName = argv.includes("--clock") ? "wall" : "process CPU";
console.log(
  `\nbuild: ${AGENTCHART_BUILD}; clock: ${clockName}; rounds ${rounds}; ${fmt(N)} runs per time figure.`,
);

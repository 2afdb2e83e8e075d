// Budget checks, per round-trip: one prompt whose answer calls 4 tools (in parallel) and then answers
// with 20 text deltas (the zero-latency faux LLM of loop.bench.ts), run by the agentchart Agent without a
// budget and with one that sets every limit (high enough never to be reached, so every check runs: two
// model calls and four tool calls reserved — wall clock, request estimates and loop breakers included —,
// two replies settled, per round-trip). Same process,
// round-robin, paired ratio to the agent without a budget (issue 31: the checks cost < 2 % of a
// round-trip).
//
// A second figure, a delegation: the root's answer calls an agent tool whose child makes that same
// round-trip (2 model calls, 4 parallel tool calls), then the root answers. With a budget on the root
// (none on the child), each of the child's six calls is reserved with the root's ledger before it
// starts (RESERVE up, RESERVATION down); the paired ratio to the same tree without a budget is what the
// shared ledger costs.
//
//   node --expose-gc --import tsx bench/budget.bench.ts [--rounds N]

import { z } from "zod";
import { checkModelCall, checkToolCall, openLedger, settleReply } from "../src/loop/budget-ledger.js";
import { AGENTCHART_BUILD, core } from "./agentchart-build.js";
import { fmtRatio, fmtSummary, pairedRatio, roundRobin, summarize, table } from "./common.js";
import { FAUX_MODEL, type Script, TOOL_NAMES } from "./faux.js";
import { ourFauxStreamFn, ourTools } from "./loop-runners.js";

const argv = process.argv.slice(2);
const rounds = argv.includes("--rounds") ? Number(argv[argv.indexOf("--rounds") + 1]) : 10;
const AGENTS = 20;
/** Prompts per agent: few, so that the transcript's growth does not dominate the figure. */
const PROMPTS = 20;
const script: Script = { tools: 4, deltas: 20 };
const BUDGET = {
  maxTokens: 1e12,
  maxModelCalls: 1e9,
  maxToolCalls: 1e9,
  maxToolCallsPerTool: 1e9,
  maxTurns: 1e9,
  maxWallMs: 1e12,
  // Every round-trip makes the same four calls: the loop breakers are set high (they still run).
  maxIdenticalCalls: 1e9,
  maxFailedRepeats: 1e9,
  maxRepeatedReplies: 1e9,
  onExceeded: "pause" as const,
};

type Variant = "no budget" | "budget";
type TreeVariant = "tree, no budget" | "tree, budget on the root";

/** An agent tool named like the faux's first tool: its child makes the bench's round-trip. */
const delegate = core.defineAgentTool({
  name: TOOL_NAMES[0],
  description: "Delegates to a child agent",
  parameters: z.object({ path: z.string() }),
  input: ({ path }) => `look at ${path}`,
  agent: { streamFn: ourFauxStreamFn(script) as any, tools: ourTools, toolExecution: "parallel" },
});

/**
 * Microseconds per prompt of `AGENTS` fresh agents made by `make`, `PROMPTS` prompts each, every run
 * ending normally with `messagesPerPrompt` new messages.
 */
async function perPrompt(
  name: string,
  make: () => InstanceType<typeof core.Agent>,
  messagesPerPrompt: number,
): Promise<number> {
  const agents = Array.from({ length: AGENTS }, make);
  const start = performance.now();
  for (const agent of agents)
    for (let index = 0; index < PROMPTS; index++) {
      const result = await agent.prompt("go");
      if (result.stopReason !== "stop") throw new Error(`${name}: the run ended with ${result.stopReason}`);
    }
  const elapsed = performance.now() - start;
  const expected = PROMPTS * messagesPerPrompt;
  for (const agent of agents)
    if (agent.state.messages.length !== expected)
      throw new Error(`${name}: ${agent.state.messages.length} messages, expected ${expected}`);
  return (elapsed * 1e3) / (AGENTS * PROMPTS);
}

/** Per round-trip (a prompt, its 4 tool calls, the final answer): user, assistant, 4 results, assistant. */
function perRoundTrip(variant: Variant): Promise<number> {
  const make = () =>
    new core.Agent({
      model: FAUX_MODEL as any,
      streamFn: ourFauxStreamFn(script) as any,
      tools: ourTools,
      toolExecution: "parallel",
      ...(variant === "budget" ? { budget: BUDGET } : {}),
    });
  return perPrompt(variant, make, 7);
}

/** Per delegation (the root's call → the child's round-trip → the root's answer): 4 root messages. */
function perDelegation(variant: TreeVariant): Promise<number> {
  const make = () =>
    new core.Agent({
      model: FAUX_MODEL as any,
      streamFn: ourFauxStreamFn({ tools: 1, deltas: script.deltas }) as any,
      tools: [delegate],
      ...(variant === "tree, budget on the root" ? { budget: BUDGET } : {}),
    });
  return perPrompt(variant, make, 4);
}

/**
 * Microseconds of the ledger's own steps for one round-trip (2 model calls and 4 tool calls reserved,
 * 2 replies settled), measured alone over many round-trips: the pure part of the checks.
 */
function ledgerPerRoundTrip(): number {
  // Four calls, each of its own tool with its own arguments (the loop breakers compare them).
  const toolCalls = ourTools.map((tool, index) => ({
    type: "toolCall" as const,
    id: `c${index}`,
    name: tool.name,
    arguments: { value: index },
  }));
  const usage = { totalTokens: 100, cost: { total: 0.001 } };
  const replies = [
    { content: toolCalls, usage },
    { content: [{ type: "text", text: "the answer, in twenty deltas" }], usage },
  ] as any[];
  const TRIPS = 20_000;
  const start = performance.now();
  let ledger = openLedger(BUDGET, Date.now());
  for (let trip = 0; trip < TRIPS; trip++) {
    for (let call = 0; call < 2; call++) {
      const verdict = checkModelCall(ledger, Date.now());
      if (!verdict.go) throw new Error("the bench's budget was reached");
      ledger = settleReply(verdict.ledger, replies[call]);
    }
    for (let call = 0; call < 4; call++) {
      const verdict = checkToolCall(ledger, toolCalls[call]!, Date.now());
      if (!verdict.go) throw new Error("the bench's budget was reached");
      ledger = verdict.ledger;
    }
  }
  return ((performance.now() - start) * 1e3) / TRIPS;
}

const figures = await roundRobin(
  [
    ...(["no budget", "budget"] as const).map((variant) => ({
      name: variant,
      measure: () => perRoundTrip(variant),
    })),
    { name: "ledger", measure: async () => ledgerPerRoundTrip() },
    ...(["tree, no budget", "tree, budget on the root"] as const).map((variant) => ({
      name: variant,
      measure: () => perDelegation(variant),
    })),
  ],
  { rounds, warmup: 2, log: (text) => process.stderr.write(`${text}\n`) },
);
const get = (name: Variant | TreeVariant | "ledger") => figures.get(name)!;
console.log(
  `### Per round-trip (prompt → 4 parallel tool calls → 20-delta answer), ${AGENTS} agents × ${PROMPTS} prompts, µs\n`,
);
console.log(
  table(
    ["agent", "µs per round-trip", "ratio to no budget", "target"],
    [
      ["no budget", fmtSummary(summarize(get("no budget"))), "1×", "baseline"],
      [
        "every limit set (none reached)",
        fmtSummary(summarize(get("budget"))),
        `**${fmtRatio(pairedRatio(get("budget"), get("no budget")))}**`,
        "< 1.02×",
      ],
      [
        "the ledger's steps alone (2 model calls, 4 tool calls, 2 replies)",
        fmtSummary(summarize(get("ledger"))),
        `${fmtRatio(pairedRatio(get("ledger"), get("no budget")))} of a round-trip`,
        "< 0.02×",
      ],
    ],
  ),
);
console.log(
  `\n### Per delegation (root call → the child's round-trip, its 6 calls reserved with the root → root's answer), µs\n`,
);
console.log(
  table(
    ["tree", "µs per delegation", "ratio to no budget", "target"],
    [
      ["no budget", fmtSummary(summarize(get("tree, no budget"))), "1×", "baseline"],
      [
        "every limit set on the root (the child's calls reserved above)",
        fmtSummary(summarize(get("tree, budget on the root"))),
        `**${fmtRatio(pairedRatio(get("tree, budget on the root"), get("tree, no budget")))}**`,
        "< 1.02×",
      ],
    ],
  ),
);
console.log(`\nbuild: ${AGENTCHART_BUILD}; rounds ${rounds}.`);

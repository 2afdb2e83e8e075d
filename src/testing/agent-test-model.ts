import type { AnyStateMachine, SnapshotFrom } from "xstate";
import { getAdjacencyMap, getShortestPaths } from "xstate/graph";
import type { AgentCommand } from "../machines/agent/agent.events.js";
import { type AgentMachineOptions, hasTurnCallbacks } from "../machines/agent/agent.implementations.js";
import { type AgentMachineInput, agentMachine } from "../machines/agent/agent.machine.js";
import { type AgentMachine, createAgentMachine } from "../machines/agent/agent.provided.js";
import { toolCallMachine } from "../machines/tool-call/tool-call.machine.js";
import { scriptedModel } from "../providers/scripted/scripted-model.js";
import type { ScriptedReply, ScriptedToolCall } from "../providers/scripted/scripted-reply.js";
import type { Model } from "../types/model.js";
import type { AssistantMessageEvent, StreamFn } from "../types/stream.js";
import type { AgentTool } from "../types/tool.js";
import { agentRunInvariants } from "./agent-invariants.js";
import type { AgentInvariant } from "./agent-observation.js";
import { AgentPathRun, verdictFor } from "./agent-path-run.js";
import { AgentTestError } from "./agent-test-error.js";
import {
  createOutsideModel,
  type OutsideEvent,
  type OutsideEventSwitches,
  type OutsideModel,
  type OutsideWorld,
  outsideEvents,
  type ScriptedCall,
} from "./outside-model.js";
import { createTransitionCoverage, type MachineCoverage } from "./transition-coverage.js";

/** What `createAgentTestModel` takes: the user's agent, its model's script, and what to explore. */
export interface AgentTestModelOptions {
  /** The agent under test: what `createAgentMachine` takes, without the StreamFn (the script is the model). */
  agent: Omit<AgentMachineOptions, "streamFn">;
  /**
   * The model's replies, in order (a scripted model's script; a recording's replies fit too). Tool
   * calls without an `id` get `call_1`, `call_2`, … in script order, the names the paths use.
   */
  script: ScriptedReply[];
  /** The actor's input; `model` defaults to a record of the scripted model. */
  input?: Partial<AgentMachineInput>;
  /** The optional outside events to explore (each on unless set to `false`). */
  explore?: OutsideEventSwitches;
  /** Your own commands, by the name paths show: each is sent at most once per path, while a run is on. */
  commands?: Record<string, AgentCommand>;
  /** Your own invariants, checked after every step, after the built-in ones. */
  invariants?: AgentInvariant[];
  /** The most paths to run (default 500); exploration that finds more says so. */
  maxPaths?: number;
  /** The most steps a path may take (default 24); longer paths are left out and reported. */
  maxSteps?: number;
}

/** One step of a path: the outside event, its name in the test's name, and the state it must reach. */
export interface AgentTestStep {
  event: OutsideEvent;
  name: string;
  /** The state the real agent must be in after the step (`idle`, `streaming`, `executingTools {…}`). */
  expected: string;
}

/** One generated path: its steps and its readable name (`PROMPT → approve call_1 → ABORT while streaming`). */
export interface AgentTestPath {
  name: string;
  steps: AgentTestStep[];
}

/** The generated paths and, when the bounds cut the exploration short, what was left out. */
export interface AgentPathExploration {
  paths: AgentTestPath[];
  exceeded?: {
    /** Paths kept (at most `maxPaths`). */
    found: number;
    /** More paths were left once `maxPaths` was reached. */
    more: boolean;
    /** Paths left out for taking more than `maxSteps` steps. */
    tooLong: number;
    maxPaths: number;
    maxSteps: number;
  };
}

/** Which states and transitions of the agent and tool-call machines the paths run so far reached. */
export interface AgentTestCoverage {
  agent: MachineCoverage;
  toolCall: MachineCoverage;
}

/** A model of the user's agent to test: its paths, a runner for one, and the coverage reached. */
export interface AgentTestModel {
  /** The real agent machine the paths run (the user's options, with the kit holding model, tools and guardrails). */
  readonly machine: AgentMachine;
  /**
   * The abstract statechart of the outside events the paths are generated from (context: the script's
   * position, the batch's calls, queued messages), for your own xstate/graph queries.
   */
  readonly outsideModel: AnyStateMachine;
  /** Shortest paths to every state, then simple paths, bounded (computed once). */
  explore(): AgentPathExploration;
  /** Runs one path against the real agent; throws `AgentTestError` (`path_failed`) naming step and cause. */
  runPath(path: AgentTestPath): Promise<void>;
  /** What the paths run so far reached of the machines. */
  coverage(): AgentTestCoverage;
}

const SCRIPTED_MODEL: Model = {
  id: "scripted",
  api: "scripted",
  provider: "scripted",
  contextWindow: 100_000,
  maxTokens: 4_096,
};

/**
 * A model-based test of the user's agent: from its options and its model's script, an abstract
 * statechart of what can happen from outside (the prompt, each scripted reply or a model error, a
 * guardrail verdict, approving or denying each call, each tool finishing or throwing, a client's
 * answer, an abort in every running state, steering, a follow-up, your commands); xstate/graph's
 * shortest and simple paths through it, bounded; and a runner that drives the **real** agent machine
 * along a path, checking after every step that the agent is where the model says, that every
 * invariant holds (`agentRunInvariants` and yours), and that a persisted and restored agent goes on
 * the same way.
 *
 * Contract: synchronous; throws `AgentTestError` `invalid_script` (a reply that is not a plain
 * scripted reply, or a call naming a tool the agent lacks or with arguments its parameters refuse —
 * naming reply and call) or `unsupported_agent`
 * (sub-agent or handoff tools, sequential tool execution, between-turn callbacks). Paths run one at a
 * time; a tool's own `execute` runs when a path finishes it (`TOOL_DONE`).
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "agentchart";
 * const pay = defineTool({
 *   name: "pay",
 *   description: "Pays",
 *   parameters: z.object({ amount: z.number() }),
 *   requiresApproval: true,
 *   execute: async () => ({ content: [{ type: "text", text: "paid" }] }),
 * });
 * const model = createAgentTestModel({
 *   agent: { tools: [pay] },
 *   script: [{ toolCalls: [{ name: "pay", arguments: { amount: 5 } }] }, { text: "Paid." }],
 * });
 * for (const path of model.explore().paths) await model.runPath(path);
 * console.log(model.coverage().agent.transitions.missed.length);
 * ```
 */
export function createAgentTestModel(options: AgentTestModelOptions): AgentTestModel {
  const { agent } = options;
  checkAgent(agent, options.input);
  const tools = new Map((agent.tools ?? []).map((tool) => [tool.name, tool]));
  const script = withCallIds(options.script);
  const world: OutsideWorld = {
    replies: script.map((reply, index) => ({ reply, calls: scriptedCalls(reply, index, tools) })),
    guardrails: (agent.guardrails?.output?.length ?? 0) > 0,
    explore: {
      abort: true,
      steer: true,
      followUp: true,
      modelError: true,
      toolThrows: true,
      deny: true,
      ...options.explore,
    },
    commands: Object.keys(options.commands ?? {}),
  };
  const machine = createAgentMachine(heldAgent(agent, script));
  const outsideModel = createOutsideModel(world);
  const coverage = createTransitionCoverage({ agent: agentMachine, toolCall: toolCallMachine });
  const invariants = [...agentRunInvariants, ...(options.invariants ?? [])];
  const input = { ...options.input, model: options.input?.model ?? SCRIPTED_MODEL } as AgentMachineInput;
  let exploration: AgentPathExploration | undefined;
  return {
    machine,
    outsideModel,
    explore: () =>
      (exploration ??= explorePaths(outsideModel, world, options.maxPaths ?? 500, options.maxSteps ?? 24)),
    async runPath(path) {
      if (AgentPathRun.current)
        throw new AgentTestError(
          "path_failed",
          `${path.name}: another path is running (paths run one at a time)`,
        );
      const run = new AgentPathRun(
        machine,
        input,
        world,
        invariants,
        options.commands ?? {},
        coverage.record,
      );
      run.start();
      try {
        await run.settle();
        for (const [index, step] of path.steps.entries()) {
          await run.step(step.event, step.name);
          const seen = observedState(run, step);
          if (seen !== step.expected)
            throw run.failure(`the agent is in ${seen}, the model expected ${step.expected}`);
          run.checkInvariants(false);
          const next = path.steps[index + 1]?.event;
          run.checkRestore([{ type: "ABORT" }, ...(next ? commandOf(next, options.commands ?? {}) : [])]);
        }
        await run.finish();
      } finally {
        run.stop();
      }
    },
    coverage: () => ({ agent: coverage.report("agent"), toolCall: coverage.report("toolCall") }),
  };
}

function checkAgent(agent: AgentTestModelOptions["agent"], input: AgentTestModelOptions["input"]): void {
  const unsupported = (what: string) => {
    throw new AgentTestError(
      "unsupported_agent",
      `createAgentTestModel: ${what} cannot be driven by the kit yet`,
    );
  };
  for (const tool of agent.tools ?? []) {
    if (tool.subAgent) unsupported(`the agent tool "${tool.name}" (a sub-agent)`);
    if (tool.handoff) unsupported(`the handoff tool "${tool.name}"`);
    if (tool.executionMode === "sequential") unsupported(`the sequential tool "${tool.name}"`);
  }
  if (input?.settings?.toolExecution === "sequential") unsupported("sequential tool execution");
  if (hasTurnCallbacks({ callbacks: agent } as never))
    unsupported(
      "between-turn callbacks (prepareNextTurn, shouldStopAfterTurn, getSteeringMessages, getFollowUpMessages)",
    );
}

/** The script with an id on every tool call: the script's own, or `call_<n>` counted over the script. */
function withCallIds(script: ScriptedReply[]): ScriptedReply[] {
  let counter = 0;
  return script.map((reply, index) => {
    if (typeof reply !== "object" || reply === null)
      throw new AgentTestError(
        "invalid_script",
        `createAgentTestModel: reply ${index + 1} is not a scripted reply`,
      );
    for (const key of ["error", "throws", "hang", "content"] as const)
      if (reply[key] !== undefined)
        throw new AgentTestError(
          "invalid_script",
          `createAgentTestModel: reply ${index + 1} sets "${key}"; the script holds text and tool call replies (model errors and aborts are outside events the kit explores)`,
        );
    if (reply.stopReason === "length")
      throw new AgentTestError(
        "invalid_script",
        `createAgentTestModel: reply ${index + 1} stops for "length", which the kit does not model`,
      );
    if (!reply.toolCalls) return reply;
    return {
      ...reply,
      toolCalls: reply.toolCalls.map((call) => ({ ...call, id: call.id ?? `call_${++counter}` })),
    };
  });
}

function scriptedCalls(reply: ScriptedReply, index: number, tools: Map<string, AgentTool>): ScriptedCall[] {
  return (reply.toolCalls ?? []).map((call: ScriptedToolCall, position) => {
    const tool = tools.get(call.name);
    if (!tool)
      throw new AgentTestError(
        "invalid_script",
        `createAgentTestModel: reply ${index + 1}, tool call ${position + 1} names "${call.name}", which the agent lacks`,
      );
    const raw = call.arguments ?? parseArguments(call.rawArguments);
    // As the tool-call machine validates them: a call with invalid arguments never waits for anyone.
    const args = tool.parameters.safeParse(tool.prepareArguments ? tool.prepareArguments(raw) : raw);
    if (!args.success)
      throw new AgentTestError(
        "invalid_script",
        `createAgentTestModel: reply ${index + 1}, tool call ${position + 1}: the arguments do not match the parameters of "${call.name}" (${args.error.issues[0]?.message})`,
      );
    const approval =
      typeof tool.requiresApproval === "function"
        ? tool.requiresApproval(args.data)
        : tool.requiresApproval === true;
    const client = tool.client === true;
    return {
      id: call.id!,
      start: approval ? "approval" : client ? "client" : "running",
      client,
    };
  });
}

function parseArguments(raw: string | undefined): Record<string, unknown> {
  try {
    return JSON.parse(raw ?? "{}") as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The path run the wrapped StreamFn, tools and guardrails belong to. */
function currentRun(): AgentPathRun {
  const run = AgentPathRun.current;
  if (!run) throw new AgentTestError("path_failed", "the test model's machine runs only inside runPath");
  return run;
}

/** The user's options with the kit holding the model (the script), each tool's `execute` and the output guardrails. */
function heldAgent(agent: AgentTestModelOptions["agent"], script: ScriptedReply[]): AgentMachineOptions {
  const streamFn: StreamFn = (model, context, options) =>
    (async function* (): AsyncGenerator<AssistantMessageEvent> {
      const answer = await currentRun().awaitModel(options?.signal);
      const reply: ScriptedReply =
        "reply" in answer
          ? script[answer.reply]!
          : "error" in answer
            ? { error: "model error from the test" }
            : {};
      yield* scriptedModel([reply])(model, context, options) as AsyncIterable<AssistantMessageEvent>;
    })();
  const tools = agent.tools?.map(
    (tool): AgentTool =>
      tool.client
        ? tool
        : {
            ...tool,
            execute: (args, context) => currentRun().awaitTool(tool.name, args, context, tool.execute),
          },
  );
  const output = agent.guardrails?.output?.map((guardrail, index) => ({
    ...guardrail,
    check: async (_context: unknown, signal: AbortSignal) =>
      verdictFor(await currentRun().awaitVerdict(signal), index === 0),
  }));
  return {
    ...agent,
    streamFn,
    ...(tools ? { tools } : {}),
    ...(agent.guardrails ? { guardrails: { ...agent.guardrails, ...(output ? { output } : {}) } } : {}),
  };
}

/** The step's command for the agent, if it is one (for the restore check). */
function commandOf(event: OutsideEvent, commands: Record<string, AgentCommand>): AgentCommand[] {
  switch (event.type) {
    case "APPROVE":
      return [{ type: "APPROVE_TOOL", toolCallId: event.call }];
    case "DENY":
      return [{ type: "DENY_TOOL", toolCallId: event.call, reason: "denied by the test" }];
    case "COMMAND":
      return [commands[event.name]!];
    default:
      return [];
  }
}

type OutsideState = SnapshotFrom<OutsideModel>;

/** The state a step of the outside model says the real agent is in, as `observedState` writes it. */
function expectedState(state: OutsideState): string {
  const value = state.value as string;
  if (value === "done" || value === "idle") return "idle";
  if (value !== "executingTools") return value;
  return `executingTools ${JSON.stringify(state.context.calls)}`;
}

/** The real agent's state, in the outside model's words. */
function observedState(run: AgentPathRun, step: AgentTestStep): string {
  const snapshot = run.actor.getSnapshot();
  if (snapshot.matches("idle")) return "idle";
  if (snapshot.matches({ running: "streaming" })) {
    if (run.verdict?.open) return "checking";
    if (run.modelCall?.open) return "streaming";
  }
  if (snapshot.matches({ running: "executingTools" }) && step.expected.startsWith("executingTools")) {
    const expected = JSON.parse(step.expected.slice("executingTools ".length)) as Record<string, string>;
    const calls = Object.fromEntries(
      Object.keys(expected).map((id) => {
        const child = snapshot.children[id]?.getSnapshot() as
          | { matches?: (state: string) => boolean }
          | undefined;
        if (!child?.matches) return [id, "answered"];
        if (child.matches("awaitingApproval")) return [id, "approval"];
        if (child.matches("awaitingClient")) return [id, "client"];
        if (child.matches("executing") && run.toolRuns.get(id)?.held.open) return [id, "running"];
        return [id, "elsewhere"];
      }),
    );
    return `executingTools ${JSON.stringify(calls)}`;
  }
  return JSON.stringify(snapshot.value);
}

function stepName(event: OutsideEvent, before: OutsideState, world: OutsideWorld): string {
  switch (event.type) {
    case "REPLY": {
      const calls = world.replies[before.context.turn]!.calls;
      return `reply ${before.context.turn + 1} (${calls.length ? calls.map((call) => call.id).join(", ") : "text"})`;
    }
    case "MODEL_ERROR":
      return "model error";
    case "GUARDRAIL":
      return event.verdict === "pass" ? "guardrail passes" : "guardrail trips";
    case "APPROVE":
      return `approve ${event.call}`;
    case "DENY":
      return `deny ${event.call}`;
    case "TOOL_DONE":
      return `${event.call} done`;
    case "TOOL_THROWS":
      return `${event.call} throws`;
    case "CLIENT_ANSWER":
      return `client answers ${event.call}`;
    case "ABORT":
      return `ABORT while ${before.value === "executingTools" ? "executing tools" : (before.value as string)}`;
    case "COMMAND":
      return event.name;
    default:
      return event.type;
  }
}

type OutsideStep = { event: OutsideEvent; state: OutsideState };

/** A trail of the walk, as a linked list back to the start. */
interface WalkNode {
  state: OutsideState;
  key: string;
  depth: number;
  event?: OutsideEvent;
  parent?: WalkNode;
}

/** The most trails the walk extends before it calls the exploration unbounded. */
const WALK_BOUND = 200_000;

function onTrail(node: WalkNode | undefined, key: string): boolean {
  for (let at = node; at; at = at.parent) if (at.key === key) return true;
  return false;
}

function trailOf(node: WalkNode): OutsideStep[] {
  const trail: OutsideStep[] = [];
  for (let at: WalkNode | undefined = node; at?.event; at = at.parent)
    trail.unshift({ event: at.event, state: at.state });
  return trail;
}

/**
 * The paths to run: xstate/graph's shortest path to every state of the outside model, then every
 * complete simple run (from the start until no event is left, no state twice), shortest first, found
 * by a breadth-first walk of its adjacency map that stops at the bounds (and after `WALK_BOUND` trails),
 * so the exploration itself stays bounded.
 */
function explorePaths(
  model: OutsideModel,
  world: OutsideWorld,
  maxPaths: number,
  maxSteps: number,
): AgentPathExploration {
  const serializeState = (state: OutsideState) => JSON.stringify([state.value, state.context]);
  const options = {
    events: (state: OutsideState) => outsideEvents(world, state),
    filterEvents: (state: OutsideState, event: OutsideEvent) => state.can(event),
    serializeState,
  };
  const found = new Map<string, AgentTestPath>();
  let tooLong = 0;
  let more = false;
  const add = (initial: OutsideState, trail: OutsideStep[]) => {
    if (trail.length > maxSteps) {
      tooLong++;
      return;
    }
    if (found.size >= maxPaths) {
      more = true;
      return;
    }
    const steps: AgentTestStep[] = [];
    let before = initial;
    for (const { event, state } of trail) {
      steps.push({ event, name: stepName(event, before, world), expected: expectedState(state) });
      before = state;
    }
    const name = steps.map((step) => step.name).join(" → ");
    if (!found.has(name)) found.set(name, { name, steps });
  };
  const shortest = getShortestPaths(model, options);
  const initial = shortest[0]!.steps[0]!.state as OutsideState;
  for (const path of shortest) {
    const trail = path.steps.filter((step) => (step.event.type as string) !== "xstate.init") as OutsideStep[];
    if (trail.length > 0) add(initial, trail);
  }
  // Breadth first, so the shortest runs come first; a trail holds no state twice (a simple path).
  const adjacency = getAdjacencyMap(model, options);
  const queue: WalkNode[] = [{ state: initial, key: serializeState(initial), depth: 0 }];
  for (let next = 0; next < queue.length && !more; next++) {
    if (next === WALK_BOUND) {
      more = true;
      break;
    }
    const node = queue[next]!;
    let extended = false;
    for (const { event, state } of Object.values(adjacency[node.key as never]!.transitions)) {
      const key = serializeState(state);
      if (onTrail(node, key)) continue;
      if (node.depth === maxSteps) {
        tooLong++;
        continue;
      }
      extended = true;
      queue.push({ state, key, depth: node.depth + 1, event, parent: node });
    }
    if (!extended && node.depth > 0) add(initial, trailOf(node));
  }
  const paths = [...found.values()];
  return more || tooLong > 0
    ? { paths, exceeded: { found: paths.length, more, tooLong, maxPaths, maxSteps } }
    : { paths };
}

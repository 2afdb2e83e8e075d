/**
 * The sub-agent actors on their own (`src/actors/sub-agent.actors.ts`): `prepareSubAgent` invoked by a
 * parent that records what it sends back (with stand-in children counted as running sub-agents of
 * its actor system), `collectSubAgent` run with `createActor`, and the spec and options a child agent
 * is built from, for agent tools made by `defineAgentTool` as an agent's implementations hold them.
 */
import { describe, expect, it } from "vitest";
import {
  type AnyActorLogic,
  type AnyEventObject,
  assign,
  createActor,
  fromCallback,
  setup,
  toPromise,
  waitFor,
} from "xstate";
import { z } from "zod";
import {
  collectSubAgentActor,
  countRunningChild,
  prepareSubAgentActor,
  subAgentOptions,
  subAgentSpecOf,
} from "../../src/actors/sub-agent.actors.js";
import type { ToolStepInput } from "../../src/actors/tool-step.actors.js";
import { outputStateOf } from "../../src/loop/output-schema.js";
import {
  type AgentMachineOptions,
  agentImplementations,
} from "../../src/machines/agent/agent.implementations.js";
import type { SubAgentEnd, SubAgentStart } from "../../src/machines/tool-call/tool-call.context.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { Recording } from "../../src/replay/recording.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import type { Guardrail } from "../../src/types/guardrail.js";
import type { AgentMessage, ToolCall } from "../../src/types/messages.js";
import type { Model } from "../../src/types/model.js";
import type { RunResult } from "../../src/types/output.js";
import type { AgentToolOptions, SubAgentSpec } from "../../src/types/sub-agent.js";
import { callingAgent, toolStepInput } from "../support/actor-harness-b.js";
import { assistant } from "../support/loop-context.js";
import { echoTool, testModel, user } from "../support/loop-harness.js";

const streamFn = scriptedModel([]);
const call: ToolCall = { type: "toolCall", id: "call-1", name: "helper", arguments: { task: "sum 2 and 3" } };
const ARGS = { task: "sum 2 and 3" };
const otherModel: Model = { ...testModel, id: "small-1" };

const TASK = z.object({ task: z.string() });

/** An agent's implementations with the agent tool `helper` (a `task` argument) made of `options`. */
function withHelper(
  options: Partial<AgentToolOptions<typeof TASK>> = {},
  agent: Partial<AgentMachineOptions> = {},
) {
  const helper = defineAgentTool({
    name: "helper",
    description: "Helps",
    parameters: TASK,
    agent: {},
    ...options,
  });
  return agentImplementations({ streamFn, tools: [helper], ...agent });
}

/** A stand-in sub-agent: counted among the running ones of its system when it starts, as a child agent is. */
const standInChild = fromCallback(({ system, self }) => countRunningChild(system, self));

/**
 * `prepareSubAgent` invoked for `input` once `running` stand-in sub-agents run in its actor system and
 * `stopped` others ran and were stopped; resolves with what it sent back.
 */
async function prepare(
  implementations: ReturnType<typeof withHelper>,
  input: ToolStepInput,
  { running = 0, stopped = 0 } = {},
): Promise<AnyEventObject> {
  const parent = createActor(
    setup({
      types: { context: {} as { received: AnyEventObject[] } },
      actors: { child: standInChild as AnyActorLogic, prepare: prepareSubAgentActor(implementations) },
    }).createMachine({
      context: { received: [] },
      invoke: Array.from({ length: running }, (_, index) => ({
        id: `running-${index}`,
        src: "child" as const,
      })),
      initial: "busy",
      states: {
        busy: {
          invoke: Array.from({ length: stopped }, (_, index) => ({
            id: `stopped-${index}`,
            src: "child" as const,
          })),
          on: { GO: "preparing" },
        },
        preparing: { invoke: { id: "prepare", src: "prepare", input } },
      },
      on: { "*": { actions: assign({ received: ({ context, event }) => [...context.received, event] }) } },
    }),
  ).start();
  parent.send({ type: "GO" });
  const snapshot = await waitFor(parent, (state) =>
    state.context.received.some((event) => event.type === "SUB_AGENT_READY" || event.type === "REJECTED"),
  );
  parent.stop();
  return snapshot.context.received.find((event) => event.type !== "GO")!;
}

const rejection = (event: AnyEventObject) => {
  expect(event.type).toBe("REJECTED");
  expect(event.outcome.isError).toBe(true);
  return (event.outcome.result.content[0] as { text: string }).text;
};

describe("prepareSubAgentActor", () => {
  it("sends the child's start with the defaults of an empty spec: the caller's model, the task as prompt", async () => {
    const event = await prepare(withHelper(), toolStepInput(call, ARGS, callingAgent({ model: otherModel })));
    expect(event.type).toBe("SUB_AGENT_READY");
    const start = event.start as SubAgentStart;
    expect(start).toEqual({
      agentId: "agent-1/call-1",
      place: { path: ["call-1"], args: ARGS, toolName: "helper" },
      parentToolCallId: "call-1",
      model: otherModel,
      systemPrompt: "",
      thinkingLevel: "off",
      toolNames: [],
      settings: { toolExecution: "parallel", maxTurns: 10 },
      prompt: [{ role: "user", content: "sum 2 and 3", timestamp: expect.any(Number) }],
    });
  });

  it("builds the start from the spec the tool's agent function gives for the arguments", async () => {
    const output = z.object({ sum: z.number() });
    const given: unknown[] = [];
    const spec = (args: { task: string }): SubAgentSpec => {
      given.push(args);
      return {
        model: otherModel,
        systemPrompt: `You do: ${args.task}`,
        thinkingLevel: "high",
        tools: [echoTool("calc"), echoTool("note")],
        toolExecution: "sequential",
        maxTurns: 3,
        output,
      };
    };
    const agent = callingAgent({ agentId: "child-a", path: ["root-call"], sharesLedger: true });
    const event = await prepare(withHelper({ agent: spec }), toolStepInput(call, ARGS, agent));
    const start = event.start as SubAgentStart;
    expect(given).toEqual([ARGS]);
    expect(start.agentId).toBe("child-a/call-1");
    expect(start.place.path).toEqual(["root-call", "call-1"]);
    expect(start.model).toBe(otherModel);
    expect(start.systemPrompt).toBe("You do: sum 2 and 3");
    expect(start.thinkingLevel).toBe("high");
    expect(start.toolNames).toEqual(["calc", "note"]);
    expect(start.settings).toEqual({ toolExecution: "sequential", maxTurns: 3 });
    expect(start.output).toEqual(outputStateOf(output));
    expect(start.sharesLedger).toBe(true);
  });

  it("takes the prompt from the tool's input function: a text, or messages as they are", async () => {
    const fromText = await prepare(
      withHelper({ input: (args) => `Task: ${args.task}` }),
      toolStepInput(call, ARGS),
    );
    expect(fromText.start.prompt).toEqual([
      { role: "user", content: "Task: sum 2 and 3", timestamp: expect.any(Number) },
    ]);
    const messages = [user("first"), user("second")];
    const fromMessages = await prepare(withHelper({ input: () => messages }), toolStepInput(call, ARGS));
    expect(fromMessages.start.prompt).toBe(messages);
  });

  it("lets the child take the spec computed for its start, without running the agent function again", async () => {
    let runs = 0;
    const implementations = withHelper({
      agent: () => {
        runs += 1;
        return { systemPrompt: `run ${runs}` };
      },
    });
    const event = await prepare(implementations, toolStepInput(call, ARGS));
    const spec = subAgentSpecOf(implementations, event.start);
    expect(spec.systemPrompt).toBe("run 1");
    expect(runs).toBe(1);
  });

  it("refuses a call that would nest deeper than the tool's maxDepth, and allows one at that depth", async () => {
    const implementations = withHelper({ maxDepth: 2 });
    const atLimit = await prepare(implementations, toolStepInput(call, ARGS, callingAgent({ path: ["a"] })));
    expect(atLimit.type).toBe("SUB_AGENT_READY");
    const deeper = await prepare(
      implementations,
      toolStepInput(call, ARGS, callingAgent({ path: ["a", "b"] })),
    );
    expect(rejection(deeper)).toBe(
      'Agent tool "helper" refused: sub-agents nest at most 2 deep (this call would start depth 3)',
    );
  });

  it("refuses a call once maxConcurrent sub-agents run in the tree, not counting stopped ones", async () => {
    const implementations = withHelper({ maxConcurrent: 2 });
    const full = await prepare(implementations, toolStepInput(call, ARGS), { running: 2 });
    expect(rejection(full)).toBe(
      'Agent tool "helper" refused: 2 sub-agents are already running in this agent tree (at most 2)',
    );
    const room = await prepare(implementations, toolStepInput(call, ARGS), { running: 1, stopped: 3 });
    expect(room.type).toBe("SUB_AGENT_READY");
  });

  it.each([
    [
      "agent",
      {
        agent: () => {
          throw new Error("no model for that");
        },
      },
    ],
    [
      "input",
      {
        input: () => {
          throw new Error("no model for that");
        },
      },
    ],
  ])("rejects the call when the tool's %s function throws", async (_, options) => {
    const event = await prepare(
      withHelper(options as Partial<AgentToolOptions<typeof TASK>>),
      toolStepInput(call, ARGS),
    );
    expect(rejection(event)).toBe('Agent tool "helper" could not start its sub-agent: no model for that');
  });
});

describe("subAgentSpecOf", () => {
  const start = (toolName: string): SubAgentStart => ({
    agentId: "agent-1/call-1",
    place: { path: ["call-1"], args: { task: "restored" }, toolName },
    parentToolCallId: "call-1",
    model: testModel,
    systemPrompt: "",
    thinkingLevel: "off",
    toolNames: [],
    settings: {},
    prompt: [],
  });

  it("runs the tool's agent function with the place's arguments for a start it did not prepare", () => {
    const implementations = withHelper({ agent: (args) => ({ systemPrompt: `Do ${args.task}` }) });
    expect(subAgentSpecOf(implementations, start("helper")).systemPrompt).toBe("Do restored");
  });

  it("throws an Error naming the call and the tool when the machine lacks that agent tool", () => {
    const implementations = agentImplementations({ streamFn, tools: [echoTool("helper")] });
    for (const toolName of ["helper", "gone"])
      expect(() => subAgentSpecOf(implementations, start(toolName))).toThrow(
        `agentchart: the sub-agent of call "call-1" needs the agent tool "${toolName}", which this machine was not given`,
      );
  });
});

describe("subAgentOptions", () => {
  const trip = (name: string): Guardrail => ({ name, check: () => ({ tripwire: false }) });

  it("gives a child without its own StreamFn and tool context its parent's", () => {
    const parent = withHelper({}, { toolContext: { db: "parent" } });
    const transformContext = (messages: AgentMessage[]) => messages.slice(-2);
    const options = subAgentOptions(parent, { systemPrompt: "child", transformContext });
    expect(options.streamFn).toBe(streamFn);
    expect(options.toolContext).toEqual({ db: "parent" });
    expect(options.transformContext).toBe(transformContext);
    expect("guardrails" in options).toBe(false);
    expect("record" in options).toBe(false);
  });

  it("keeps a child's own StreamFn and tool context", () => {
    const own = scriptedModel([]);
    const options = subAgentOptions(withHelper({}, { toolContext: "parent" }), {
      streamFn: own,
      toolContext: "child",
    });
    expect(options.streamFn).toBe(own);
    expect(options.toolContext).toBe("child");
  });

  it("adds the parent's output guardrails after the child's own, once, and never its input guardrails", () => {
    const shared = trip("shared");
    const parentOnly = trip("parent-only");
    const parent = withHelper(
      {},
      { guardrails: { input: [trip("parent-input")], output: [shared, parentOnly] } },
    );
    const own = trip("own");
    const childInput = trip("child-input");
    const options = subAgentOptions(parent, { guardrails: { input: [childInput], output: [own, shared] } });
    expect(options.guardrails!.output!.map((guardrail) => guardrail.name)).toEqual([
      "own",
      "shared",
      "parent-only",
    ]);
    expect(options.guardrails!.input).toEqual([childInput]);
    const bare = subAgentOptions(parent, {});
    expect(bare.guardrails!.output!.map((guardrail) => guardrail.name)).toEqual(["shared", "parent-only"]);
  });

  it("gives a child with input guardrails only its parent's output guardrails", () => {
    const parent = withHelper({}, { guardrails: { output: [trip("parent-output")] } });
    const childInput = trip("child-input");
    const options = subAgentOptions(parent, { guardrails: { input: [childInput] } });
    expect(options.guardrails!.output!.map((guardrail) => guardrail.name)).toEqual(["parent-output"]);
    expect(options.guardrails!.input).toEqual([childInput]);
  });

  it("leaves a child's guardrails as they are when the parent has no output guardrails", () => {
    const guardrails = { output: [trip("own")] };
    expect(subAgentOptions(withHelper(), { guardrails }).guardrails).toBe(guardrails);
  });

  it("records a recording parent's child into the same recording", () => {
    const record = new Recording();
    expect(subAgentOptions(withHelper({}, { record }), {}).record).toBe(record);
  });
});

describe("collectSubAgentActor", () => {
  const usage = (total: number) => ({
    input: total,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: total,
    cost: { input: total / 4, output: 0, cacheRead: 0, cacheWrite: 0, total: total / 4 },
  });
  const reply = (text: string, tokens: number) => ({
    ...assistant([{ type: "text", text }], "stop"),
    usage: usage(tokens),
  });
  const end = (patch: Partial<SubAgentEnd> = {}): SubAgentEnd => ({
    type: "agent_end",
    messages: [user("sum 2 and 3"), reply("Thinking.", 10), reply("It is 5.", 20)],
    stopReason: "stop",
    ...patch,
  });

  const collect = (
    implementations: ReturnType<typeof withHelper>,
    ended: SubAgentEnd,
    errorMessage?: string,
  ) =>
    toPromise(
      createActor(collectSubAgentActor(implementations), {
        input: { ...toolStepInput(call, ARGS), end: ended, errorMessage },
      }).start(),
    );

  it("answers with the child's last reply, its total usage and how its run ended", async () => {
    const outcome = await collect(withHelper(), end());
    expect(outcome).toEqual({
      toolCall: call,
      result: {
        content: [{ type: "text", text: "It is 5." }],
        usage: usage(30),
        details: { stopReason: "stop" },
      },
      isError: false,
    });
  });

  it("answers with the child's typed output as JSON", async () => {
    const outcome = await collect(withHelper(), end({ output: { sum: 5 } }));
    expect(outcome.result.content).toEqual([{ type: "text", text: '{"sum":5}' }]);
  });

  it("answers a failed run with an error result carrying the run's error text", async () => {
    const outcome = await collect(withHelper(), end({ stopReason: "error" }), "model overloaded");
    expect(outcome.isError).toBe(true);
    expect(outcome.result.content).toEqual([
      { type: "text", text: 'Sub-agent "helper" ended with error: model overloaded' },
    ]);
    expect(outcome.result.details).toEqual({ stopReason: "error" });
    expect(outcome.result.usage).toEqual(usage(30));
  });

  it("hands the tool's output function the run's result and takes its text or tool result", async () => {
    const seen: RunResult[] = [];
    const text = await collect(
      withHelper({
        output: (result) => {
          seen.push(result);
          return `done: ${result.stopReason}`;
        },
      }),
      end({ stopReason: "error" }),
      "model overloaded",
    );
    expect(seen[0]!.stopReason).toBe("error");
    expect(seen[0]!.messages).toHaveLength(3);
    expect(seen[0]!.error!.message).toBe("model overloaded");
    expect(text).toEqual({
      toolCall: call,
      result: {
        content: [{ type: "text", text: "done: error" }],
        usage: usage(30),
        details: { stopReason: "error" },
      },
      isError: false,
    });
    const result = await collect(
      withHelper({
        output: async () => ({ content: [{ type: "text", text: "5" }], details: { checked: true } }),
      }),
      end(),
    );
    expect(result.result).toEqual({
      content: [{ type: "text", text: "5" }],
      usage: usage(30),
      details: { stopReason: "stop", checked: true },
    });
  });

  it("gives the default result when the agent tool is gone or is no agent tool any more", async () => {
    const gone = agentImplementations({ streamFn, tools: [] });
    const plain = agentImplementations({ streamFn, tools: [echoTool("helper")] });
    for (const implementations of [gone, plain]) {
      const outcome = await collect(implementations as ReturnType<typeof withHelper>, end());
      expect(outcome.result.content).toEqual([{ type: "text", text: "It is 5." }]);
      expect(outcome.isError).toBe(false);
    }
  });

  it("turns a throwing output function into an error result that still carries the child's usage", async () => {
    const outcome = await collect(
      withHelper({
        output: async () => {
          throw new Error("bad summary");
        },
      }),
      end(),
    );
    expect(outcome.isError).toBe(true);
    expect(outcome.result).toEqual({
      content: [{ type: "text", text: 'Agent tool "helper" output failed: bad summary' }],
      details: {},
      usage: usage(30),
    });
  });
});

/**
 * The model-based testing kit (`agentchart/testing`): paths generated from the outside model of a
 * user's agent, run against the real agent machine, invariants and restore checks after every step,
 * coverage, bounds and bad input.
 */
import { afterAll, describe, expect, it, test } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import {
  AgentTestError,
  type AgentTestObservation,
  agentRunInvariants,
  createAgentTestModel,
  formatAgentTestCoverage,
  testAgentPaths,
} from "../../src/testing.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineClientTool } from "../../src/tools/define-client-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";

const executed: string[] = [];
const tool = (name: string, requiresApproval: boolean) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    parameters: z.object({ city: z.string() }),
    requiresApproval,
    execute: async ({ city }) => {
      executed.push(`${name} ${city}`);
      return { content: [{ type: "text", text: `${name} for ${city}` }] };
    },
  });

describe("a two-tool agent with approvals", () => {
  // Without queued messages: 153 paths (with steering, 1 553; with follow-ups too, 30 035).
  const model = createAgentTestModel({
    ...twoToolAgentOptions(),
    explore: { steer: false, followUp: false },
  });
  const { paths, exceeded } = model.explore();

  it("explores the shortest path to every state and every complete run, each named by its steps", () => {
    expect(paths).toHaveLength(153);
    expect(exceeded).toBeUndefined();
    const names = paths.map((path) => path.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain("PROMPT → ABORT while streaming");
    expect(names).toContain(
      "PROMPT → reply 1 (call_1, call_2) → approve call_1 → ABORT while executing tools",
    );
    expect(names).toContain(
      "PROMPT → reply 1 (call_1, call_2) → approve call_1 → call_1 done → deny call_2 → reply 2 (text)",
    );
  });

  // Every path as its own test, as a user would write it.
  testAgentPaths(model, test);

  it("ran the user's tools only for approved calls, and reached the approval states", () => {
    expect(executed.length).toBeGreaterThan(0);
    expect(executed.every((run) => run === "weather Oslo" || run === "book Oslo")).toBe(true);
    const coverage = model.coverage();
    expect(coverage.toolCall.states.reached).toContain("toolCall.awaitingApproval");
    expect(coverage.agent.transitions.taken.some((label) => label.startsWith("agent.running: ABORT"))).toBe(
      true,
    );
    expect(coverage.agent.states.missed).not.toContain("agent.running.executingTools");
    expect(formatAgentTestCoverage(coverage)).toMatch(
      /^agent machine: states \d+\/\d+, transitions \d+\/\d+/,
    );
  });
});

describe("guardrails and client tools", () => {
  const model = createAgentTestModel({
    agent: {
      tools: [defineClientTool({ name: "pick", description: "Asks the user", parameters: z.object({}) })],
      guardrails: { output: [{ name: "polite", check: () => ({ tripwire: false }) }] },
    },
    script: [{ toolCalls: [{ name: "pick", arguments: {} }] }, { text: "Thanks for picking." }],
    explore: { followUp: false },
  });
  const names = model.explore().paths.map((path) => path.name);

  it("explores guardrail verdicts and client answers", () => {
    expect(names).toContain("PROMPT → reply 1 (call_1) → guardrail trips");
    expect(names).toContain(
      "PROMPT → reply 1 (call_1) → guardrail passes → client answers call_1 → reply 2 (text) → guardrail passes",
    );
    expect(names).toContain("PROMPT → reply 1 (call_1) → ABORT while checking");
  });

  testAgentPaths(model, test);

  it("held every text delta until the guardrail passed (the invariant saw deltas)", async () => {
    const seen: AgentTestObservation[] = [];
    const watched = createAgentTestModel({
      agent: { guardrails: { output: [{ name: "polite", check: () => ({ tripwire: false }) }] } },
      script: [{ text: "A long enough reply to stream in several deltas." }],
      invariants: [{ name: "watch", check: (observation) => void seen.push(observation) }],
    });
    const path = watched
      .explore()
      .paths.find((p) => p.name === "PROMPT → reply 1 (text) → guardrail passes")!;
    await watched.runPath(path);
    const last = seen.at(-1)!;
    expect(last.ended).toBe(true);
    expect(last.textDeltas.length).toBeGreaterThan(1);
    expect(last.textDeltas.every((delta) => delta.passesBefore === 1 && delta.repliesBefore === 1)).toBe(
      true,
    );
  });
});

describe("failures name the path, the step and the cause", () => {
  it("an agent that leaves the model's way fails at the step where it did", async () => {
    // The user's transformContext fails every model call after the first: the run ends instead of
    // asking the model again once the batch is answered.
    let calls = 0;
    const model = createAgentTestModel({
      agent: {
        tools: [tool("weather", false)],
        transformContext: async (messages) => {
          if (++calls % 2 === 0) throw new Error("context store down");
          return messages;
        },
      },
      script: [{ toolCalls: [{ name: "weather", arguments: { city: "Rome" } }] }, { text: "Sunny." }],
    });
    const path = model.explore().paths.find((p) => p.name === "PROMPT → reply 1 (call_1) → call_1 done")!;
    const failure = await model.runPath(path).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentTestError);
    expect(failure).toMatchObject({ code: "path_failed" });
    expect((failure as Error).message).toBe(
      "PROMPT → reply 1 (call_1) → call_1 done: the agent is in idle, the model expected streaming",
    );
  });

  it("a user's invariant that breaks fails the path with the invariant's name and reason", async () => {
    const model = createAgentTestModel({
      agent: { tools: [tool("weather", true)] },
      script: [{ toolCalls: [{ name: "weather", arguments: { city: "Rome" } }] }, { text: "Sunny." }],
      invariants: [
        {
          name: "never deny",
          check: ({ snapshot }) =>
            snapshot.context.messages.some((m) => m.role === "toolResult" && m.isError)
              ? "a call failed"
              : undefined,
        },
      ],
    });
    const path = model.explore().paths.find((p) => p.name === "PROMPT → reply 1 (call_1) → deny call_1")!;
    await expect(model.runPath(path)).rejects.toThrow(
      'PROMPT → reply 1 (call_1) → deny call_1: invariant "never deny" broke: a call failed',
    );
  });
});

describe("the built-in invariants", () => {
  const byName = (name: string) => agentRunInvariants.find((invariant) => invariant.name === name)!;
  const assistant = (ids: string[]) => ({
    role: "assistant",
    content: ids.map((id) => ({ type: "toolCall", id, name: "weather", arguments: {} })),
  });
  const result = (id: string) => ({
    role: "toolResult",
    toolCallId: id,
    toolName: "weather",
    content: [],
    isError: false,
  });
  const observation = (messages: unknown[], more: Partial<AgentTestObservation> = {}) =>
    ({
      snapshot: { context: { messages }, matches: () => true, children: {}, value: "idle" },
      events: [],
      executions: [],
      textDeltas: [],
      guardrails: false,
      steps: [],
      ended: true,
      ...more,
    }) as unknown as AgentTestObservation;

  it("every tool call answered exactly once: a second result or a missing one breaks it", () => {
    const invariant = byName("every tool call answered exactly once");
    expect(invariant.check(observation([assistant(["c1"]), result("c1")]))).toBeUndefined();
    expect(invariant.check(observation([assistant(["c1"]), result("c1"), result("c1")]))).toBe(
      "c1 has 2 tool results",
    );
    expect(invariant.check(observation([assistant(["c1"])]))).toBe(
      "c1 has no tool result after the run ended",
    );
    expect(invariant.check(observation([assistant(["c1"])], { ended: false }))).toBeUndefined();
  });

  it("no tool before its approval: an execution without approval, or after a denial, breaks it", () => {
    const invariant = byName("no tool executes before its approval");
    const run = { toolCallId: "c1", toolName: "pay", needsApproval: true, approved: true, denied: false };
    expect(invariant.check(observation([], { executions: [run] }))).toBeUndefined();
    expect(invariant.check(observation([], { executions: [{ ...run, approved: false }] }))).toBe(
      "pay (c1) executed before its approval",
    );
    expect(invariant.check(observation([], { executions: [{ ...run, denied: true }] }))).toBe(
      "pay (c1) executed after its denial",
    );
  });

  it("no text before the guardrails: a delta of a reply not yet passed breaks it", () => {
    const invariant = byName("no text delta reaches a subscriber before the output guardrails pass");
    const deltas = [
      { passesBefore: 1, repliesBefore: 1 },
      { passesBefore: 1, repliesBefore: 2 },
    ];
    expect(
      invariant.check(observation([], { guardrails: true, textDeltas: deltas.slice(0, 1) })),
    ).toBeUndefined();
    expect(invariant.check(observation([], { guardrails: true, textDeltas: deltas }))).toBe(
      "text delta 2 reached a subscriber of reply 2 after 1 guardrail pass(es)",
    );
  });

  it("the transcript valid for the provider: results out of order or before their call break it", () => {
    const invariant = byName("the transcript is valid for the provider");
    expect(
      invariant.check(observation([assistant(["c1", "c2"]), result("c1"), result("c2")])),
    ).toBeUndefined();
    expect(invariant.check(observation([assistant(["c1", "c2"]), result("c2"), result("c1")]))).toBe(
      "message 2: the result of c2 comes before the result of c1",
    );
    expect(invariant.check(observation([result("c9")]))).toBe(
      "message 1: the result of c9 answers no open tool call",
    );
    expect(invariant.check(observation([assistant(["c1"]), assistant([])]))).toBe(
      "message 2: an assistant message before the results of c1",
    );
  });
});

describe("bounds and bad input", () => {
  it("an exploration over its bound says so, runs what it kept, and reports the coverage reached", async () => {
    const model = createAgentTestModel({ ...twoToolAgentOptions(), maxPaths: 5 });
    const { paths, exceeded } = model.explore();
    expect(paths).toHaveLength(5);
    expect(exceeded).toMatchObject({ found: 5, more: true, maxPaths: 5 });
    const registered: { name: string; body: () => Promise<void> }[] = [];
    testAgentPaths(model, (name, body) => registered.push({ name, body }));
    expect(registered).toHaveLength(6);
    for (const { body } of registered.slice(0, 5)) await body();
    const bound = await registered[5]!.body().catch((error: unknown) => error);
    expect(registered[5]!.name).toBe("the exploration stays within its bounds");
    expect(bound).toMatchObject({ name: "AgentTestError", code: "path_bound_exceeded" });
    expect((bound as Error).message).toMatch(
      /^the exploration found more than maxPaths \(5\) paths; 5 paths ran\. Coverage reached: agent machine: states [1-9]\d*\/\d+/,
    );
  });

  it("paths longer than maxSteps are left out and counted", () => {
    const { paths, exceeded } = createAgentTestModel({ ...twoToolAgentOptions(), maxSteps: 3 }).explore();
    expect(paths.every((path) => path.steps.length <= 3)).toBe(true);
    expect(exceeded?.tooLong).toBeGreaterThan(0);
  });

  it("a script that names a tool the agent lacks is refused, naming the reply and the call", () => {
    const refuse = () =>
      createAgentTestModel({
        agent: { tools: [tool("weather", false)] },
        script: [
          { text: "Hi." },
          {
            toolCalls: [
              { name: "weather", arguments: { city: "Oslo" } },
              { name: "wether", arguments: {} },
            ],
          },
        ],
      });
    expect(refuse).toThrow(AgentTestError);
    expect(refuse).toThrow(
      'createAgentTestModel: reply 2, tool call 2 names "wether", which the agent lacks',
    );
  });

  it("a script call whose arguments the tool refuses is refused, naming the reply and the call", () => {
    expect(() =>
      createAgentTestModel({
        agent: { tools: [tool("weather", true)] },
        script: [{ toolCalls: [{ name: "weather", arguments: { town: "Oslo" } }] }],
      }),
    ).toThrow(
      expect.objectContaining({
        code: "invalid_script",
        message: expect.stringMatching(
          /^createAgentTestModel: reply 1, tool call 1: the arguments do not match the parameters of "weather" \(.+\)$/,
        ),
      }),
    );
  });

  it("a script reply that is an error is refused: model errors are outside events", () => {
    expect(() => createAgentTestModel({ agent: {}, script: [{ error: "boom" }] })).toThrow(
      expect.objectContaining({
        code: "invalid_script",
        message: expect.stringContaining('reply 1 sets "error"'),
      }),
    );
  });

  it("an agent the kit cannot drive is refused with unsupported_agent", () => {
    const child = defineAgentTool({
      name: "helper",
      description: "A sub-agent",
      agent: { streamFn: scriptedModel([{ text: "done" }]) },
    });
    expect(() => createAgentTestModel({ agent: { tools: [child] }, script: [] })).toThrow(
      expect.objectContaining({ code: "unsupported_agent" }),
    );
    expect(() =>
      createAgentTestModel({ agent: { shouldStopAfterTurn: () => false }, script: [{ text: "Hi." }] }),
    ).toThrow(expect.objectContaining({ code: "unsupported_agent" }));
  });
});

function twoToolAgentOptions() {
  return {
    agent: { tools: [tool("weather", true), tool("book", true)] },
    script: [
      {
        toolCalls: [
          { name: "weather", arguments: { city: "Oslo" } },
          { name: "book", arguments: { city: "Oslo" } },
        ],
      },
      { text: "Booked." },
    ],
  };
}

afterAll(() => {
  executed.length = 0;
});

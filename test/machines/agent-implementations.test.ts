/**
 * What `createAgentMachine` builds from its options before any actor runs (`agent.implementations.ts`):
 * the implementations (tools, handoffs, guardrails, recording), and the views the callbacks get.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { initialAgentContext } from "../../src/machines/agent/agent.context.js";
import {
  activeTools,
  addTools,
  agentImplementations,
  agentViewOf,
  callbackContextOf,
  guardrailNamesOf,
  hasTurnCallbacks,
} from "../../src/machines/agent/agent.implementations.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { Recording } from "../../src/replay/recording.js";
import { defineHandoff } from "../../src/tools/define-handoff.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { Guardrail } from "../../src/types/guardrail.js";
import type { AgentCallbacks } from "../../src/types/loop.js";
import type { AgentTool } from "../../src/types/tool.js";
import { testModel, user } from "../support/loop-harness.js";

const toolNamed = (name: string, text = name): AgentTool =>
  defineTool({
    name,
    description: name,
    parameters: z.object({}),
    execute: async () => ({ content: [{ type: "text", text }] }),
  }) as AgentTool;
const pass = (name: string, mode?: Guardrail["mode"]): Guardrail => ({
  name,
  ...(mode ? { mode } : {}),
  check: () => ({ tripwire: false }),
});
const options = (more: Partial<AgentCallbacks> = {}) => ({
  streamFn: scriptedModel([{ text: "Hi" }]),
  ...more,
});

describe("agentImplementations", () => {
  it("holds the tools by name, no guardrails, handoffs, output, budget or recording when none are given", () => {
    const read = toolNamed("read");
    const given = options();
    const implementations = agentImplementations({ ...given, tools: [read] });
    expect([...implementations.tools.entries()]).toEqual([["read", read]]);
    expect(implementations.guardrails).toEqual({ input: [], output: [] });
    expect(implementations.handoffs.size).toBe(0);
    for (const key of ["output", "budget", "recording"])
      expect(Object.hasOwn(implementations, key), key).toBe(false);
    expect(agentImplementations(given).tools.size).toBe(0);
  });

  it("copies the guardrail lists and the budget, and keeps the output schema", () => {
    const input = [pass("pii")];
    const output = [pass("tone")];
    const budget = { maxTurns: 3 };
    const schema = z.object({ answer: z.string() });
    const implementations = agentImplementations({
      ...options(),
      guardrails: { input, output },
      budget,
      output: schema,
    });
    input.push(pass("late"));
    output.push(pass("late"));
    budget.maxTurns = 9;
    expect(implementations.guardrails.input.map((guardrail) => guardrail.name)).toEqual(["pii"]);
    expect(implementations.guardrails.output.map((guardrail) => guardrail.name)).toEqual(["tone"]);
    expect(implementations.budget).toEqual({ maxTurns: 3 });
    expect(implementations.output).toBe(schema);
  });

  it("keeps the options as callbacks when nothing is recorded", () => {
    const given = options();
    expect(agentImplementations(given).callbacks).toBe(given);
  });

  it("records the model calls and tool executions of a recording agent, as the agent at its path", async () => {
    const record = new Recording();
    const prepareNextTurn = async () => undefined;
    const given = { ...options({ prepareNextTurn }), tools: [toolNamed("read", "contents")], record };
    const implementations = agentImplementations(given, ["call-1"]);
    expect(implementations.recording).toEqual({ recording: record, agentPath: ["call-1"] });
    // The other callbacks stay the options', and a copy of the callbacks keeps the recorded StreamFn.
    expect(implementations.callbacks.prepareNextTurn).toBe(prepareNextTurn);
    const copied = { ...implementations.callbacks };
    expect(copied.streamFn).toBe(implementations.callbacks.streamFn);
    expect(copied.streamFn).not.toBe(given.streamFn);

    const controller = new AbortController();
    await copied.streamFn(
      testModel,
      { systemPrompt: "", messages: [user("hi")], tools: [] },
      { signal: controller.signal },
    );
    expect(record.modelCalls.map((call) => call.agentPath)).toEqual([["call-1"]]);

    const read = implementations.tools.get("read")!;
    await read.execute({}, { toolCallId: "t1", signal: controller.signal } as never);
    expect(record.toolCalls.map((call) => [call.agentPath, call.toolCallId, call.toolName])).toEqual([
      [["call-1"], "t1", "read"],
    ]);
  });

  it("records as the root agent when no path is given", async () => {
    const record = new Recording();
    const implementations = agentImplementations({ ...options(), record });
    expect(implementations.recording?.agentPath).toEqual([]);
    await implementations.callbacks.streamFn(
      testModel,
      { systemPrompt: "", messages: [user("hi")], tools: [] },
      { signal: new AbortController().signal },
    );
    expect(record.modelCalls[0]?.agentPath).toEqual([]);
  });
});

describe("addTools", () => {
  it("registers each handoff's target with its tools, transitively, without replacing a tool of the same name", () => {
    const shared = toolNamed("lookup", "the agent's own");
    const targetsLookup = toolNamed("lookup", "the target's");
    const refund = toolNamed("refund");
    const toSupport = defineHandoff({ agent: { name: "support", tools: [refund] } });
    const toBilling = defineHandoff({ agent: { name: "billing", tools: [targetsLookup, toSupport] } });
    const implementations = agentImplementations({ ...options(), tools: [shared, toBilling] });
    expect([...implementations.handoffs.keys()]).toEqual(["billing", "support"]);
    expect([...implementations.tools.keys()]).toEqual([
      "lookup",
      "transfer_to_billing",
      "transfer_to_support",
      "refund",
    ]);
    expect(implementations.tools.get("lookup")).toBe(shared);
  });

  it("replaces a tool given again by name, and registers a handoff only once", () => {
    const implementations = agentImplementations({ ...options(), tools: [toolNamed("read", "old")] });
    const newer = toolNamed("read", "new");
    const toBilling = defineHandoff({ agent: { name: "billing", tools: [toolNamed("charge")] } });
    addTools(implementations, [newer, toBilling]);
    expect(implementations.tools.get("read")).toBe(newer);
    const again = defineHandoff({ agent: { name: "billing", tools: [toolNamed("other")] } });
    addTools(implementations, [again]);
    expect(implementations.handoffs.get("billing")).toBe(toBilling.handoff);
    expect(implementations.tools.has("other")).toBe(false);
    expect(implementations.tools.has("charge")).toBe(true);
  });
});

describe("the views of the implementations", () => {
  it("names the guardrails, input ones with their mode (blocking by default)", () => {
    const implementations = agentImplementations({
      ...options(),
      guardrails: { input: [pass("pii"), pass("fast", "parallel")], output: [pass("tone")] },
    });
    expect(guardrailNamesOf(implementations)).toEqual({
      input: [
        { name: "pii", mode: "blocking" },
        { name: "fast", mode: "parallel" },
      ],
      output: ["tone"],
    });
  });

  it("gives the active tools in the order named, leaving out names without an implementation", () => {
    const [read, write] = [toolNamed("read"), toolNamed("write")];
    const implementations = agentImplementations({ ...options(), tools: [read, write] });
    expect(activeTools(implementations, ["write", "gone", "read"])).toEqual([write, read]);
    expect(activeTools(implementations, [])).toEqual([]);
  });

  it("gives the callbacks the system prompt, the transcript and the active tools", () => {
    const read = toolNamed("read");
    const implementations = agentImplementations({ ...options(), tools: [read, toolNamed("write")] });
    const messages = [user("hi")];
    const context = initialAgentContext({
      model: testModel,
      systemPrompt: "Be brief.",
      toolNames: ["read"],
      messages,
    });
    const view = agentViewOf(context);
    expect(view).toEqual({ systemPrompt: "Be brief.", messages, toolNames: ["read"] });
    expect(callbackContextOf(implementations, view)).toEqual({
      systemPrompt: "Be brief.",
      messages,
      tools: [read],
    });
  });

  it.each([
    ["no between-turn callback", {}, false],
    ["prepareNextTurn", { prepareNextTurn: async () => undefined }, true],
    ["shouldStopAfterTurn", { shouldStopAfterTurn: () => false }, true],
    ["getSteeringMessages", { getSteeringMessages: async () => [] }, true],
    ["getFollowUpMessages", { getFollowUpMessages: async () => [] }, true],
  ])("knows whether there are between-turn callbacks: %s", (_name, callbacks, expected) => {
    const implementations = agentImplementations(options(callbacks as Partial<AgentCallbacks>));
    expect(hasTurnCallbacks(implementations)).toBe(expected);
  });
});

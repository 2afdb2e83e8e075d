/**
 * `initialAgentContext`: the context of a new agent, every default filled in and every optional field
 * present only when the start gives it.
 */
import { describe, expect, it } from "vitest";
import {
  AGENT_FORMAT_VERSION,
  type AgentStart,
  initialAgentContext,
} from "../../src/machines/agent/agent.context.js";
import { testModel, user } from "../support/loop-harness.js";

const OPTIONAL_FIELDS = [
  "parentToolCallId",
  "place",
  "parentEvents",
  "activeAgent",
  "budget",
  "sharesLedger",
] as const;

describe("initialAgentContext", () => {
  it("fills every default of an agent started from a model and its tool names", () => {
    const context = initialAgentContext({ agentId: "a1", model: testModel, toolNames: ["read"] });
    expect(context).toEqual({
      formatVersion: AGENT_FORMAT_VERSION,
      agentId: "a1",
      systemPrompt: "",
      model: testModel,
      thinkingLevel: "off",
      toolNames: ["read"],
      messages: [],
      steering: [],
      followUp: [],
      settings: {
        toolExecution: "parallel",
        steering: "afterToolBatch",
        steeringMode: "one-at-a-time",
        followUpMode: "one-at-a-time",
        maxTurns: undefined,
      },
      streamOptions: {},
      errorMessage: undefined,
      guardrails: { input: [], output: [] },
      hasTurnCallbacks: true,
      run: undefined,
    });
    for (const field of OPTIONAL_FIELDS) expect(Object.hasOwn(context, field), field).toBe(false);
  });

  it("gives every agent its own id when none is given", () => {
    const first = initialAgentContext({ model: testModel, toolNames: [] });
    const second = initialAgentContext({ model: testModel, toolNames: [] });
    expect(first.agentId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.agentId).not.toBe(first.agentId);
  });

  it("keeps what the start gives, settings merged over the defaults", () => {
    const messages = [user("hi")];
    const start: AgentStart = {
      agentId: "a2",
      model: testModel,
      systemPrompt: "Be brief.",
      thinkingLevel: "high",
      toolNames: ["read", "write"],
      messages,
      settings: { steeringMode: "all", maxTurns: 4 },
      streamOptions: { temperature: 0.5 },
      guardrails: { input: [{ name: "pii", mode: "parallel" }], output: ["tone"] },
      hasTurnCallbacks: false,
      parentToolCallId: "call-1",
      place: { path: ["call-1"], args: { task: "x" }, toolName: "research" },
      parentEvents: ["agent_end"],
      activeAgent: "billing",
      budget: { maxTurns: 3 },
      sharesLedger: true,
    };
    const context = initialAgentContext(start);
    expect(context).toMatchObject({
      systemPrompt: "Be brief.",
      thinkingLevel: "high",
      toolNames: ["read", "write"],
      messages,
      settings: {
        toolExecution: "parallel",
        steering: "afterToolBatch",
        steeringMode: "all",
        followUpMode: "one-at-a-time",
        maxTurns: 4,
      },
      streamOptions: { temperature: 0.5 },
      guardrails: { input: [{ name: "pii", mode: "parallel" }], output: ["tone"] },
      hasTurnCallbacks: false,
      parentToolCallId: "call-1",
      place: { path: ["call-1"], args: { task: "x" }, toolName: "research" },
      parentEvents: ["agent_end"],
      activeAgent: "billing",
      budget: { maxTurns: 3 },
      sharesLedger: true,
    });
  });

  it("copies the arrays and objects it keeps, so the start can change afterwards", () => {
    const start: AgentStart = {
      model: testModel,
      toolNames: ["read"],
      messages: [user("hi")],
      streamOptions: { temperature: 0.5 },
      parentEvents: ["agent_end"],
      budget: { maxTurns: 3 },
    };
    const context = initialAgentContext(start);
    start.toolNames.push("write");
    start.messages?.push(user("more"));
    start.streamOptions!.temperature = 1;
    start.parentEvents?.push("turn_end");
    start.budget!.maxTurns = 9;
    expect(context.toolNames).toEqual(["read"]);
    expect(context.messages).toHaveLength(1);
    expect(context.streamOptions).toEqual({ temperature: 0.5 });
    expect(context.parentEvents).toEqual(["agent_end"]);
    expect(context.budget).toEqual({ maxTurns: 3 });
  });

  it("leaves out an empty parentEvents list, and falsy optional fields", () => {
    const context = initialAgentContext({
      model: testModel,
      toolNames: [],
      parentEvents: [],
      parentToolCallId: "",
      activeAgent: "",
      sharesLedger: false,
    });
    for (const field of OPTIONAL_FIELDS) expect(Object.hasOwn(context, field), field).toBe(false);
  });
});

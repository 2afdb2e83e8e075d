import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { activeHandoffOf, applyHandoff } from "../../src/loop/handoff-steps.js";
import type { AgentMachineContext } from "../../src/machines/agent/agent.context.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineHandoff } from "../../src/tools/define-handoff.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage } from "../../src/types/messages.js";
import { echoTool, testModel } from "../support/loop-harness.js";

const billingModel = { ...testModel, id: "billing-model" };

function handoffs() {
  const seenByBilling: AgentMessage[][] = [];
  const toBilling = defineHandoff({
    agent: {
      name: "billing",
      description: "refunds and invoices",
      systemPrompt: "You do billing.",
      tools: [echoTool("refund")],
      model: billingModel,
    },
    // Billing sees only the user's messages and its own turns, not triage's tool traffic.
    inputFilter: (messages) => {
      const kept = messages.filter((m) => (m as { role: string }).role !== "toolResult" && !hasToolCall(m));
      seenByBilling.push(kept);
      return kept;
    },
  });
  return { toBilling, seenByBilling };
}

const hasToolCall = (m: AgentMessage) =>
  (m as { role: string }).role === "assistant" &&
  (m as { content: { type: string }[] }).content.some((block) => block.type === "toolCall");

describe("handoff", () => {
  it("ends triage's turn and goes on with the same run as billing: prompt, tools, model", async () => {
    const { toBilling, seenByBilling } = handoffs();
    const model = scriptedModel([
      { toolCalls: [{ id: "t1", name: "transfer_to_billing", arguments: {} }] },
      { toolCalls: [{ id: "r1", name: "refund", arguments: { text: "A-1" } }] },
      { text: "Refunded A-1." },
    ]);
    const agent = new Agent({
      model: testModel,
      streamFn: model,
      systemPrompt: "Route the user.",
      tools: [toBilling],
    });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
    });
    const result = await agent.prompt("I want a refund");
    expect(result.stopReason).toBe("stop");
    expect(events.filter((e) => e.type === "handoff")).toEqual([
      { type: "handoff", from: undefined, to: "billing" },
    ]);
    expect(events.filter((e) => e.type === "agent_start")).toHaveLength(1);
    // The first request was triage's; the next two are billing's.
    expect(
      model.calls.map((call) => [
        call.model.id,
        call.context.systemPrompt,
        call.context.tools.map((t) => t.name),
      ]),
    ).toEqual([
      [testModel.id, "Route the user.", ["transfer_to_billing"]],
      ["billing-model", "You do billing.", ["refund"]],
      ["billing-model", "You do billing.", ["refund"]],
    ]);
    expect(seenByBilling[0]!.map((m) => (m as { role: string }).role)).toEqual(["user"]);
    // The transcript keeps everything.
    expect(agent.state.messages.map((m) => (m as { role: string }).role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(agent.state.tools.map((t) => t.name)).toEqual(["refund"]);
  });

  it("does not switch agent when afterToolCall marks the handoff's result an error, as its transcript says", async () => {
    const { toBilling, seenByBilling } = handoffs();
    const model = scriptedModel([
      { toolCalls: [{ id: "t1", name: "transfer_to_billing", arguments: {} }] },
      { text: "Billing is closed; I can help." },
    ]);
    const agent = new Agent({
      model: testModel,
      streamFn: model,
      systemPrompt: "Route the user.",
      tools: [toBilling],
      afterToolCall: ({ toolCall }) =>
        toolCall.name === "transfer_to_billing"
          ? { isError: true, content: [{ type: "text", text: "billing is closed" }] }
          : undefined,
    });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
    });
    await agent.prompt("I want a refund");
    expect(events.filter((e) => e.type === "handoff")).toEqual([]);
    expect(model.calls[1]!.context.systemPrompt).toBe("Route the user.");
    expect(model.calls[1]!.context.tools.map((t) => t.name)).toEqual(["transfer_to_billing"]);
    expect(model.calls[1]!.model.id).toBe(testModel.id);
    expect(seenByBilling).toEqual([]);
    expect(agent.state.activeAgent).toBeUndefined();
    const result = agent.state.messages[2] as { role: string; isError: boolean };
    expect([result.role, result.isError]).toEqual(["toolResult", true]);
    // A session reopened from this transcript finds the same active agent: none.
    expect(activeHandoffOf(agent.state.messages)).toBeUndefined();
  });

  it("is data: persisted between turns and restored, later prompts go to the active agent", async () => {
    const first = handoffs();
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "t1", name: "transfer_to_billing", arguments: {} }] },
        { text: "Billing here." },
      ]),
      systemPrompt: "Route the user.",
      tools: [first.toBilling],
    });
    await agent.prompt("refund please");
    const saved = JSON.stringify(agent.persist());
    const second = handoffs();
    const model = scriptedModel([{ text: "Invoice sent." }]);
    const restored = Agent.restore(saved, { streamFn: model, tools: [second.toBilling] });
    expect(restored.state.systemPrompt).toBe("You do billing.");
    await restored.prompt("and an invoice");
    expect(model.calls[0]!.context.systemPrompt).toBe("You do billing.");
    expect(model.calls[0]!.model.id).toBe("billing-model");
    expect(second.seenByBilling).toHaveLength(1);
  });
});

describe("the active agent of a transcript", () => {
  const toolResult = (id: string, details: unknown, isError = false): AgentMessage =>
    ({
      role: "toolResult",
      toolCallId: id,
      toolName: "transfer",
      content: [{ type: "text", text: "ok" }],
      details,
      isError,
      timestamp: 0,
    }) as AgentMessage;
  const reply = { role: "assistant", content: [], timestamp: 0 } as unknown as AgentMessage;
  const record = (agent: string) => ({
    handoff: { agent, systemPrompt: `You are ${agent}.`, toolNames: [] },
  });

  it("is the handoff applied last: the last batch with a successful one, its first in source order", () => {
    const user = { role: "user", content: "hi", timestamp: 0 } as AgentMessage;
    expect(activeHandoffOf([user, reply])).toBeUndefined();
    expect(
      activeHandoffOf([
        user,
        reply,
        toolResult("a", record("billing")),
        reply,
        toolResult("b", {}),
        toolResult("c", record("sales")),
        toolResult("d", record("support")),
        reply,
      ])?.agent,
    ).toBe("sales");
    // A failed handoff call changes nothing.
    expect(
      activeHandoffOf([
        user,
        reply,
        toolResult("a", record("billing")),
        reply,
        toolResult("b", record("sales"), true),
      ])?.agent,
    ).toBe("billing");
  });

  it("is found wherever the batch stands: the transcript's last message, or its first", () => {
    const user = { role: "user", content: "hi", timestamp: 0 } as AgentMessage;
    expect(activeHandoffOf([user, reply, toolResult("a", record("billing"))])?.agent).toBe("billing");
    expect(activeHandoffOf([toolResult("a", record("sales")), reply])?.agent).toBe("sales");
  });

  it("is only a tool result's well-formed handoff record", () => {
    const user = { role: "user", content: "hi", timestamp: 0 } as AgentMessage;
    const notAResult = { ...reply, details: record("sales") } as AgentMessage;
    const noDetails = { ...toolResult("b", undefined) } as AgentMessage;
    const noPrompt = toolResult("c", { handoff: { agent: "support", toolNames: [] } });
    const noTools = toolResult("d", { handoff: { agent: "support", systemPrompt: "You support." } });
    const unnamed = toolResult("e", { handoff: { systemPrompt: "You support.", toolNames: [] } });
    expect(activeHandoffOf([user, notAResult, noDetails, noPrompt, noTools, unnamed])).toBeUndefined();
    expect(activeHandoffOf([user, reply, toolResult("a", record("billing")), notAResult])?.agent).toBe(
      "billing",
    );
  });

  it("is applied to an agent's context only after a tool batch", () => {
    const context = { systemPrompt: "Route the user.", toolNames: ["transfer"], run: undefined };
    const idle = context as unknown as AgentMachineContext;
    expect(applyHandoff(idle)).toEqual({ context: idle, events: [] });
    const noBatch = { ...context, run: {} } as unknown as AgentMachineContext;
    expect(applyHandoff(noBatch)).toEqual({ context: noBatch, events: [] });
  });

  it("can be where a new agent starts: `activeAgent` gives it the handoff's prompt, tools and model", async () => {
    const { toBilling } = handoffs();
    const model = scriptedModel([{ text: "Billing here." }]);
    const agent = new Agent({
      model: testModel,
      streamFn: model,
      systemPrompt: "Route the user.",
      tools: [toBilling],
      activeAgent: "billing",
    });
    expect(agent.state.activeAgent).toBe("billing");
    expect(agent.state.systemPrompt).toBe("You do billing.");
    expect(agent.state.tools.map((tool) => tool.name)).toEqual(["refund"]);
    await agent.prompt("and an invoice");
    const call = model.calls[0]!;
    expect([call.model.id, call.context.systemPrompt, call.context.tools.map((t) => t.name)]).toEqual([
      "billing-model",
      "You do billing.",
      ["refund"],
    ]);
  });

  it("must be one a handoff leads to", () => {
    const { toBilling } = handoffs();
    expect(
      () =>
        new Agent({
          model: testModel,
          streamFn: scriptedModel([]),
          tools: [toBilling],
          activeAgent: "sales",
        }),
    ).toThrow('Unknown active agent "sales": no handoff of this agent\'s tools leads to it (known: billing)');
  });
});

import { describe, expect, it } from "vitest";
import { tripGuardrail } from "../../src/loop/guardrail-steps.js";
import { beginRun, injectNext } from "../../src/loop/run-steps.js";
import type { AgentMachineContext } from "../../src/machines/agent/agent.context.js";
import type { AgentEvent } from "../../src/types/events.js";
import { type AssistantMessage, emptyUsage } from "../../src/types/messages.js";
import type { GuardrailTrip } from "../../src/types/output.js";
import { assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { testModel, user } from "../support/loop-harness.js";

const types = (events: AgentEvent[]) => events.map((event) => event.type);
const inputTrip: GuardrailTrip = { guardrail: "pii", kind: "input", reason: "an address" };
const outputTrip: GuardrailTrip = { guardrail: "tone", kind: "output", reason: "rude", threw: true };

/** A run started by a prompt, before its first turn (the input guardrails run at this point). */
function startedRun(): AgentMachineContext {
  const started = beginRun(idleContext(), [{ message: user("hi") }], false).context;
  return deepFreeze({ ...started, run: { ...started.run!, inputCheck: "blocking" } });
}

/** A run in its first turn, its reply held back for the output guardrails. */
function heldTurn(reply: AssistantMessage): AgentMachineContext {
  const injected = injectNext(beginRun(idleContext(), [{ message: user("hi") }], false).context).context;
  return deepFreeze({
    ...injected,
    run: { ...injected.run!, heldReply: { message: reply, sequential: false, events: [] } },
  });
}

describe("guardrail steps", () => {
  it("a tripped input guardrail opens the turn and ends it with a placeholder saying the request was blocked", () => {
    const before = Date.now();
    const { context, events } = tripGuardrail(startedRun(), inputTrip, undefined);
    const placeholder = context.messages.at(-1) as AssistantMessage;
    expect(types(events)).toEqual([
      "guardrail_tripped",
      "turn_start",
      "message_start",
      "message_end",
      "turn_end",
    ]);
    expect(events[0]).toEqual({ type: "guardrail_tripped", ...inputTrip });
    expect(placeholder).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: '[The request was blocked by the "pii" guardrail.]' }],
      api: testModel.api,
      provider: testModel.provider,
      model: testModel.id,
      usage: emptyUsage(),
      stopReason: "stop",
    });
    expect(placeholder.timestamp).toBeGreaterThanOrEqual(before);
    expect(placeholder.timestamp).toBeLessThanOrEqual(Date.now());
    expect(events.at(-1)).toEqual({ type: "turn_end", message: placeholder, toolResults: [] });
    expect(context.run).toMatchObject({ turnOpen: false, tripped: inputTrip, newMessages: [placeholder] });
    expect(context.run!.inputCheck).toBeUndefined();
  });

  it("a tripped output guardrail withholds the reply in its open turn, keeping its model and usage", () => {
    const usage = { ...emptyUsage(), input: 7, output: 3, totalTokens: 10 };
    const reply = {
      ...assistant([{ type: "text", text: "something rude" }], "stop"),
      api: "other-api",
      provider: "other",
      model: "other-1",
      usage,
      timestamp: 42,
    };
    const ctx = heldTurn(reply);
    const { context, events } = tripGuardrail(ctx, outputTrip, undefined, reply);
    const placeholder = context.messages.at(-1) as AssistantMessage;
    expect(types(events)).toEqual(["guardrail_tripped", "message_start", "message_end", "turn_end"]);
    expect(placeholder).toEqual({
      role: "assistant",
      content: [{ type: "text", text: '[This reply was withheld by the "tone" guardrail.]' }],
      api: "other-api",
      provider: "other",
      model: "other-1",
      usage,
      stopReason: "stop",
      timestamp: 42,
    });
    expect(context.messages).toEqual([...ctx.messages, placeholder]);
    expect(context.run).toMatchObject({ turnOpen: false, tripped: outputTrip });
    expect(context.run!.heldReply).toBeUndefined();
  });

  it("the guardrail's replacement text takes the placeholder's place", () => {
    const { context } = tripGuardrail(startedRun(), inputTrip, "I can't help with that.");
    expect((context.messages.at(-1) as AssistantMessage).content).toEqual([
      { type: "text", text: "I can't help with that." },
    ]);
  });
});

/**
 * Token and cost limits reserve the request's estimate before the model call and settle with the
 * reported usage after it: a call whose estimate would pass the limit is held before it starts.
 */
import { describe, expect, it } from "vitest";
import { type AnyActorRef, createActor } from "xstate";
import { createAgentMachine } from "../../src/machines.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import type { AgentBudget } from "../../src/types/budget.js";
import type { AgentEvent } from "../../src/types/events.js";
import { testModel, user } from "../support/loop-harness.js";

type Emitted<TType extends AgentEvent["type"]> = Extract<AgentEvent, { type: TType }>;

function next<TType extends AgentEvent["type"]>(actor: AnyActorRef, type: TType) {
  return new Promise<Emitted<TType>>((resolve) => {
    const listener = actor.on(type, (event: Emitted<TType>) => {
      listener.unsubscribe();
      resolve(event);
    });
  });
}

/** USD per million tokens: 100 in, 200 out. */
const pricedModel = { ...testModel, cost: { input: 100, output: 200, cacheRead: 0, cacheWrite: 0 } };

function start(replies: ScriptedReply[], budget: AgentBudget, maxTokens?: number) {
  const machine = createAgentMachine({ streamFn: scriptedModel(replies) });
  const actor = createActor(machine, {
    input: {
      model: pricedModel,
      agentId: "r1",
      budget,
      ...(maxTokens ? { streamOptions: { maxTokens } } : {}),
    },
  });
  const requests: number[] = [];
  actor.on("message_start", () => requests.push(1));
  actor.start();
  return { actor, requests };
}

// 400 characters: about 100 tokens of input.
const LONG_PROMPT = "x".repeat(400);

describe("a model call reserves its request's estimate", () => {
  it("is held when the estimate of its input would pass maxTokens, before any token is used", async () => {
    const { actor } = start([{ text: "done", usage: { input: 100, output: 2 } }], { maxTokens: 50 });
    const exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user(LONG_PROMPT)] });
    const event = await exceeded;
    expect(event).toMatchObject({ budget: "maxTokens", limit: 50, used: 0, before: "modelCall" });
    expect(event.estimate).toBeGreaterThanOrEqual(100);
    expect(actor.getSnapshot().context.run?.ledger?.usage.modelCalls).toBe(0);
    const ended = next(actor, "agent_end");
    actor.send({ type: "RAISE_BUDGET", limits: { maxTokens: 1000 } });
    // Settled with the reported usage (102), not the estimate.
    expect((await ended).budgetUsage?.tokens).toBe(102);
  });

  it("counts the request's output cap (maxTokens of the stream options) in the estimate", async () => {
    const { actor } = start([{ text: "done" }], { maxTokens: 1000 }, 2000);
    const exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user("hi")] });
    expect((await exceeded).estimate).toBeGreaterThan(2000);
  });

  it("prices the estimate with the model's cost for maxCostUsd", async () => {
    const { actor } = start([{ text: "done" }], { maxCostUsd: 0.005 });
    const exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user(LONG_PROMPT)] });
    const event = await exceeded;
    expect(event).toMatchObject({ budget: "maxCostUsd", used: 0 });
    // ~100 input tokens at 100 USD per million: ~0.01.
    expect(event.estimate).toBeGreaterThan(0.009);
    expect(event.estimate).toBeLessThan(0.02);
  });

  it("lets the call through when the estimate fits, and the next call sees what was reported", async () => {
    const { actor } = start([{ text: "a", usage: { input: 30, output: 10 } }], { maxTokens: 200 });
    const ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("short question")] });
    const end = await ended;
    expect(end.stopReason).toBe("stop");
    expect(end.budgetUsage?.tokens).toBe(40);
  });
});

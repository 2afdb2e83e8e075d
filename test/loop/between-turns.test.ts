import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  decisionWithoutCallbacks,
  planNextTurn,
  planOf,
  takeFromQueue,
  willStream,
} from "../../src/loop/between-turns.js";
import { outputStateOf } from "../../src/loop/output-schema.js";
import * as steps from "../../src/loop/run-steps.js";
import type { AgentMachineContext, AgentSettings, RunState } from "../../src/machines/agent/agent.context.js";
import type { TurnDecision } from "../../src/machines/agent/agent.events.js";
import { assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { user } from "../support/loop-harness.js";

const go: TurnDecision = { stop: false, external: { steering: [], followUp: [] } };
const s1 = user("s1"),
  s2 = user("s2"),
  s3 = user("s3"),
  f1 = user("f1"),
  f2 = user("f2"),
  f3 = user("f3"),
  e1 = user("e1"),
  e2 = user("e2");

/** A run after `turns` finished turns (its last a plain reply), the agent patched, the run patched. */
function afterTurns(
  turns: number,
  patch: Partial<AgentMachineContext> = {},
  settings: Partial<AgentSettings> = {},
  run: Partial<RunState> = {},
): AgentMachineContext {
  let ctx = steps.beginRun(idleContext(), [], false).context;
  for (let turn = 0; turn < turns; turn++) {
    const reply = assistant([{ type: "text", text: "ok" }], "stop");
    ctx = steps.closeTurn(
      steps.recordReply(ctx, { message: reply, started: true, sequential: false }).context,
    ).context;
  }
  return deepFreeze({
    ...ctx,
    ...patch,
    settings: { ...ctx.settings, ...settings },
    run: { ...ctx.run!, ...run },
  });
}

/** A run that has not had its first turn yet. */
function atStart(patch: Partial<AgentMachineContext> = {}, run: Partial<RunState> = {}): AgentMachineContext {
  return afterTurns(0, patch, {}, run);
}

const inboxOf = (ctx: AgentMachineContext) => ctx.run!.inbox;

describe("between turns", () => {
  it("takes the first queued message, or all of them, or none from an empty queue", () => {
    const queue = [s1, s2, s3];
    expect(takeFromQueue(queue, "one-at-a-time")).toEqual([s1]);
    const all = takeFromQueue(queue, "all");
    expect(all).toEqual(queue);
    expect(all).not.toBe(queue);
    expect(takeFromQueue([], "all")).toEqual([]);
    expect(takeFromQueue([], "one-at-a-time")).toEqual([]);
  });

  it("without callbacks, stops only once the run has had maxTurns turns", () => {
    expect(decisionWithoutCallbacks(afterTurns(2, {}, { maxTurns: 2 }))).toEqual({
      stop: true,
      external: { steering: [], followUp: [] },
    });
    expect(decisionWithoutCallbacks(afterTurns(3, {}, { maxTurns: 2 })).stop).toBe(true);
    expect(decisionWithoutCallbacks(afterTurns(1, {}, { maxTurns: 2 }))).toEqual(go);
    expect(decisionWithoutCallbacks(afterTurns(5)).stop).toBe(false);
    // Before its first turn a run never stops, whatever the limit.
    expect(decisionWithoutCallbacks(afterTurns(0, {}, { maxTurns: 0 })).stop).toBe(false);
  });

  it("a run that has not streamed yet streams, and is no longer spending its first steering drain point", () => {
    const plan = planNextTurn(atStart({}, { steeringSpent: true }), go);
    expect(plan.next).toBe("stream");
    expect(plan.context.run!.steeringSpent).toBe(false);
    expect(willStream(atStart())).toBe(true);
  });

  it("at the start, drains the steering queue by its mode unless the run started from it", () => {
    const fresh = planNextTurn(atStart({ steering: [s1, s2] }), go);
    expect(fresh.next).toBe("stream");
    expect(inboxOf(fresh.context)).toEqual([{ message: s1, from: "steering" }]);
    expect(fresh.context.steering).toEqual([s2]);
    const spent = planNextTurn(atStart({ steering: [s1, s2] }, { steeringSpent: true }), go);
    expect(inboxOf(spent.context)).toEqual([]);
    expect(spent.context.steering).toEqual([s1, s2]);
  });

  it("a replaced context brings its own messages and tools", () => {
    const messages = [user("summary")];
    const plan = planNextTurn(afterTurns(1), {
      ...go,
      stop: true,
      context: { systemPrompt: "new", messages, toolNames: ["lookup"] },
    });
    expect(plan.context).toMatchObject({ systemPrompt: "new", messages, toolNames: ["lookup"] });
    expect(plan.context.messages).not.toBe(messages);
  });

  it("streams again when the last turn's tools want a reply, even with nothing to inject", () => {
    const ctx = afterTurns(1, {}, {}, { toolsWantReply: true });
    expect(planNextTurn(ctx, go)).toMatchObject({ next: "stream", context: { run: { inbox: [] } } });
    expect(willStream(ctx)).toBe(true);
  });

  it("streams for messages already waiting in the inbox, and keeps them first", () => {
    const ctx = afterTurns(1, { steering: [s2] }, {}, { inbox: [{ message: s1 }] });
    const plan = planNextTurn(ctx, { ...go, external: { steering: [e1], followUp: [] } });
    expect(plan.next).toBe("stream");
    expect(inboxOf(plan.context)).toEqual([
      { message: s1 },
      { message: s2, from: "steering" },
      { message: e1, from: "steering", external: true },
    ]);
    expect(plan.context.steering).toEqual([]);
    expect(willStream(afterTurns(1, {}, {}, { inbox: [{ message: s1 }] }))).toBe(true);
    expect(willStream(afterTurns(1, { steering: [s1] }))).toBe(true);
  });

  it("drains the whole steering queue in 'all' mode, and leaves the follow-ups", () => {
    const ctx = afterTurns(1, { steering: [s1, s2], followUp: [f1] }, { steeringMode: "all" });
    const plan = planNextTurn(ctx, go);
    expect(plan.next).toBe("stream");
    expect(inboxOf(plan.context).map((entry) => entry.message)).toEqual([s1, s2]);
    expect(plan.context.steering).toEqual([]);
    expect(plan.context.followUp).toEqual([f1]);
  });

  it("an external steering message alone is reason to stream", () => {
    const plan = planNextTurn(afterTurns(1, { followUp: [f1] }), {
      ...go,
      external: { steering: [e1], followUp: [e2] },
    });
    expect(plan.next).toBe("stream");
    expect(inboxOf(plan.context)).toEqual([{ message: e1, from: "steering", external: true }]);
    expect(plan.context.followUp).toEqual([f1]);
  });

  it("when it would stop, takes the follow-ups by their mode, then the external ones", () => {
    const one = planNextTurn(afterTurns(1, { followUp: [f1, f2] }), {
      ...go,
      external: { steering: [], followUp: [e1] },
    });
    expect(one.next).toBe("stream");
    expect(inboxOf(one.context)).toEqual([
      { message: f1, from: "followUp" },
      { message: e1, from: "followUp", external: true },
    ]);
    expect(one.context.followUp).toEqual([f2]);

    const all = planNextTurn(afterTurns(1, { followUp: [f1, f2, f3] }, { followUpMode: "all" }), go);
    expect(inboxOf(all.context).map((entry) => entry.message)).toEqual([f1, f2, f3]);
    expect(all.context.followUp).toEqual([]);

    const externalOnly = planNextTurn(afterTurns(1), { ...go, external: { steering: [], followUp: [e1] } });
    expect(externalOnly.next).toBe("stream");
    expect(inboxOf(externalOnly.context)).toEqual([{ message: e1, from: "followUp", external: true }]);
  });

  it("stops with nothing queued, and leaves the context as it was", () => {
    const ctx = afterTurns(1);
    const plan = planNextTurn(ctx, go);
    expect(plan.next).toBe("stop");
    expect(plan.context).toBe(ctx);
    expect(willStream(ctx)).toBe(false);
  });

  it("a stop decision stops, whatever is queued", () => {
    const ctx = afterTurns(1, { steering: [s1], followUp: [f1] }, {}, { toolsWantReply: true });
    const plan = planNextTurn(ctx, { ...go, stop: true });
    expect(plan).toEqual({ next: "stop", context: ctx });
  });

  it("an accepted or failed output ends the run; what the external sources handed over goes back to the inbox", () => {
    const output = outputStateOf(z.object({ city: z.string() }));
    const external = { steering: [e1], followUp: [e2] };
    for (const ended of [
      { ...output, accepted: true },
      { ...output, failure: { issues: [], raw: "{}" } },
    ]) {
      const ctx = afterTurns(
        1,
        { steering: [s1], followUp: [f1] },
        {},
        { output: ended, inbox: [{ message: s2 }] },
      );
      const plan = planNextTurn(ctx, { ...go, external });
      expect(plan.next).toBe("stop");
      expect(inboxOf(plan.context)).toEqual([
        { message: s2 },
        { message: e1, from: "steering", external: true },
        { message: e2, from: "followUp", external: true },
      ]);
      expect(plan.context.steering).toEqual([s1]);
      expect(plan.context.followUp).toEqual([f1]);
    }
    // An output not accepted yet does not end the run.
    const pending = afterTurns(1, { followUp: [f1] }, {}, { output });
    expect(planNextTurn(pending, go).next).toBe("stream");
  });

  it("a decision's plan is made once, then the same plan is given for it", () => {
    const ctx = afterTurns(1, { followUp: [f1] });
    const decision: TurnDecision = { ...go };
    const plan = planOf(ctx, decision);
    expect(plan).toEqual(planNextTurn(ctx, decision));
    expect(planOf(afterTurns(1), decision)).toBe(plan);
    expect(planOf(afterTurns(1), { ...go })).toEqual({ next: "stop", context: expect.anything() });
  });
});

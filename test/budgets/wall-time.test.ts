/**
 * `maxWallMs` on the plain agent machine: the run's wall time is clocked in at each check (before a
 * model call or a tool call); a `pause` limit waits there, and the time paused or between a snapshot
 * and its restore is not counted; a `stop` limit arms XState's delayed `WALL_TIME_UP` while calls run,
 * which ends the run in the middle of a tool call or a stream. Time is the test's: `Date` is faked and
 * XState's timers run on a `SimulatedClock` — no sleeps, no wall-time assertions.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AnyActorRef, createActor, SimulatedClock } from "xstate";
import { z } from "zod";
import { createAgentMachine } from "../../src/machines.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentBudget } from "../../src/types/budget.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AssistantMessage, ToolResultMessage } from "../../src/types/messages.js";
import type { StreamFn } from "../../src/types/stream.js";
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

const T0 = Date.UTC(2026, 0, 1);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => vi.useRealTimers());

/** Moves the (faked) wall clock on by `ms`. */
function elapse(ms: number) {
  vi.setSystemTime(Date.now() + ms);
}

/** A tool whose call takes `ms` of (faked) wall time. */
const slowTool = (ms: number) =>
  defineTool({
    name: "slow",
    description: "takes its time",
    parameters: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      elapse(ms);
      return { content: [{ type: "text", text: `slow ${n}` }] };
    },
  });

/** A tool that runs until it is aborted. */
const hangingTool = defineTool({
  name: "hang",
  description: "runs until aborted",
  parameters: z.object({}),
  execute: (_args, context) =>
    new Promise<never>((_resolve, reject) =>
      context.signal.addEventListener("abort", () => reject(new Error("aborted"))),
    ),
});

const callSlow = (...ns: number[]): ScriptedReply => ({
  toolCalls: ns.map((n) => ({ id: `slow-${n}`, name: "slow", arguments: { n } })),
});

function start(
  streamFn: StreamFn,
  tools: Parameters<typeof createAgentMachine>[0]["tools"],
  budget: AgentBudget,
  clock?: SimulatedClock,
) {
  const machine = createAgentMachine({ streamFn, tools });
  const actor = createActor(machine, {
    input: { model: testModel, agentId: "a1", budget },
    ...(clock ? { clock } : {}),
  });
  const events: AgentEvent[] = [];
  actor.on("*", (event: AgentEvent) => events.push(event));
  actor.start();
  return { machine, actor, events };
}

function expectEveryCallAnswered(messages: readonly unknown[]) {
  const called = messages
    .filter((m): m is AssistantMessage => (m as AssistantMessage).role === "assistant")
    .flatMap((m) => m.content.filter((block) => block.type === "toolCall").map((block) => block.id));
  const answered = messages
    .filter((m): m is ToolResultMessage => (m as ToolResultMessage).role === "toolResult")
    .map((m) => m.toolCallId);
  expect(answered.sort()).toEqual(called.sort());
}

describe("maxWallMs with pause", () => {
  it("pauses before the model call once the wall time is spent; paused time is not counted", async () => {
    const { actor } = start(scriptedModel([callSlow(1), { text: "done" }]), [slowTool(1500)], {
      maxWallMs: 1000,
    });
    const exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    expect(await exceeded).toMatchObject({
      budget: "maxWallMs",
      limit: 1000,
      used: 1500,
      action: "pause",
      before: "modelCall",
    });
    expect(actor.getSnapshot().hasTag("awaitingHuman")).toBe(true);
    expect(actor.getSnapshot().context.run?.ledger?.clockedAt).toBeUndefined();
    // An hour waiting for a person: not the run's time.
    elapse(3_600_000);
    const ended = next(actor, "agent_end");
    actor.send({ type: "RAISE_BUDGET", limits: { maxWallMs: 2000 } });
    const end = await ended;
    expect(end.stopReason).toBe("stop");
    expect(end.budgetUsage?.wallMs).toBe(1500);
  });

  it("holds the reply's tool calls once the model call spent the wall time", async () => {
    const scripted = scriptedModel([callSlow(1, 2), { text: "done" }]);
    // The model call takes 800 ms of the 500.
    const slowModel: StreamFn = (...args) => {
      elapse(800);
      return scripted(...args);
    };
    const { actor, events } = start(slowModel, [slowTool(0)], { maxWallMs: 500 });
    const exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    expect(await exceeded).toMatchObject({
      budget: "maxWallMs",
      before: "toolCall",
      toolName: "slow",
      used: 800,
    });
    expect(actor.getSnapshot().matches({ running: { executingTools: "budgetExceeded" } })).toBe(true);
    expect(events.some((event) => event.type === "tool_execution_start")).toBe(false);
    const ended = next(actor, "agent_end");
    actor.send({ type: "RAISE_BUDGET", limits: { maxWallMs: 10_000 } });
    const end = await ended;
    expect(end.stopReason).toBe("stop");
    expect(end.budgetUsage).toMatchObject({ toolCalls: 2, wallMs: 1600 });
  });

  it("a restored paused run keeps the time it used, not the time it was stored", async () => {
    const replies = [callSlow(1), { text: "done" }];
    const first = start(scriptedModel(replies), [slowTool(1200)], { maxWallMs: 1000 });
    const exceeded = next(first.actor, "budget_exceeded");
    first.actor.send({ type: "PROMPT", messages: [user("go")] });
    await exceeded;
    const saved = JSON.stringify(first.actor.getPersistedSnapshot());
    first.actor.stop();

    elapse(86_400_000); // a day later, another process
    const machine = createAgentMachine({
      streamFn: scriptedModel(replies.slice(1)),
      tools: [slowTool(1200)],
    });
    const restored = createActor(machine, { snapshot: JSON.parse(saved) });
    restored.start();
    restored.send({ type: "RESUME", interrupted: [], reenter: [], waiting: [] });
    expect(restored.getSnapshot().hasTag("awaitingHuman")).toBe(true);
    expect(restored.getSnapshot().context.run?.ledger?.usage.wallMs).toBe(1200);
    const ended = next(restored, "agent_end");
    restored.send({ type: "RAISE_BUDGET", limits: { maxWallMs: 5000 } });
    const end = await ended;
    expect(end.stopReason).toBe("stop");
    expect(end.budgetUsage?.wallMs).toBe(1200);
  });
});

describe("maxWallMs with stop: XState's delayed WALL_TIME_UP", () => {
  it("ends the run in the middle of a tool call, every call answered", async () => {
    const clock = new SimulatedClock();
    const { actor, events } = start(
      scriptedModel([{ toolCalls: [{ id: "h1", name: "hang", arguments: {} }] }, { text: "never" }]),
      [hangingTool],
      { maxWallMs: 1000, onExceeded: { maxWallMs: "stop" } },
      clock,
    );
    const started = next(actor, "tool_execution_start");
    const ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    await started;
    // Not yet: 999 ms of the 1000.
    elapse(999);
    clock.increment(999);
    expect(actor.getSnapshot().matches({ running: "executingTools" })).toBe(true);
    elapse(1);
    clock.increment(1);
    const end = await ended;
    expect(end.stopReason).toBe("budget");
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "budget_exceeded",
        budget: "maxWallMs",
        action: "stop",
        before: "toolCall",
      }),
    );
    expectEveryCallAnswered(end.messages);
    const result = end.messages.find(
      (m) => (m as ToolResultMessage).role === "toolResult",
    ) as ToolResultMessage;
    expect(JSON.stringify(result.content)).toContain("maxWallMs (1000) was reached");
    expect(actor.getSnapshot().value).toBe("idle");
  });

  it("ends the run in the middle of a stream", async () => {
    const clock = new SimulatedClock();
    // A model that streams its text, then nothing until aborted.
    const streamFn = scriptedModel([{ text: "slow reply", hang: true }]);
    const { actor } = start(streamFn, [], { maxWallMs: 500, onExceeded: "stop" }, clock);
    const ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    expect(actor.getSnapshot().matches({ running: "streaming" })).toBe(true);
    elapse(500);
    clock.increment(500);
    const end = await ended;
    expect(end.stopReason).toBe("budget");
    expect(end.budgetUsage?.wallMs).toBe(500);
  });

  it("arms no timer for a pause limit", async () => {
    const clock = new SimulatedClock();
    const { actor } = start(
      scriptedModel([{ toolCalls: [{ id: "h1", name: "hang", arguments: {} }] }]),
      [hangingTool],
      { maxWallMs: 10 },
      clock,
    );
    const started = next(actor, "tool_execution_start");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    await started;
    elapse(1000);
    clock.increment(1000);
    // The call in flight is never cut short by a pause limit.
    expect(actor.getSnapshot().matches({ running: { executingTools: "working" } })).toBe(true);
    actor.send({ type: "ABORT" });
  });
});

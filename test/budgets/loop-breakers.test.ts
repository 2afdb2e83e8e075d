/**
 * Loop breakers on the plain agent machine: the same call (a tool and identical arguments) made too
 * often, a call that keeps failing made again, a reply repeating the previous one — each held before
 * the call with `loop_detected` and the budget's pause / stop / warn choice; when the run goes on, the
 * model is told why (a user message before its next call). A paused loop persists and restores.
 */
import { describe, expect, it } from "vitest";
import { type AnyActorRef, createActor } from "xstate";
import { z } from "zod";
import { createAgentMachine } from "../../src/machines.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { type AgentBudget, BudgetError } from "../../src/types/budget.js";
import type { AgentEvent } from "../../src/types/events.js";
import type {
  AgentMessage,
  AssistantMessage,
  ToolResultMessage,
  UserMessage,
} from "../../src/types/messages.js";
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

const pingTool = (runs: string[], fails = false) =>
  defineTool({
    name: "ping",
    description: "pings",
    parameters: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      runs.push(`ping:${n}`);
      if (fails) throw new Error(`ping ${n} failed`);
      return { content: [{ type: "text", text: `pong ${n}` }] };
    },
  });

/** Reply `index` (its own text, so replies differ) calling ping with `n`. */
const ping = (index: number, n = 1): ScriptedReply => ({
  text: `try ${index}`,
  toolCalls: [{ id: `p${index}`, name: "ping", arguments: { n } }],
});

function agentWith(replies: ScriptedReply[], budget: AgentBudget, runs: string[] = [], fails = false) {
  const machine = createAgentMachine({ streamFn: scriptedModel(replies), tools: [pingTool(runs, fails)] });
  const actor = createActor(machine, { input: { model: testModel, agentId: "l1", budget } });
  const events: AgentEvent[] = [];
  actor.on("*", (event: AgentEvent) => events.push(event));
  actor.start();
  return { machine, actor, events, runs };
}

const roleOf = (m: AgentMessage) => (m as { role: string }).role;

/** The loop breaker's notes the model was given, in the transcript. */
function notices(messages: readonly AgentMessage[]): string[] {
  return messages
    .filter((m): m is UserMessage => roleOf(m) === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .filter((text) => text.includes("[loop breaker]"));
}

function expectEveryCallAnswered(messages: readonly AgentMessage[]) {
  const called = messages
    .filter((m): m is AssistantMessage => roleOf(m) === "assistant")
    .flatMap((m) => m.content.filter((block) => block.type === "toolCall").map((block) => block.id));
  const answered = messages
    .filter((m): m is ToolResultMessage => roleOf(m) === "toolResult")
    .map((m) => m.toolCallId);
  expect(answered.sort()).toEqual(called.sort());
}

describe("the same call with identical arguments", () => {
  it("is held at the 6th by default (loop_detected, awaitingHuman); CONTINUE_ONCE runs it and tells the model", async () => {
    const replies = [1, 2, 3, 4, 5, 6].map((index) => ping(index));
    const { actor, events, runs } = agentWith([...replies, { text: "done" }], {});
    const detected = next(actor, "loop_detected");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    expect(await detected).toMatchObject({
      budget: "maxIdenticalCalls",
      limit: 5,
      used: 5,
      action: "pause",
      before: "toolCall",
      toolName: "ping",
    });
    expect(runs).toHaveLength(5);
    const snapshot = actor.getSnapshot();
    expect(snapshot.matches({ running: { executingTools: "budgetExceeded" } })).toBe(true);
    expect(snapshot.hasTag("awaitingHuman")).toBe(true);
    expect(events.some((event) => event.type === "budget_exceeded")).toBe(false);
    const ended = next(actor, "agent_end");
    actor.send({ type: "CONTINUE_ONCE" });
    const end = await ended;
    expect(runs).toHaveLength(6);
    expect(end.stopReason).toBe("stop");
    const told = notices(end.messages);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('you called "ping" with the same arguments 5 times');
    // The note comes after the held call's result, before the last reply.
    const roles = end.messages.map(roleOf);
    expect(roles.slice(-3)).toEqual(["toolResult", "user", "assistant"]);
    expectEveryCallAnswered(end.messages);
  });

  it("counts arguments by value, whatever their key order; other arguments are other calls", async () => {
    const replies: ScriptedReply[] = [
      { text: "a", toolCalls: [{ id: "c1", name: "ping", arguments: { n: 1, tag: "x" } }] },
      { text: "b", toolCalls: [{ id: "c2", name: "ping", arguments: { tag: "x", n: 1 } }] },
      { text: "c", toolCalls: [{ id: "c3", name: "ping", arguments: { n: 2, tag: "x" } }] },
      { text: "d", toolCalls: [{ id: "c4", name: "ping", arguments: { n: 1, tag: "x" } }] },
      { text: "done" },
    ];
    const { actor } = agentWith(replies, { maxIdenticalCalls: 2 });
    const detected = next(actor, "loop_detected");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    expect(await detected).toMatchObject({ budget: "maxIdenticalCalls", limit: 2, used: 2 });
    expect(actor.getSnapshot().context.run?.batch?.calls[0]?.id).toBe("c4");
    actor.send({ type: "ABORT" });
  });
});

describe("a failing call made again", () => {
  it('"stop": the third identical call after two failures is refused and the run ends (budget)', async () => {
    const replies = [1, 2, 3].map((index) => ping(index));
    const { actor, runs } = agentWith([...replies, { text: "never" }], { onExceeded: "stop" }, [], true);
    const detected = next(actor, "loop_detected");
    const ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    expect(await detected).toMatchObject({ budget: "maxFailedRepeats", limit: 2, used: 2, action: "stop" });
    const end = await ended;
    expect(runs).toEqual(["ping:1", "ping:1"]);
    expect(end.stopReason).toBe("budget");
    expect(notices(end.messages)).toEqual([]);
    const last = end.messages.filter((m): m is ToolResultMessage => roleOf(m) === "toolResult").at(-1)!;
    expect(JSON.stringify(last.content)).toContain("maxFailedRepeats");
    expectEveryCallAnswered(end.messages);
  });
});

describe("a reply repeating the previous one", () => {
  it('"warn": loop_detected once, the run goes on and the model is told before its next call', async () => {
    const same: ScriptedReply = {
      text: "again",
      toolCalls: [{ id: "x", name: "ping", arguments: { n: 1 } }],
    };
    const replies: ScriptedReply[] = [
      same,
      { ...same, toolCalls: [{ id: "y", name: "ping", arguments: { n: 1 } }] },
      { text: "done" },
    ];
    const { actor, events } = agentWith(replies, { onExceeded: { maxRepeatedReplies: "warn" } });
    const ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    const end = await ended;
    expect(end.stopReason).toBe("stop");
    expect(events.filter((event) => event.type === "loop_detected")).toEqual([
      expect.objectContaining({
        budget: "maxRepeatedReplies",
        limit: 1,
        used: 1,
        action: "warn",
        before: "toolCall",
      }),
    ]);
    const told = notices(end.messages);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain("your last reply repeated the one before it");
    expectEveryCallAnswered(end.messages);
  });

  it("pause (default): held before the repeated reply's calls; RAISE_BUDGET goes on", async () => {
    // The second reply says and calls what the first did.
    const replies: ScriptedReply[] = [ping(1), ping(1), { text: "done" }];
    const { actor } = agentWith(replies, {});
    const detected = next(actor, "loop_detected");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    expect(await detected).toMatchObject({
      budget: "maxRepeatedReplies",
      before: "toolCall",
      action: "pause",
    });
    const ended = next(actor, "agent_end");
    actor.send({ type: "RAISE_BUDGET", limits: { maxRepeatedReplies: 3 } });
    const end = await ended;
    expect(end.stopReason).toBe("stop");
    expect(notices(end.messages)).toHaveLength(1);
    expectEveryCallAnswered(end.messages);
  });
});

describe("a run held by a loop breaker, persisted", () => {
  it("restores held and, raised, finishes with the model told", async () => {
    const replies = [ping(1), ping(2), ping(3), { text: "done" }];
    const first = agentWith(replies, { maxIdenticalCalls: 2 });
    const detected = next(first.actor, "loop_detected");
    first.actor.send({ type: "PROMPT", messages: [user("go")] });
    await detected;
    const saved = JSON.stringify(first.actor.getPersistedSnapshot());
    first.actor.stop();

    const again: string[] = [];
    const machine = createAgentMachine({
      streamFn: scriptedModel(replies.slice(3)),
      tools: [pingTool(again)],
    });
    const restored = createActor(machine, { snapshot: JSON.parse(saved) });
    restored.start();
    expect(restored.getSnapshot().hasTag("awaitingHuman")).toBe(true);
    expect(restored.getSnapshot().context.run?.ledger?.paused).toMatchObject({ budget: "maxIdenticalCalls" });
    const ended = next(restored, "agent_end");
    restored.send({ type: "RAISE_BUDGET", limits: { maxIdenticalCalls: 10 } });
    const end = await ended;
    expect(again).toEqual(["ping:1"]);
    expect(notices(end.messages)).toHaveLength(1);
    expectEveryCallAnswered(end.messages);
  });
});

describe("bad loop-breaker limits", () => {
  it("refuses a negative or non-numeric one, naming it", () => {
    const streamFn = scriptedModel([]);
    expect(() => createAgentMachine({ streamFn, budget: { maxIdenticalCalls: -1 } })).toThrow(BudgetError);
    expect(() =>
      createAgentMachine({ streamFn, budget: { maxRepeatedReplies: "2" as unknown as number } }),
    ).toThrow(/maxRepeatedReplies must be a finite number/);
  });
});

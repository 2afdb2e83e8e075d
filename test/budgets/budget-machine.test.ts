/**
 * Budgets as states, on the plain agent machine: a run that would go past a limit pauses (a state tagged
 * `awaitingHuman`, with `budget_exceeded`), stops (`stopReason: "budget"`) or warns; a paused run
 * persists and restores with plain XState and goes on after `RAISE_BUDGET` or `CONTINUE_ONCE`, or ends
 * cleanly on `ABORT`; parallel tool calls never start past a cap.
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
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/types/messages.js";
import { testModel, user } from "../support/loop-harness.js";

type Emitted<TType extends AgentEvent["type"]> = Extract<AgentEvent, { type: TType }>;

/** Resolves with the next event of `type` the actor emits. */
function next<TType extends AgentEvent["type"]>(actor: AnyActorRef, type: TType) {
  return new Promise<Emitted<TType>>((resolve) => {
    const listener = actor.on(type, (event: Emitted<TType>) => {
      listener.unsubscribe();
      resolve(event);
    });
  });
}

const pricedModel = { ...testModel, cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } };

function countingTool(name: string, runs: string[]) {
  return defineTool({
    name,
    description: `counts its runs (${name})`,
    parameters: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      runs.push(`${name}:${n}`);
      return { content: [{ type: "text", text: `${name} ${n}` }] };
    },
  });
}

/** A reply calling `tool` once per number in `ns` (ids `<tool>-<n>`). */
function calls(tool: string, ...ns: number[]): ScriptedReply {
  return { toolCalls: ns.map((n) => ({ id: `${tool}-${n}`, name: tool, arguments: { n } })) };
}

function agentWith(replies: ScriptedReply[], budget: AgentBudget, runs: string[] = []) {
  const machine = createAgentMachine({
    streamFn: scriptedModel(replies),
    tools: [countingTool("ping", runs), countingTool("pong", runs)],
  });
  const actor = createActor(machine, { input: { model: pricedModel, agentId: "a1", budget } });
  const events: AgentEvent[] = [];
  actor.on("*", (event: AgentEvent) => events.push(event));
  actor.start();
  return { machine, actor, events, runs };
}

/** Every tool call of the transcript has exactly one result, and results follow their reply. */
function expectEveryCallAnswered(messages: readonly AgentMessage[]) {
  const called = messages
    .filter((m): m is AssistantMessage => (m as AssistantMessage).role === "assistant")
    .flatMap((m) => m.content.filter((block) => block.type === "toolCall").map((block) => block.id));
  const answered = messages
    .filter((m): m is ToolResultMessage => (m as ToolResultMessage).role === "toolResult")
    .map((m) => m.toolCallId);
  expect(answered.sort()).toEqual(called.sort());
}

describe("a run paused at each budget", () => {
  const cases: {
    budget: AgentBudget;
    replies: ScriptedReply[];
    name: string;
    limit: number;
    used: number;
  }[] = [
    {
      name: "maxModelCalls",
      budget: { maxModelCalls: 1 },
      replies: [calls("ping", 1), { text: "done" }],
      limit: 1,
      used: 1,
    },
    {
      name: "maxTurns",
      budget: { maxTurns: 1 },
      replies: [calls("ping", 1), { text: "done" }],
      limit: 1,
      used: 1,
    },
    {
      name: "maxTokens",
      budget: { maxTokens: 100 },
      replies: [{ ...calls("ping", 1), usage: { input: 80, output: 40 } }, { text: "done" }],
      limit: 100,
      used: 120,
    },
    {
      name: "maxCostUsd",
      budget: { maxCostUsd: 0.5 },
      replies: [
        // The scripted model reports the cost a provider computes from the model's prices.
        {
          ...calls("ping", 1),
          usage: {
            cost: { input: 0.3, output: 0.3, cacheRead: 0, cacheWrite: 0, total: 0.6 },
          } as ScriptedReply["usage"],
        },
        { text: "done" },
      ],
      limit: 0.5,
      used: 0.6,
    },
    {
      name: "maxToolCalls",
      budget: { maxToolCalls: 1 },
      replies: [calls("ping", 1, 2), { text: "done" }],
      limit: 1,
      used: 1,
    },
    {
      name: "maxToolCallsPerTool",
      budget: { maxToolCallsPerTool: 1 },
      replies: [calls("ping", 1, 2), { text: "done" }],
      limit: 1,
      used: 1,
    },
  ];

  it.each(cases)(
    "$name: waits tagged awaitingHuman with budget_exceeded, then RAISE_BUDGET lets the run finish",
    async ({ name, budget, replies, limit, used }) => {
      const { actor, events } = agentWith(replies, budget);
      const exceeded = next(actor, "budget_exceeded");
      actor.send({ type: "PROMPT", messages: [user("go")] });
      expect(await exceeded).toMatchObject({ budget: name, limit, used, action: "pause" });
      const paused = actor.getSnapshot();
      expect(paused.hasTag("awaitingHuman")).toBe(true);
      expect(paused.hasTag("busy")).toBe(true);
      expect(paused.context.run?.ledger?.paused).toMatchObject({ budget: name });

      const ended = next(actor, "agent_end");
      actor.send({ type: "RAISE_BUDGET", limits: { [name]: limit + 1000 } });
      expect(actor.getSnapshot().hasTag("awaitingHuman")).toBe(false);
      const end = await ended;
      expect(end.stopReason).toBe("stop");
      expect(end.messages.at(-1)).toMatchObject({
        role: "assistant",
        content: [{ type: "text", text: "done" }],
      });
      expectEveryCallAnswered(end.messages);
      expect(events.filter((event) => event.type === "budget_exceeded")).toHaveLength(1);
    },
  );
});

describe("at a limit", () => {
  it("checks the tool call before it starts: parallel calls past maxToolCalls never start", async () => {
    const runs: string[] = [];
    const { actor } = agentWith([calls("ping", 1, 2, 3, 4), { text: "done" }], { maxToolCalls: 2 }, runs);
    const exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    expect(await exceeded).toMatchObject({ budget: "maxToolCalls", limit: 2, used: 2, toolName: "ping" });
    // Both admitted calls finish while the third waits; nothing else starts.
    const snapshot = await new Promise<ReturnType<typeof actor.getSnapshot>>((resolve) => {
      const check = () => {
        const current = actor.getSnapshot();
        const phases = current.context.run?.batch?.phases ?? {};
        if (phases["ping-1"] === "settled" && phases["ping-2"] === "settled") resolve(current);
      };
      actor.subscribe(check);
      check();
    });
    expect(runs.sort()).toEqual(["ping:1", "ping:2"]);
    expect(snapshot.matches({ running: { executingTools: "budgetExceeded" } })).toBe(true);
    expect(snapshot.context.run?.ledger?.usage.toolCalls).toBe(2);
    const ended = next(actor, "agent_end");
    actor.send({ type: "ABORT" });
    const end = await ended;
    expect(end.stopReason).toBe("aborted");
    expect(runs.sort()).toEqual(["ping:1", "ping:2"]);
    expectEveryCallAnswered(end.messages);
  });

  it('"stop" ends the run with stopReason "budget", the refused calls answered', async () => {
    const runs: string[] = [];
    const { actor } = agentWith(
      [calls("ping", 1, 2, 3), { text: "never" }],
      { maxToolCalls: 1, onExceeded: "stop" },
      runs,
    );
    const ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    const end = await ended;
    expect(end.stopReason).toBe("budget");
    expect(runs).toEqual(["ping:1"]);
    expectEveryCallAnswered(end.messages);
    const refused = end.messages.filter(
      (m): m is ToolResultMessage =>
        (m as ToolResultMessage).role === "toolResult" && (m as ToolResultMessage).isError,
    );
    expect(refused.map((m) => m.toolCallId)).toEqual(["ping-2", "ping-3"]);
    expect(end.budgetUsage).toMatchObject({ toolCalls: 1, modelCalls: 1 });
    expect(actor.getSnapshot().value).toBe("idle");
  });

  it('"stop" before a model call ends the run there, the turn closed', async () => {
    const { actor, events } = agentWith([calls("ping", 1), { text: "never" }], {
      maxModelCalls: 1,
      onExceeded: { maxModelCalls: "stop" },
    });
    const ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    const end = await ended;
    expect(end.stopReason).toBe("budget");
    expect(events.filter((e) => e.type === "turn_start").length).toBe(
      events.filter((e) => e.type === "turn_end").length,
    );
    expect(events.find((e) => e.type === "budget_exceeded")).toMatchObject({
      action: "stop",
      budget: "maxModelCalls",
    });
  });

  it('"warn" emits budget_exceeded once per limit and the run goes on', async () => {
    const runs: string[] = [];
    const { actor, events } = agentWith(
      [calls("ping", 1, 2, 3), calls("ping", 4), { text: "done" }],
      { maxToolCalls: 1, onExceeded: "warn" },
      runs,
    );
    const ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    const end = await ended;
    expect(end.stopReason).toBe("stop");
    expect(runs.sort()).toEqual(["ping:1", "ping:2", "ping:3", "ping:4"]);
    expect(events.filter((e) => e.type === "budget_exceeded")).toEqual([
      expect.objectContaining({ budget: "maxToolCalls", action: "warn", used: 1 }),
    ]);
    expect(end.budgetUsage?.toolCalls).toBe(4);
  });

  it("CONTINUE_ONCE lets the held call through and pauses again at the next", async () => {
    const runs: string[] = [];
    const { actor } = agentWith([calls("ping", 1, 2, 3), { text: "done" }], { maxToolCallsPerTool: 1 }, runs);
    let exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    await exceeded;
    exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "CONTINUE_ONCE" });
    expect(await exceeded).toMatchObject({ budget: "maxToolCallsPerTool", used: 2, toolName: "ping" });
    const ended = next(actor, "agent_end");
    actor.send({ type: "RAISE_BUDGET", limits: { maxToolCallsPerTool: 3 } });
    await ended;
    expect(runs.sort()).toEqual(["ping:1", "ping:2", "ping:3"]);
  });

  it("ABORT while paused before a model call ends the run with a valid transcript", async () => {
    const { actor } = agentWith([calls("ping", 1), { text: "never" }], { maxModelCalls: 1 });
    const exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    await exceeded;
    expect(actor.getSnapshot().matches({ running: { preparingTurn: "budgetExceeded" } })).toBe(true);
    const ended = next(actor, "agent_end");
    actor.send({ type: "ABORT" });
    const end = await ended;
    expect(end.stopReason).toBe("aborted");
    expectEveryCallAnswered(end.messages);
    expect(end.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });
});

describe("whose budget", () => {
  it("a PROMPT's budget replaces the agent's for that run only", async () => {
    const { actor } = agentWith([calls("ping", 1), { text: "first" }, calls("ping", 2), { text: "second" }], {
      maxModelCalls: 1,
      onExceeded: "stop",
    });
    let ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("go")], budget: { maxModelCalls: 2 } });
    expect(await ended).toMatchObject({ stopReason: "stop", budgetUsage: { modelCalls: 2 } });
    ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("again")] });
    expect(await ended).toMatchObject({ stopReason: "budget", budgetUsage: { modelCalls: 1 } });
  });

  it('"warn" before a model call: budget_exceeded once, every call made', async () => {
    const { actor, events } = agentWith([calls("ping", 1), calls("ping", 2), { text: "done" }], {
      maxModelCalls: 1,
      onExceeded: { maxModelCalls: "warn" },
    });
    const ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    expect(await ended).toMatchObject({ stopReason: "stop", budgetUsage: { modelCalls: 3 } });
    expect(events.filter((e) => e.type === "budget_exceeded")).toEqual([
      expect.objectContaining({ budget: "maxModelCalls", action: "warn", before: "modelCall", used: 1 }),
    ]);
  });
});

describe("a paused run persisted", () => {
  it("restores with plain XState in the paused state and finishes after RAISE_BUDGET", async () => {
    const replies = [calls("ping", 1, 2), { text: "done" }];
    const runs: string[] = [];
    const first = agentWith(replies, { maxToolCalls: 1 }, runs);
    const exceeded = next(first.actor, "budget_exceeded");
    first.actor.send({ type: "PROMPT", messages: [user("go")] });
    await exceeded;
    // The admitted call finishes before the snapshot is taken.
    await new Promise<void>((resolve) => {
      const check = () => {
        if (first.actor.getSnapshot().context.run?.batch?.phases["ping-1"] === "settled") resolve();
      };
      first.actor.subscribe(check);
      check();
    });
    const saved = JSON.stringify(first.actor.getPersistedSnapshot());
    first.actor.stop();

    const again: string[] = [];
    const machine = createAgentMachine({
      streamFn: scriptedModel(replies.slice(1)),
      tools: [countingTool("ping", again), countingTool("pong", again)],
    });
    const restored = createActor(machine, { snapshot: JSON.parse(saved) });
    restored.start();
    const snapshot = restored.getSnapshot();
    expect(snapshot.matches({ running: { executingTools: "budgetExceeded" } })).toBe(true);
    expect(snapshot.hasTag("awaitingHuman")).toBe(true);
    expect(snapshot.context.run?.ledger?.paused).toMatchObject({ budget: "maxToolCalls", limit: 1, used: 1 });
    const ended = next(restored, "agent_end");
    restored.send({ type: "RAISE_BUDGET", limits: { maxToolCalls: 5 } });
    const end = await ended;
    expect(again).toEqual(["ping:2"]);
    expect(end.budgetUsage?.toolCalls).toBe(2);
    expectEveryCallAnswered(end.messages);
  });
});

describe("bad budgets", () => {
  it("refuses a negative or non-numeric limit, naming it", () => {
    expect(() => createAgentMachine({ streamFn: scriptedModel([]), budget: { maxToolCalls: -1 } })).toThrow(
      /maxToolCalls must be a finite number/,
    );
    expect(() =>
      createAgentMachine({ streamFn: scriptedModel([]), budget: { maxTokens: "10" as unknown as number } }),
    ).toThrow(BudgetError);
    expect(() =>
      createAgentMachine({
        streamFn: scriptedModel([]),
        budget: { maxTurns: 2, onExceeded: "ask" as never },
      }),
    ).toThrow(/onExceeded must be "pause", "stop" or "warn"/);
  });

  it("refuses a cost budget for a model without prices when the actor is created", () => {
    const machine = createAgentMachine({ streamFn: scriptedModel([]) });
    // XState keeps what the machine's creation threw as the actor's error: the actor never runs.
    const actor = createActor(machine, { input: { model: testModel, budget: { maxCostUsd: 1 } } });
    const snapshot = actor.getSnapshot();
    expect(snapshot.status).toBe("error");
    expect(snapshot.error).toBeInstanceOf(BudgetError);
    expect((snapshot.error as BudgetError).code).toBe("no_model_price");
    expect(String(snapshot.error)).toMatch(
      /maxCostUsd needs the model's prices, and the model "scripted-1" has none/,
    );
  });
});

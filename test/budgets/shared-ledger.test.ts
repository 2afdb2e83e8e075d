/**
 * One ledger shared down a tree: a sub-agent whose ancestors keep a budget reserves each model call and
 * tool call with them before it starts (RESERVE up, RESERVATION down), so parallel sub-agents never go
 * past an ancestor's cap between two of its own checks. Driven on the plain agent machine, with
 * sub-agents whose scripts are functions of their transcript (so a restored tree answers the same).
 */
import { describe, expect, it } from "vitest";
import { type AnyActorRef, createActor } from "xstate";
import { z } from "zod";
import { createAgentMachine } from "../../src/machines.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentBudget } from "../../src/types/budget.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, ToolResultMessage } from "../../src/types/messages.js";
import type { LlmContext, StreamFn } from "../../src/types/stream.js";
import { testModel, user } from "../support/loop-harness.js";

type Emitted<TType extends AgentEvent["type"]> = Extract<AgentEvent, { type: TType }>;

/** Resolves with the root's own next event of `type` (a sub-agent's come with `agentPath`). */
function next<TType extends AgentEvent["type"]>(actor: AnyActorRef, type: TType) {
  return new Promise<Emitted<TType>>((resolve) => {
    const listener = actor.on(type, (event: Emitted<TType>) => {
      if (event.agentPath) return;
      listener.unsubscribe();
      resolve(event);
    });
  });
}

const resultsIn = (messages: readonly AgentMessage[]) =>
  messages.filter((m): m is ToolResultMessage => (m as { role?: string }).role === "toolResult");

/** A StreamFn whose reply is a function of the transcript, recording each call under `who`. */
function scripted(who: string, made: string[], reply: (context: LlmContext) => ScriptedReply): StreamFn {
  return (model, context, options) => {
    made.push(who);
    return scriptedModel([reply(context)])(model, context, options);
  };
}

interface Tree {
  /** Who made each model call, in order (`root`, or the child's task). */
  made: string[];
  /** Each run of the children's `ping` tool. */
  pings: string[];
  build(): ReturnType<typeof createAgentMachine>;
}

/**
 * A root that calls the agent tool `helper` once per task, in parallel (ids `h1`, `h2`, …); each child
 * calls `ping` `pings` times, one call per reply, then answers.
 */
function tree(tasks: string[], pings = 2): Tree {
  const made: string[] = [];
  const ranPings: string[] = [];
  const ping = defineTool({
    name: "ping",
    description: "pings",
    parameters: z.object({ n: z.number() }),
    execute: async ({ n }, ctx) => {
      ranPings.push(`${ctx.idempotencyKey}:${n}`);
      return { content: [{ type: "text", text: `pong ${n}` }] };
    },
  });
  const helper = defineAgentTool({
    name: "helper",
    description: "helps",
    agent: ({ task }) => ({
      systemPrompt: "You help.",
      tools: [ping],
      streamFn: scripted(task.slice(0, 8), made, (context) => {
        const done = resultsIn(context.messages).length;
        if (done >= pings) return { text: `${task.slice(0, 8)} done`, usage: { input: 5, output: 5 } };
        return {
          toolCalls: [{ id: `p${done}`, name: "ping", arguments: { n: done } }],
          usage: { input: 5, output: 5 },
        };
      }),
    }),
  });
  const root = scripted("root", made, (context) =>
    resultsIn(context.messages).length === 0
      ? {
          toolCalls: tasks.map((task, i) => ({ id: `h${i + 1}`, name: "helper", arguments: { task } })),
          usage: { input: 5, output: 5 },
        }
      : { text: "all done", usage: { input: 5, output: 5 } },
  );
  return { made, pings: ranPings, build: () => createAgentMachine({ streamFn: root, tools: [helper] }) };
}

function start(machine: ReturnType<typeof createAgentMachine>, budget: AgentBudget) {
  const actor = createActor(machine, { input: { model: testModel, agentId: "root", budget } });
  const events: AgentEvent[] = [];
  actor.on("*", (event: AgentEvent) => events.push(event));
  actor.start();
  return { actor, events };
}

/** Resolves once the actor's snapshot satisfies `ready`. */
function until(actor: AnyActorRef, ready: () => boolean) {
  return new Promise<void>((resolve) => {
    const check = () => {
      if (!ready()) return;
      subscription.unsubscribe();
      resolve();
    };
    const subscription = actor.subscribe(check);
    check();
  });
}

describe("a sub-agent's calls reserved with its ancestors' ledgers", () => {
  it("no sub-agent's model call starts past the root's maxModelCalls, at any parallelism; a raise lets them on", async () => {
    const t = tree(["alpha", "beta", "gamma"]);
    const { actor, events } = start(t.build(), { maxModelCalls: 5 });
    const exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    const pause = await exceeded;
    // The root's call and four of the children's: the fifth child call would be one too many.
    expect(t.made).toHaveLength(5);
    expect(pause).toMatchObject({ budget: "maxModelCalls", limit: 5, used: 5, action: "pause" });
    expect(pause.before).toBe("modelCall");
    expect(pause.agentPath).toBeUndefined();
    expect(pause.subAgentPath).toHaveLength(1);
    const snapshot = actor.getSnapshot();
    expect(snapshot.hasTag("awaitingHuman")).toBe(true);
    expect(snapshot.matches({ running: { executingTools: "budgetExceeded" } })).toBe(true);
    // Every child's next model call waits there (the others' came while this test awaited the event).
    expect(snapshot.context.run?.ledger?.held?.length).toBeGreaterThanOrEqual(1);

    const ended = next(actor, "agent_end");
    actor.send({ type: "RAISE_BUDGET", limits: { maxModelCalls: 50 } });
    const end = await ended;
    // Each child: three model calls (two pings and the answer); the root: two.
    expect(t.made).toHaveLength(11);
    expect(end.budgetUsage).toMatchObject({ modelCalls: 11, toolCalls: 9, tokens: 110 });
    expect(t.pings).toHaveLength(6);
    expect(resultsIn(end.messages).map((r) => r.isError)).toEqual([false, false, false]);
    expect(events.filter((e) => e.type === "budget_exceeded")).toHaveLength(1);
  });

  it("no sub-agent's tool call starts past the root's maxToolCalls; a stop limit ends every run cleanly", async () => {
    // The root's own three helper calls count too: two pings fit.
    const t = tree(["alpha", "beta", "gamma"], 1);
    const { actor, events } = start(t.build(), { maxToolCalls: 5, onExceeded: "stop" });
    const ended = next(actor, "agent_end");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    const end = await ended;
    expect(t.pings).toHaveLength(2);
    expect(end.stopReason).toBe("budget");
    expect(end.budgetUsage?.toolCalls).toBe(5);
    // Every child stopped at the root's limit at its next reservation: the one whose ping was refused,
    // and the two whose answer (a model call) was.
    const childResults = resultsIn(end.messages);
    expect(childResults.map((r) => (r.details as { stopReason?: string }).stopReason)).toEqual([
      "budget",
      "budget",
      "budget",
    ]);
    const refusedPings = events.filter(
      (e) => e.type === "tool_execution_end" && e.agentPath !== undefined && e.isError,
    );
    expect(refusedPings).toHaveLength(1);
    expect(JSON.stringify(refusedPings[0])).toContain("Run stopped: the budget maxToolCalls");
    expect(events.filter((e) => e.type === "budget_exceeded")).toHaveLength(1);
    expect(actor.getSnapshot().matches("idle")).toBe(true);
    // The root's model is told how each child ended: an error result naming the root's limit.
    for (const result of childResults) {
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("ended with budget: Run stopped: the budget");
    }
  });

  it("a model call reserves its request's estimate above: parallel children past maxTokens wait before they stream", async () => {
    // Each child's prompt is ~1,000 tokens by its characters: two such requests in flight pass 1,500.
    const long = (name: string) => `${name} ${"x".repeat(4000)}`;
    const t = tree([long("alpha"), long("beta")], 0);
    const { actor } = start(t.build(), { maxTokens: 1500 });
    const exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    const pause = await exceeded;
    expect(pause).toMatchObject({ budget: "maxTokens", limit: 1500, before: "modelCall" });
    expect(pause.estimate).toBeGreaterThan(1000);
    // The root's call and one child's: the other child's request never reached its model.
    expect(t.made).toEqual(["root", "alpha xx"]);
    const ended = next(actor, "agent_end");
    actor.send({ type: "CONTINUE_ONCE" });
    const end = await ended;
    expect(t.made.toSorted()).toEqual(["alpha xx", "beta xxx", "root", "root"]);
    // What the replies reported, not the estimates: each reply 10 tokens.
    expect(end.budgetUsage?.tokens).toBe(40);
    expect(actor.getSnapshot().context.run).toBeUndefined();
  });

  it("a tree persisted while the root holds a child's reservation restores with plain XState and finishes", async () => {
    const t = tree(["alpha", "beta"]);
    const first = start(t.build(), { maxModelCalls: 3 });
    const exceeded = next(first.actor, "budget_exceeded");
    first.actor.send({ type: "PROMPT", messages: [user("go")] });
    await exceeded;
    // Whatever the admitted calls still do finishes before the snapshot.
    await until(first.actor, () => t.made.length === 3 && t.pings.length === 2);
    const saved = JSON.stringify(first.actor.getPersistedSnapshot());
    first.actor.stop();

    const again = tree(["alpha", "beta"]);
    const restored = createActor(again.build(), { snapshot: JSON.parse(saved) });
    const events: AgentEvent[] = [];
    restored.on("*", (event: AgentEvent) => events.push(event));
    restored.start();
    expect(restored.getSnapshot().hasTag("awaitingHuman")).toBe(true);
    expect(restored.getSnapshot().context.run?.ledger?.held).toHaveLength(2);
    // Nothing moves while the root waits.
    expect(again.made).toEqual([]);
    const ended = next(restored, "agent_end");
    restored.send({ type: "RAISE_BUDGET", limits: { maxModelCalls: 20 } });
    const end = await ended;
    // The two children's remaining calls (four) and the root's answer.
    expect(again.made).toHaveLength(5);
    expect(end.budgetUsage?.modelCalls).toBe(8);
    expect(resultsIn(end.messages).every((r) => !r.isError)).toBe(true);
  });

  it("an abort while the root holds children's calls ends every run: each call answered once, nothing held", async () => {
    const t = tree(["alpha", "beta"]);
    const { actor, events } = start(t.build(), { maxModelCalls: 3 });
    const exceeded = next(actor, "budget_exceeded");
    actor.send({ type: "PROMPT", messages: [user("go")] });
    await exceeded;
    await until(actor, () => actor.getSnapshot().context.run?.ledger?.held?.length === 2);
    const ended = next(actor, "agent_end");
    actor.send({ type: "ABORT" });
    const end = await ended;
    expect(end.stopReason).toBe("aborted");
    expect(t.made).toHaveLength(3);
    expect(resultsIn(end.messages).map((r) => r.toolCallId)).toEqual(["h1", "h2"]);
    // Each child's run ended too (aborted while it waited in reserving).
    const childEnds = events.filter((e) => e.type === "agent_end" && e.agentPath);
    expect(childEnds.map((e) => (e as Emitted<"agent_end">).stopReason)).toEqual(["aborted", "aborted"]);
    expect(actor.getSnapshot().matches("idle")).toBe(true);
    expect(Object.keys(actor.getSnapshot().children)).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { type AnyActorRef, createActor, type InspectionEvent, SimulatedClock } from "xstate";
import { z } from "zod";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import { CommandError } from "../../src/commands/command-error.js";
import { createAgentMachine } from "../../src/machines/agent/agent.provided.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, ToolResultMessage } from "../../src/types/messages.js";
import { echoTool, testModel, user } from "../support/loop-harness.js";

// The budget's states crossed along every transition, through the `Agent` class: a pause before a
// model call (raised, continued once, restored), a stop there, a pause before a tool call (raised,
// continued once, persisted and restored), and a sub-agent's usage counted in its parent's totals.
// Every run ends with each call answered once.

type Inspect = (event: InspectionEvent) => void;

const echo = (...ids: string[]): ScriptedTurn => ({
  toolCalls: ids.map((id) => ({ id, name: "echo", arguments: { text: id } })),
});

function agentOf(inspect: Inspect, script: ScriptedTurn[], options: Partial<AgentOptions> = {}) {
  const events: AgentEvent[] = [];
  const agent = new Agent({
    model: testModel,
    streamFn: scriptedModel(script),
    tools: [echoTool()],
    inspect,
    ...options,
  });
  agent.subscribe((event) => {
    events.push(event);
  });
  return { agent, events };
}

/** Resolves when the agent emits an event of `type` of its own (not a sub-agent's). */
function nextEvent(agent: Agent, type: AgentEvent["type"]) {
  return new Promise<AgentEvent>((resolve) => {
    const stop = agent.subscribe((event) => {
      if (event.type !== type || event.agentPath) return;
      stop();
      resolve(event);
    });
  });
}

const roleOf = (m: AgentMessage) => (m as { role: string }).role;

/** Resolves with the next event of `type` a plain actor emits. */
function nextOf(actor: AnyActorRef, type: AgentEvent["type"]) {
  return new Promise<AgentEvent>((resolve) => {
    const listener = actor.on(type, (event: AgentEvent) => {
      listener.unsubscribe();
      resolve(event);
    });
  });
}

/** Idle, each call answered once. */
function expectFinished(agent: Agent) {
  expect(agent.actor.getSnapshot().value).toBe("idle");
  const calls = agent.state.messages.flatMap((m) =>
    roleOf(m) === "assistant"
      ? (m as { content: { type: string; id?: string }[] }).content
          .filter((b) => b.type === "toolCall")
          .map((b) => b.id)
      : [],
  );
  const answered = agent.state.messages
    .filter((m): m is ToolResultMessage => roleOf(m) === "toolResult")
    .map((m) => m.toolCallId);
  expect(answered.sort()).toEqual(calls.sort());
}

export function describeBudgetPaths(inspect: Inspect) {
  describe("agentMachine: budgets", () => {
    it("injecting —[modelCallPausesForBudget]→ budgetExceeded —RAISE_BUDGET→ injecting → streaming", async () => {
      const { agent } = agentOf(inspect, [echo("e1"), { text: "done" }], { budget: { maxModelCalls: 1 } });
      const paused = nextEvent(agent, "budget_exceeded");
      const done = agent.prompt("go");
      expect(await paused).toMatchObject({ budget: "maxModelCalls", limit: 1, used: 1, before: "modelCall" });
      expect(agent.state.budget).toMatchObject({
        paused: { budget: "maxModelCalls" },
        usage: { modelCalls: 1 },
      });
      expect(agent.actor.getSnapshot().hasTag("awaitingHuman")).toBe(true);
      agent.raiseBudget({ maxModelCalls: 2 });
      const result = await done;
      expect(result.stopReason).toBe("stop");
      expect(agent.state.budget).toBeUndefined();
      expectFinished(agent);
    });

    it("budgetExceeded —CONTINUE_ONCE→ injecting: one more model call, then it waits again", async () => {
      const { agent, events } = agentOf(inspect, [echo("e1"), echo("e2"), { text: "done" }], {
        budget: { maxTurns: 1 },
      });
      let paused = nextEvent(agent, "budget_exceeded");
      const done = agent.prompt("go");
      await paused;
      paused = nextEvent(agent, "budget_exceeded");
      agent.continuePastBudget();
      expect(await paused).toMatchObject({ budget: "maxTurns", used: 2 });
      agent.abort();
      expect((await done).stopReason).toBe("aborted");
      expect(events.filter((e) => e.type === "budget_exceeded")).toHaveLength(2);
      expectFinished(agent);
    });

    it('injecting —[modelCallStopsForBudget]→ idle: stopReason "budget"', async () => {
      const { agent } = agentOf(inspect, [echo("e1"), { text: "never" }], {
        budget: { maxModelCalls: 1, onExceeded: "stop" },
      });
      const result = await agent.prompt("go");
      expect(result.stopReason).toBe("budget");
      expectFinished(agent);
    });

    it("preparingTurn —RESUME [budgetPaused]→ stays: Agent.restore of a run paused before a model call waits", async () => {
      const script = [echo("e1"), { text: "done" }];
      const { agent } = agentOf(inspect, script, { budget: { maxModelCalls: 1 } });
      const paused = nextEvent(agent, "budget_exceeded");
      void agent.prompt("go");
      await paused;
      const saved = JSON.stringify(agent.persist());
      agent.abort();

      const restored = Agent.restore(saved, {
        streamFn: scriptedModel(script.slice(1)),
        tools: [echoTool()],
        inspect,
      });
      const resumed = nextEvent(restored, "agent_resume");
      await resumed;
      expect(restored.actor.getSnapshot().matches({ running: { preparingTurn: "budgetExceeded" } })).toBe(
        true,
      );
      const ended = nextEvent(restored, "agent_end");
      restored.raiseBudget({ maxModelCalls: 5 });
      expect(await ended).toMatchObject({ stopReason: "stop" });
      expectFinished(restored);
    });

    it("working —[budgetPaused]→ budgetExceeded —CONTINUE_ONCE, RAISE_BUDGET→ —[budgetNotPaused]→ working", async () => {
      const { agent } = agentOf(inspect, [echo("e1", "e2", "e3"), { text: "done" }], {
        budget: { maxToolCalls: 1 },
      });
      let paused = nextEvent(agent, "budget_exceeded");
      const done = agent.prompt("go");
      expect(await paused).toMatchObject({ budget: "maxToolCalls", before: "toolCall", toolName: "echo" });
      expect(agent.actor.getSnapshot().matches({ running: { executingTools: "budgetExceeded" } })).toBe(true);
      paused = nextEvent(agent, "budget_exceeded");
      agent.continuePastBudget();
      expect(await paused).toMatchObject({ used: 2 });
      agent.raiseBudget({ maxToolCalls: 3 });
      expect((await done).stopReason).toBe("stop");
      expectFinished(agent);
    });

    it("executingTools.budgetExceeded persisted: Agent.restore waits there, raiseBudget finishes the run", async () => {
      const script = [echo("e1", "e2"), { text: "done" }];
      const { agent } = agentOf(inspect, script, {
        toolExecution: "sequential",
        budget: { maxToolCalls: 1 },
      });
      const paused = nextEvent(agent, "budget_exceeded");
      void agent.prompt("go");
      await paused;
      const saved = JSON.stringify(agent.persist());
      agent.abort();

      const restored = Agent.restore(saved, {
        streamFn: scriptedModel(script.slice(1)),
        tools: [echoTool()],
        inspect,
      });
      await nextEvent(restored, "agent_resume");
      expect(restored.state.budget?.paused).toMatchObject({ budget: "maxToolCalls" });
      const ended = nextEvent(restored, "agent_end");
      restored.raiseBudget({ maxToolCalls: 2 });
      expect(await ended).toMatchObject({ stopReason: "stop", budgetUsage: { toolCalls: 2 } });
      expectFinished(restored);
    });

    it("counts a sub-agent's model calls, tokens and tool calls in its parent's totals", async () => {
      const helper = defineAgentTool({
        name: "helper",
        description: "Helps",
        agent: () => ({
          streamFn: scriptedModel([
            { ...echo("c1"), usage: { input: 10, output: 5 } },
            { text: "child done", usage: { input: 20, output: 5 } },
          ]),
          tools: [echoTool()],
        }),
      });
      const { agent } = agentOf(
        inspect,
        [
          {
            toolCalls: [{ id: "h1", name: "helper", arguments: { task: "x" } }],
            usage: { input: 100, output: 1 },
          },
          { text: "root done", usage: { input: 200, output: 1 } },
        ],
        { tools: [helper], budget: { maxTokens: 10_000 } },
      );
      const ended = nextEvent(agent, "agent_end");
      await agent.prompt("go");
      // Root: 2 model calls (302 tokens), 1 tool call; child: 2 model calls (40 tokens), 1 tool call.
      expect(await ended).toMatchObject({
        budgetUsage: { modelCalls: 4, tokens: 342, toolCalls: 2, toolCallsByTool: { helper: 1 } },
      });
      expectFinished(agent);
    });

    it("a sub-agent with its own budget pauses; raiseBudget at its agentPath lets it finish", async () => {
      const helper = defineAgentTool({
        name: "helper",
        description: "Helps",
        agent: () => ({
          streamFn: scriptedModel([echo("c1"), { text: "child done" }]),
          tools: [echoTool()],
          budget: { maxModelCalls: 1 },
        }),
      });
      const { agent } = agentOf(
        inspect,
        [{ toolCalls: [{ id: "h1", name: "helper", arguments: { task: "x" } }] }, { text: "root done" }],
        { tools: [helper] },
      );
      const paused = new Promise<AgentEvent>((resolve) =>
        agent.subscribe((event) => {
          if (event.type === "budget_exceeded") resolve(event);
        }),
      );
      const done = agent.prompt("go");
      expect(await paused).toMatchObject({ agentPath: ["h1"], budget: "maxModelCalls" });
      // The parent waits with its sub-agent: executingTools.awaitingHuman.
      expect(agent.actor.getSnapshot().matches({ running: { executingTools: "awaitingHuman" } })).toBe(true);
      expect(agent.actor.getSnapshot().hasTag("awaitingHuman")).toBe(true);
      // Who waits at a limit, at every depth, is in the state (the root's own budget is not paused).
      expect(agent.state.budget).toBeUndefined();
      expect(agent.state.awaitingBudget).toMatchObject([
        { agentPath: ["h1"], budget: "maxModelCalls", limit: 1, used: 1, before: "modelCall" },
      ]);
      expect(() => agent.raiseBudget({ maxModelCalls: 2 })).toThrow(/not waiting/);
      agent.raiseBudget({ maxModelCalls: 2 }, { agentPath: ["h1"] });
      expect((await done).stopReason).toBe("stop");
      expect(agent.state.awaitingBudget).toEqual([]);
      expect(agent.actor.getSnapshot().hasTag("awaitingHuman")).toBe(false);
      const results = agent.state.messages.filter((m): m is ToolResultMessage => roleOf(m) === "toolResult");
      expect(results[0]?.content).toEqual([{ type: "text", text: "child done" }]);
      expectFinished(agent);
    });

    it("a grandchild's model call reserved two levels up (RESERVATION passed down by its parent); a stop limit refuses the child's next: reserving —RESERVATION [ownReservation]→ idle", async () => {
      const made: string[] = [];
      const counted = (who: string, script: ScriptedTurn[]) => {
        const stream = scriptedModel(script);
        return ((...args: Parameters<typeof stream>) => {
          made.push(who);
          return stream(...args);
        }) as typeof stream;
      };
      const worker = defineAgentTool({
        name: "worker",
        description: "Works",
        agent: () => ({ streamFn: counted("grandchild", [{ text: "worked" }]) }),
      });
      const helper = defineAgentTool({
        name: "helper",
        description: "Helps",
        agent: () => ({
          streamFn: counted("child", [
            { toolCalls: [{ id: "w1", name: "worker", arguments: { task: "y" } }] },
            { text: "child done" },
          ]),
          tools: [worker],
        }),
      });
      const { agent, events } = agentOf(
        inspect,
        [{ toolCalls: [{ id: "h1", name: "helper", arguments: { task: "x" } }] }, { text: "root done" }],
        { tools: [helper], budget: { maxModelCalls: 3, onExceeded: "stop" } },
      );
      const ended = nextEvent(agent, "agent_end");
      const result = await agent.prompt("go");
      // The root's call, the child's and the grandchild's: three; the child's answer would be a fourth.
      expect(made).toEqual(["child", "grandchild"]);
      expect(result.stopReason).toBe("budget");
      expect(await ended).toMatchObject({ budgetUsage: { modelCalls: 3, toolCalls: 2 } });
      const limit = events.filter((e) => e.type === "budget_exceeded");
      expect(limit).toEqual([
        expect.objectContaining({ budget: "maxModelCalls", action: "stop", subAgentPath: ["h1"] }),
      ]);
      const childEnd = events.find((e) => e.type === "agent_end" && e.agentPath?.join() === "h1");
      expect(childEnd).toMatchObject({ stopReason: "budget" });
      expectFinished(agent);
    });

    it("reserving —RESUME→ stays: Agent.restore of a tree whose root holds a child's model call; a raise sent right after the restore lets the child call its model once", async () => {
      const childCalls: number[] = [];
      const helperOf = (script: ScriptedTurn[]) => {
        const stream = scriptedModel(script);
        return defineAgentTool({
          name: "helper",
          description: "Helps",
          agent: () => ({
            streamFn: ((...args: Parameters<typeof stream>) => {
              childCalls.push(childCalls.length);
              return stream(...args);
            }) as typeof stream,
            tools: [echoTool()],
          }),
        });
      };
      const childScript: ScriptedTurn[] = [echo("c1"), { text: "child done" }];
      const rootScript: ScriptedTurn[] = [
        { toolCalls: [{ id: "h1", name: "helper", arguments: { task: "x" } }] },
        { text: "root done" },
      ];
      const { agent } = agentOf(inspect, rootScript, {
        tools: [helperOf(childScript)],
        budget: { maxModelCalls: 2 },
      });
      const paused = nextEvent(agent, "budget_exceeded");
      void agent.prompt("go");
      await paused;
      // The child's first reply asked for c1; its second model call is the one the root holds.
      await new Promise<void>((resolve) => {
        const check = () => {
          if (!agent.actor.getSnapshot().context.run?.ledger?.held?.length) return;
          subscription.unsubscribe();
          resolve();
        };
        const subscription = agent.actor.subscribe(check);
        check();
      });
      const saved = JSON.stringify(agent.persist());
      agent.abort();
      childCalls.length = 0;

      const restored = Agent.restore(saved, {
        streamFn: scriptedModel(rootScript.slice(1)),
        tools: [helperOf(childScript.slice(1))],
        inspect,
      });
      const ended = nextEvent(restored, "agent_end");
      // Sent before the restore's RESUMEs (a microtask later): they go first, so the child is resumed
      // where it waits (reserving) before the raise lets its call through.
      restored.raiseBudget({ maxModelCalls: 4 });
      expect(await ended).toMatchObject({ stopReason: "stop", budgetUsage: { modelCalls: 4 } });
      expect(childCalls).toEqual([0]);
      const results = restored.state.messages.filter(
        (m): m is ToolResultMessage => roleOf(m) === "toolResult",
      );
      expect(results.map((r) => r.content)).toEqual([[{ type: "text", text: "child done" }]]);
      expectFinished(restored);
    });

    it("streaming —WALL_TIME_UP [replyStreaming]→ the stream aborted, the run stopped (budget)", async () => {
      const clock = new SimulatedClock();
      const machine = createAgentMachine({ streamFn: scriptedModel([{ text: "slow", hang: true }]) });
      const actor = createActor(machine, {
        input: { model: testModel, agentId: "w1", budget: { maxWallMs: 60_000, onExceeded: "stop" } },
        inspect,
        clock,
      });
      actor.start();
      const ended = nextOf(actor, "agent_end");
      actor.send({ type: "PROMPT", messages: [user("go")] });
      expect(actor.getSnapshot().matches({ running: "streaming" })).toBe(true);
      clock.increment(60_000);
      expect(await ended).toMatchObject({ stopReason: "budget" });
      expect(actor.getSnapshot().value).toBe("idle");
    });

    it("executingTools —WALL_TIME_UP [replyRecorded]→ the calls aborted, the run stopped (budget)", async () => {
      const clock = new SimulatedClock();
      const hang = defineTool({
        name: "hang",
        description: "runs until aborted",
        parameters: z.object({}),
        execute: (_args, context) =>
          new Promise<never>((_resolve, reject) =>
            context.signal.addEventListener("abort", () => reject(new Error("aborted"))),
          ),
      });
      const machine = createAgentMachine({
        streamFn: scriptedModel([{ toolCalls: [{ id: "h1", name: "hang", arguments: {} }] }]),
        tools: [hang],
      });
      const actor = createActor(machine, {
        input: { model: testModel, agentId: "w2", budget: { maxWallMs: 60_000, onExceeded: "stop" } },
        inspect,
        clock,
      });
      actor.start();
      const started = nextOf(actor, "tool_execution_start");
      const ended = nextOf(actor, "agent_end");
      actor.send({ type: "PROMPT", messages: [user("go")] });
      await started;
      clock.increment(60_000);
      const end = (await ended) as Extract<AgentEvent, { type: "agent_end" }>;
      expect(end.stopReason).toBe("budget");
      expect(end.messages.filter((m) => roleOf(m) === "toolResult")).toHaveLength(1);
    });

    it("refuses budget commands to a run that does not wait, and bad limits, naming them", async () => {
      const { agent } = agentOf(inspect, [{ text: "hi" }], { budget: { maxModelCalls: 3 } });
      expect(() => agent.raiseBudget({ maxModelCalls: 5 })).toThrow(
        /the agent is not waiting at a budget limit/,
      );
      expect(() => agent.continuePastBudget()).toThrow(CommandError);
      expect(() => agent.raiseBudget({ maxModelCalls: Number.NaN })).toThrow(
        /maxModelCalls must be a finite number/,
      );
      await expect(agent.prompt("go", { budget: { maxCostUsd: 1 } })).rejects.toThrow(/has none/);
      expect(() => agentOf(inspect, [], { budget: { maxTurns: -2 } })).toThrow(/Agent budget: maxTurns/);
      expect(agent.actor.getSnapshot().value).toBe("idle");
    });
  });
}

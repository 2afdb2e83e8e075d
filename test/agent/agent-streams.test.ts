/**
 * `agentEvents$`, `agentState$` and `agentMachineStateOf` over an agent actor of its own (the road of
 * an app that runs the machine without the `Agent` facade): every event in order, the state as data
 * now and after each change, completion when the actor stops, and a listener removed on unsubscribe.
 */

import type { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { type AnyActorRef, createActor, fromPromise, setup } from "xstate";
import { z } from "zod";
import type { AgentMachineState } from "../../src/agent/agent-state.js";
import { agentEvents$, agentMachineStateOf, agentState$ } from "../../src/agent/agent-streams.js";
import { agentImplementations } from "../../src/machines/agent/agent.implementations.js";
import { agentMachineOf } from "../../src/machines/agent/agent.provided.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineClientTool } from "../../src/tools/define-client-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentTool } from "../../src/types/tool.js";
import { deferred, echoTool, testModel, user } from "../support/loop-harness.js";

/** A started agent actor over `tools` answering with `turns`. */
function agentActor(turns: Parameters<typeof scriptedModel>[0], tools: AgentTool[] = [], extra = {}) {
  const implementations = agentImplementations({ streamFn: scriptedModel(turns), tools, ...extra });
  const actor = createActor(agentMachineOf(implementations), {
    input: {
      model: testModel,
      toolNames: tools.map((tool) => tool.name),
      systemPrompt: "be brief",
      thinkingLevel: "low",
    },
  });
  actor.start();
  return actor;
}

const prompt = (text: string) => ({ type: "PROMPT" as const, messages: [user(text)] });

/** Resolves with the first event of `type` the actor emits. */
function nextEvent(actor: ReturnType<typeof agentActor>, type: AgentEvent["type"], path?: string) {
  const seen = deferred<AgentEvent>();
  const listener = actor.on("*", (event: AgentEvent) => {
    if (event.type === type && (event.agentPath ?? []).join("/") === (path ?? "")) {
      listener.unsubscribe();
      seen.resolve(event);
    }
  });
  return seen.promise;
}

/** Counts the listeners and observers `actor` has now (its `on` and `subscribe` wrapped, still real). */
function countingListeners(actor: {
  on: (...args: never[]) => unknown;
  subscribe: (...args: never[]) => unknown;
}) {
  const count = { on: 0, subscribe: 0 };
  for (const method of ["on", "subscribe"] as const) {
    const real = (actor[method] as (...args: unknown[]) => { unsubscribe(): void }).bind(actor);
    (actor as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const subscription = real(...args);
      count[method]++;
      return {
        unsubscribe: () => {
          count[method]--;
          subscription.unsubscribe();
        },
      };
    };
  }
  return count;
}

describe("agentEvents$ and agentState$", () => {
  it.each([
    ["agentEvents$", (actor: AnyActorRef) => agentEvents$(actor) as Observable<unknown>],
    ["agentState$", (actor: AnyActorRef) => agentState$(actor) as Observable<unknown>],
  ])("%s adds one listener and one observer per subscription and removes them on unsubscribe", (_, of) => {
    const actor = agentActor([]);
    const count = countingListeners(actor as never);
    const first = of(actor).subscribe();
    const second = of(actor).subscribe();
    expect(count).toEqual({ on: 2, subscribe: 2 });
    first.unsubscribe();
    expect(count).toEqual({ on: 1, subscribe: 1 });
    second.unsubscribe();
    expect(count).toEqual({ on: 0, subscribe: 0 });
    actor.stop();
  });
});

describe("agentEvents$", () => {
  it("emits every event of a run in order and completes when the actor stops", async () => {
    const actor = agentActor([{ text: "Hi" }]);
    const events: string[] = [];
    let completed = false;
    agentEvents$(actor).subscribe({
      next: (event) => events.push(event.type),
      complete: () => (completed = true),
    });
    const ended = nextEvent(actor, "agent_end");
    actor.send(prompt("hello"));
    await ended;
    expect(events[0]).toBe("agent_start");
    expect(events.at(-1)).toBe("agent_end");
    expect(events).toContain("message_update");
    expect(completed).toBe(false);
    actor.stop();
    expect(completed).toBe(true);
  });

  it("stops listening on unsubscribe", async () => {
    const actor = agentActor([{ text: "Hi" }]);
    const events: AgentEvent[] = [];
    let completed = false;
    const subscription = agentEvents$(actor).subscribe({
      next: (event) => events.push(event),
      complete: () => (completed = true),
    });
    subscription.unsubscribe();
    const ended = nextEvent(actor, "agent_end");
    actor.send(prompt("hello"));
    await ended;
    actor.stop();
    expect(events).toEqual([]);
    expect(completed).toBe(false);
  });

  it("completes, not errors, when the actor fails", async () => {
    const failing = createActor(fromPromise(() => Promise.reject(new Error("broken"))));
    const outcome = deferred<string>();
    agentEvents$(failing).subscribe({
      error: () => outcome.resolve("error"),
      complete: () => outcome.resolve("complete"),
    });
    failing.start();
    expect(await outcome.promise).toBe("complete");
  });
});

describe("agentState$", () => {
  it("emits the state at once, then on each change of the snapshot or of the live progress", async () => {
    const actor = agentActor([{ text: "Hi" }]);
    const states: AgentMachineState[] = [];
    agentState$(actor).subscribe((state) => states.push(state));
    expect(states).toHaveLength(1);
    expect(states[0]).toMatchObject({ systemPrompt: "be brief", isStreaming: false, messages: [] });
    const ended = nextEvent(actor, "agent_end");
    actor.send(prompt("hello"));
    await ended;
    expect(states.some((state) => state.isStreaming)).toBe(true);
    expect(states.some((state) => state.streamingMessage?.role === "assistant")).toBe(true);
    expect(states.at(-1)).toMatchObject({ isStreaming: false, streamingMessage: undefined });
    expect(states.at(-1)!.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("announces a tool call starting and ending though the snapshot did not change", async () => {
    const gate = deferred();
    const actor = agentActor(
      [{ toolCalls: [{ id: "c1", name: "echo", arguments: { text: "a" } }] }, { text: "done" }],
      [echoTool("echo", () => gate.promise)],
    );
    const running = nextEvent(actor, "tool_execution_start");
    actor.send(prompt("go"));
    await running;
    const states: AgentMachineState[] = [];
    agentState$(actor).subscribe((state) => states.push(state));
    expect([...states[0]!.pendingToolCalls]).toEqual([]);
    const ended = nextEvent(actor, "agent_end");
    gate.resolve();
    await ended;
    expect(states.map((state) => state.pendingToolCalls.size)).toContain(0);
    expect(states.at(-1)!.messages.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("ignores a sub-agent's events for the root's live progress", async () => {
    const helper = defineAgentTool({
      name: "helper",
      description: "Helps",
      agent: { systemPrompt: "You help.", streamFn: scriptedModel([{ text: "helping", hang: true }]) },
    });
    const actor = agentActor(
      [{ toolCalls: [{ id: "h1", name: "helper", arguments: { task: "t" } }] }],
      [helper],
    );
    const states: AgentMachineState[] = [];
    agentState$(actor).subscribe((state) => states.push(state));
    const childStarted = nextEvent(actor, "message_start", "h1");
    const childStreaming = nextEvent(actor, "message_update", "h1");
    actor.send(prompt("go"));
    const childReply = ((await childStarted) as { message: unknown }).message;
    await childStreaming;
    expect(states.some((state) => state.streamingMessage !== undefined)).toBe(true); // the root's reply
    expect(states.filter((state) => state.streamingMessage === childReply)).toEqual([]);
    expect(states.at(-1)!.streamingMessage).toBeUndefined();
    actor.stop();
  });

  it("completes when the actor stops, and stops listening on unsubscribe", async () => {
    const actor = agentActor([{ text: "Hi" }]);
    let completed = false;
    const states: AgentMachineState[] = [];
    agentState$(actor).subscribe({ complete: () => (completed = true) });
    const subscription = agentState$(actor).subscribe((state) => states.push(state));
    subscription.unsubscribe();
    const ended = nextEvent(actor, "agent_end");
    actor.send(prompt("hello"));
    await ended;
    expect(states).toHaveLength(1);
    actor.stop();
    expect(completed).toBe(true);
  });

  it("completes, not errors, when the actor fails", async () => {
    // A machine with an agent's context whose invoked actor fails: the machine ends in error.
    const failing = createActor(
      setup({ actors: { broken: fromPromise(() => Promise.reject(new Error("broken"))) } }).createMachine({
        context: { systemPrompt: "", model: testModel, thinkingLevel: "off", toolNames: [], messages: [] },
        invoke: { src: "broken" },
      }),
    );
    const outcome = deferred<string>();
    agentState$(failing).subscribe({
      error: () => outcome.resolve("error"),
      complete: () => outcome.resolve("complete"),
    });
    failing.start();
    expect(await outcome.promise).toBe("complete");
  });
});

describe("agentMachineStateOf", () => {
  it("reads the context, the busy tag and the given progress", () => {
    const actor = agentActor([], [echoTool()]);
    const progress = { streamingMessage: undefined, pendingToolCalls: new Set(["x"]) };
    const state = agentMachineStateOf(actor, progress);
    const context = actor.getSnapshot().context;
    expect(state).toEqual({
      systemPrompt: "be brief",
      model: testModel,
      thinkingLevel: "low",
      toolNames: ["echo"],
      messages: context.messages,
      isStreaming: false,
      streamingMessage: undefined,
      pendingToolCalls: progress.pendingToolCalls,
      errorMessage: undefined,
      awaitingApproval: [],
      awaitingClient: [],
      awaitingBudget: [],
      activeAgent: undefined,
      budget: undefined,
    });
    expect(state.messages).toBe(context.messages);
  });

  it("lists the calls waiting for approval and for the client", async () => {
    const refund = defineTool({
      name: "refund",
      description: "Refunds",
      parameters: z.object({}),
      requiresApproval: true,
      execute: async () => ({ content: [] }),
    });
    const ask = defineClientTool({ name: "ask", description: "Asks", parameters: z.object({}) });
    const actor = agentActor(
      [
        {
          toolCalls: [
            { id: "r1", name: "refund", arguments: {} },
            { id: "a1", name: "ask", arguments: {} },
          ],
        },
      ],
      [refund, ask],
    );
    const asked = nextEvent(actor, "tool_client_request");
    const approval = nextEvent(actor, "tool_approval_request");
    actor.send(prompt("go"));
    await Promise.all([asked, approval]);
    const state = agentMachineStateOf(actor, { streamingMessage: undefined, pendingToolCalls: new Set() });
    expect(state.isStreaming).toBe(true);
    expect(state.awaitingApproval).toEqual([{ toolCallId: "r1", toolName: "refund", args: {} }]);
    expect(state.awaitingClient).toEqual([{ toolCallId: "a1", toolName: "ask", args: {} }]);
    actor.stop();
  });

  it("gives the run's budget (limits, usage, pause) while it waits at a limit", async () => {
    const actor = agentActor(
      [
        { toolCalls: [{ id: "c1", name: "echo", arguments: { text: "a" } }] },
        { toolCalls: [{ id: "c2", name: "echo", arguments: { text: "b" } }] },
      ],
      [echoTool()],
      { budget: { maxModelCalls: 1, onExceeded: "pause" } },
    );
    const paused = nextEvent(actor, "budget_exceeded");
    actor.send(prompt("go"));
    await paused;
    const state = agentMachineStateOf(actor, { streamingMessage: undefined, pendingToolCalls: new Set() });
    const ledger = actor.getSnapshot().context.run!.ledger!;
    expect(state.budget).toEqual({ limits: ledger.budget, usage: ledger.usage, paused: ledger.paused });
    expect(state.budget!.limits).toMatchObject({ maxModelCalls: 1 });
    expect(state.budget!.usage.modelCalls).toBe(1);
    expect(state.budget!.paused).toBeDefined();
    expect(state.awaitingBudget).toEqual([ledger.paused]);
    actor.stop();
  });
});

/**
 * The agent machine as `createAgentMachine` provides it (`agent.provided.ts`): what a new actor's
 * context gets from the implementations, what a restore checks and refreshes, the reply events
 * delivered straight to a root agent's listeners, and what `.provide()` keeps.
 */
import { describe, expect, it } from "vitest";
import {
  type AnyActorLogic,
  type AnyActorRef,
  createActor,
  initialTransition,
  type Snapshot,
  transition,
  waitFor,
} from "xstate";
import { z } from "zod";
import { initialAgentContext } from "../../src/machines/agent/agent.context.js";
import { type AgentMachine, createAgentMachine } from "../../src/machines/agent/agent.provided.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { BudgetError } from "../../src/types/budget.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { Guardrail } from "../../src/types/guardrail.js";
import type { AgentTool } from "../../src/types/tool.js";
import { testModel, user } from "../support/loop-harness.js";

const toolNamed = (name: string): AgentTool =>
  defineTool({
    name,
    description: name,
    parameters: z.object({}),
    execute: async () => ({ content: [{ type: "text", text: `${name} ran` }] }),
  }) as AgentTool;
const guarded = (name: string): AgentTool => ({ ...toolNamed(name), requiresApproval: true });
const pass = (name: string): Guardrail => ({ name, check: () => ({ tripwire: false }) });
const pricedModel = { ...testModel, cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } };

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/** The error an actor restored from `snapshot` reports when it starts (undefined: none). */
function restoreError(machine: AnyActorLogic, snapshot: unknown): Error | undefined {
  let error: Error | undefined;
  const actor = createActor(machine, { snapshot: snapshot as Snapshot<unknown> });
  actor.subscribe({ error: (reported) => (error = reported as Error) });
  actor.start();
  actor.stop();
  return error;
}

/** The child agent of call `s1` of `actor`'s agent. */
function childAgentOf(actor: AnyActorRef): AnyActorRef | undefined {
  const call = actor.getSnapshot().children.s1 as AnyActorRef | undefined;
  return call?.getSnapshot().children.agent as AnyActorRef | undefined;
}

/** The persisted snapshot of a new, idle agent of `machine`. */
function persistedIdle(machine: AgentMachine, toolNames?: string[]) {
  const actor = createActor(machine, { input: { model: testModel, ...(toolNames ? { toolNames } : {}) } });
  actor.start();
  const persisted = actor.getPersistedSnapshot() as unknown as { context: Record<string, unknown> } & Record<
    string,
    unknown
  >;
  actor.stop();
  return structuredClone(persisted);
}

describe("createAgentMachine", () => {
  it("refuses an invalid budget at once, naming where it was given", () => {
    const create = () => createAgentMachine({ streamFn: scriptedModel([]), budget: { maxTurns: -1 } });
    expect(create).toThrow(BudgetError);
    expect(create).toThrow(
      "createAgentMachine budget: maxTurns must be a finite number, zero or more (got -1)",
    );
  });
});

describe("a new actor's context", () => {
  const read = toolNamed("read");
  const write = toolNamed("write");

  it("names every tool of the machine as active unless the input names them", () => {
    const machine = createAgentMachine({ streamFn: scriptedModel([]), tools: [read, write] });
    const all = initialTransition(machine, { model: testModel })[0];
    expect(all.context.toolNames).toEqual(["read", "write"]);
    const some = initialTransition(machine, { model: testModel, toolNames: ["write"] })[0];
    expect(some.context.toolNames).toEqual(["write"]);
  });

  it("holds the machine's guardrail names and whether it has between-turn callbacks", () => {
    const plain = createAgentMachine({
      streamFn: scriptedModel([]),
      guardrails: { input: [pass("pii")], output: [pass("tone")] },
    });
    expect(initialTransition(plain, { model: testModel })[0].context).toMatchObject({
      guardrails: { input: [{ name: "pii", mode: "blocking" }], output: ["tone"] },
      hasTurnCallbacks: false,
    });
    const withCallbacks = createAgentMachine({
      streamFn: scriptedModel([]),
      shouldStopAfterTurn: () => false,
    });
    expect(initialTransition(withCallbacks, { model: testModel })[0].context.hasTurnCallbacks).toBe(true);
  });

  it("takes the machine's budget when the input gives none, and the input's when it gives one", () => {
    const machine = createAgentMachine({ streamFn: scriptedModel([]), budget: { maxTurns: 3 } });
    expect(initialTransition(machine, { model: testModel })[0].context.budget).toEqual({ maxTurns: 3 });
    const own = initialTransition(machine, { model: testModel, budget: { maxTurns: 1 } })[0];
    expect(own.context.budget).toEqual({ maxTurns: 1 });
    const none = createAgentMachine({ streamFn: scriptedModel([]) });
    expect(Object.hasOwn(initialTransition(none, { model: testModel })[0].context, "budget")).toBe(false);
  });

  it("checks the budget against the input's model: a cost limit needs the model's prices", () => {
    const machine = createAgentMachine({ streamFn: scriptedModel([]), budget: { maxCostUsd: 1 } });
    const error = thrownBy(() => initialTransition(machine, { model: testModel }));
    expect(error).toBeInstanceOf(BudgetError);
    expect(error).toMatchObject({ code: "no_model_price" });
    expect((error as Error).message).toMatch(
      /^agent machine input budget: maxCostUsd needs the model's prices/,
    );
    expect(initialTransition(machine, { model: pricedModel })[0].context.budget).toEqual({ maxCostUsd: 1 });
    const input = createAgentMachine({ streamFn: scriptedModel([]) });
    expect(() => initialTransition(input, { model: testModel, budget: { maxCostUsd: 1 } })).toThrow(
      "agent machine input budget: maxCostUsd",
    );
  });

  it("starts from the definition's placeholder when there is no input (XState's inert scope)", () => {
    const machine = createAgentMachine({ streamFn: scriptedModel([]), tools: [read] });
    const [snapshot] = initialTransition(machine);
    expect(snapshot.context.model.id).toBe("none");
    expect(snapshot.context.toolNames).toEqual([]);
  });
});

describe("restoring a persisted agent", () => {
  const read = toolNamed("read");
  const machine = createAgentMachine({ streamFn: scriptedModel([]), tools: [read] });

  it("restores an agent whose tools the machine has", () => {
    const persisted = persistedIdle(machine);
    expect(restoreError(machine, persisted)).toBeUndefined();
  });

  it.each([
    ["a snapshot without a context", undefined],
    ["a context that is not an object", "nothing"],
    ["a null context", null],
    ["a context without toolNames", { formatVersion: 5 }],
    ["toolNames that are not a list", { formatVersion: 5, toolNames: "read" }],
  ])("refuses %s", (_name, context) => {
    const persisted = { ...persistedIdle(machine), context };
    expect(restoreError(machine, persisted)?.message).toBe(
      "agentchart: not a persisted agent machine snapshot (its context has no toolNames)",
    );
  });

  it("refuses another format version, naming it (or its absence)", () => {
    const persisted = persistedIdle(machine);
    persisted.context.formatVersion = 4;
    expect(restoreError(machine, persisted)?.message).toBe(
      "agentchart: the persisted agent has format version 4; this agentchart restores version 5 (Agent.restore migrates the persisted agents of older versions)",
    );
    delete persisted.context.formatVersion;
    expect(restoreError(machine, persisted)?.message).toMatch(
      /^agentchart: the persisted agent has format version "none \(agentchart 0\.3\.0 or older\)"; this agentchart restores version 5/,
    );
  });

  it("refuses an agent naming tools the machine lacks, naming each once", () => {
    const one = persistedIdle(machine, ["read", "gone"]);
    expect(restoreError(machine, one)?.message).toBe(
      'agentchart: the restored agent needs the tool "gone", which this machine was not given',
    );
    const two = persistedIdle(machine, ["gone", "read", "lost", "gone"]);
    expect(restoreError(machine, two)?.message).toBe(
      'agentchart: the restored agent needs the tools "gone", "lost", which this machine was not given',
    );
  });

  it("refuses a pending tool call of a tool the machine lacks, and only a tool call's", () => {
    const call = (src: string, name: string) => ({
      src,
      snapshot: { context: { toolCall: { type: "toolCall", id: "c1", name, arguments: {} } } },
    });
    const withCall = { ...persistedIdle(machine), children: { c1: call("toolCall", "vanished") } };
    expect(restoreError(machine, withCall)?.message).toBe(
      'agentchart: the restored agent needs the tool "vanished", which this machine was not given',
    );
    const other = { ...persistedIdle(machine), children: { c1: call("streamReply", "vanished") } };
    expect(restoreError(machine, other)).toBeUndefined();
    const bare = { ...persistedIdle(machine), children: { c1: { src: "toolCall", snapshot: {} } } };
    expect(restoreError(machine, bare)).toBeUndefined();
  });

  it("refuses a state the machine does not have, naming it", () => {
    const persisted = { ...persistedIdle(machine), value: "sleeping" };
    expect(restoreError(machine, persisted)?.message).toMatch(
      /^agentchart: the snapshot's state "sleeping" is not a state of the agent machine \(.+\)$/,
    );
  });

  it("refreshes what the context holds of the implementations", () => {
    const persisted = persistedIdle(machine);
    persisted.context.hasTurnCallbacks = true;
    persisted.context.guardrails = { input: [], output: ["old"] };
    const guarded = createAgentMachine({
      streamFn: scriptedModel([]),
      tools: [read],
      guardrails: { output: [pass("tone")] },
    });
    const actor = createActor(guarded, { snapshot: persisted as never });
    actor.start();
    expect(actor.getSnapshot().context).toMatchObject({
      hasTurnCallbacks: false,
      guardrails: { input: [], output: ["tone"] },
    });
    actor.stop();
  });
});

describe("restoring a persisted sub-agent", () => {
  const research = defineAgentTool({
    name: "research",
    description: "Researches",
    agent: { systemPrompt: "You research.", tools: [guarded("refund")] },
  });
  const script = () =>
    scriptedModel([
      { toolCalls: [{ id: "s1", name: "research", arguments: { task: "refund it" } }] },
      { toolCalls: [{ id: "r1", name: "refund", arguments: {} }] },
    ]);

  /** The persisted root while its child waits for approval, and the child's snapshot in it. */
  async function persistedWhileChildWaits(machine: AgentMachine) {
    const actor = createActor(machine, { input: { model: testModel } });
    let asked = false;
    actor.on("tool_approval_request", () => (asked = true));
    actor.start();
    actor.send({ type: "PROMPT", messages: [user("help")] });
    await waitFor(actor, () => asked);
    const persisted = structuredClone(actor.getPersistedSnapshot()) as unknown as {
      children: Record<
        string,
        { snapshot: { children: Record<string, { snapshot: Record<string, unknown> }> } }
      >;
    };
    actor.stop();
    const child = persisted.children.s1!.snapshot.children.agent!.snapshot;
    return { persisted, child };
  }

  it("restores the child with its place in the tree", async () => {
    const machine = createAgentMachine({ streamFn: script(), tools: [research] });
    const { persisted, child } = await persistedWhileChildWaits(machine);
    expect(child.context).toMatchObject({
      parentToolCallId: "s1",
      place: { path: ["s1"], toolName: "research" },
    });
    const actor = createActor(machine, { snapshot: persisted as never });
    actor.start();
    const restoredChild = childAgentOf(actor);
    expect(restoredChild?.getSnapshot().context.place).toEqual(
      child.context && (child.context as { place: unknown }).place,
    );
    actor.stop();
  });

  it.each([
    ["its place", (context: Record<string, unknown>) => delete context.place],
    ["the call that runs it", (context: Record<string, unknown>) => delete context.parentToolCallId],
  ])("refuses the whole tree when a child lost %s", async (_name, damage) => {
    const machine = createAgentMachine({ streamFn: script(), tools: [research] });
    const { persisted, child } = await persistedWhileChildWaits(machine);
    damage(child.context as Record<string, unknown>);
    expect(restoreError(machine, persisted)?.message).toBe(
      "agentchart: a persisted sub-agent without its place in the tree cannot be restored",
    );
  });

  it("refuses the whole tree when a child lost its context", async () => {
    const machine = createAgentMachine({ streamFn: script(), tools: [research] });
    const { persisted, child } = await persistedWhileChildWaits(machine);
    delete child.context;
    expect(restoreError(machine, persisted)?.message).toBe(
      "agentchart: a persisted sub-agent without its place in the tree cannot be restored",
    );
  });

  it("refuses the whole tree when a grandchild lost its place", async () => {
    const machine = createAgentMachine({ streamFn: script(), tools: [research] });
    const { persisted, child } = await persistedWhileChildWaits(machine);
    // The child delegates in turn: a call `g1` of its own whose agent has no place.
    const grandchild = structuredClone(child);
    delete (grandchild.context as Record<string, unknown>).place;
    (child as { children?: unknown }).children = {
      g1: { src: "toolCall", snapshot: { children: { agent: { src: "subAgent", snapshot: grandchild } } } },
    };
    expect(restoreError(machine, persisted)?.message).toBe(
      "agentchart: a persisted sub-agent without its place in the tree cannot be restored",
    );
  });
});

describe("a reply's events", () => {
  const machine = createAgentMachine({ streamFn: scriptedModel([]) });
  const events: AgentEvent[] = [{ type: "agent_start" }];
  const streaming = (more: Record<string, unknown> = {}) =>
    machine.resolveState({
      value: { running: "streaming" },
      context: { ...initialAgentContext({ model: testModel, toolNames: [] }), ...more },
    });

  it("go straight to a streaming root agent's listeners, without a step of the machine", () => {
    const snapshot = streaming();
    const [next, actions] = transition(machine, snapshot, { type: "REPLY_EVENTS", events });
    expect(next).toBe(snapshot);
    expect(actions).toEqual([]);
  });

  it("are a step of the machine for a sub-agent, which sends them up to its call", () => {
    // XState's pure transition has no parent to send to: the step that would send them throws.
    const snapshot = streaming({ parentToolCallId: "call-1" });
    expect(() => transition(machine, snapshot, { type: "REPLY_EVENTS", events })).toThrow(
      "Unable to send event to actor '#_parent'",
    );
  });

  it.each([
    ["message_start", ["message_start"]],
    ["message_update", ["agent_end", "message_update"]],
  ])("are a step of the machine for an agent whose parent machine wants %s", (_name, parentEvents) => {
    const snapshot = streaming({ parentEvents });
    const [, actions] = transition(machine, snapshot, { type: "REPLY_EVENTS", events });
    expect(actions.map((action) => action.type)).toContain("xstate.emit");
  });

  it("go straight to the listeners when the parent machine wants other events only", () => {
    const snapshot = streaming({ parentEvents: ["agent_end"] });
    const [next, actions] = transition(machine, snapshot, { type: "REPLY_EVENTS", events });
    expect(next).toBe(snapshot);
    expect(actions).toEqual([]);
  });

  it("reach a root agent's listeners as the reply streams", async () => {
    const streamed = createAgentMachine({ streamFn: scriptedModel([{ text: "Hello there, friend" }]) });
    const actor = createActor(streamed, { input: { model: testModel } });
    const seen: string[] = [];
    actor.on("*", (event) => seen.push((event as AgentEvent).type));
    actor.start();
    actor.send({ type: "PROMPT", messages: [user("hi")] });
    await waitFor(actor, () => seen.includes("agent_end"));
    expect(seen.filter((type) => type === "message_update").length).toBeGreaterThan(1);
    expect(seen.indexOf("message_update")).toBeLessThan(seen.lastIndexOf("message_end"));
    actor.stop();
  });

  it("are dropped when they come after the stream, while a tool call waits", async () => {
    const waiting = createAgentMachine({
      streamFn: scriptedModel([{ toolCalls: [{ id: "c1", name: "refund", arguments: {} }] }]),
      tools: [guarded("refund")],
    });
    const actor = createActor(waiting, { input: { model: testModel } });
    const seen: string[] = [];
    actor.on("*", (event) => seen.push((event as AgentEvent).type));
    actor.start();
    actor.send({ type: "PROMPT", messages: [user("refund")] });
    await waitFor(actor, () => seen.includes("tool_approval_request"));
    expect(actor.getSnapshot().matches({ running: "streaming" })).toBe(false);
    const before = seen.length;
    actor.send({ type: "REPLY_EVENTS", events: [{ type: "agent_start" }] } as never);
    expect(seen.slice(before)).toEqual([]);
    actor.stop();
  });

  it("are not delivered by an idle agent", () => {
    const idle = createActor(machine, { input: { model: testModel } });
    const seen: unknown[] = [];
    idle.on("*", (event) => seen.push(event));
    idle.start();
    idle.send({ type: "REPLY_EVENTS", events } as never);
    expect(seen).toEqual([]);
    idle.stop();
  });
});

describe("the actors and actions it provides", () => {
  it("lists the tool-call machine among its actors, provided with the machine's tools", () => {
    const machine = createAgentMachine({ streamFn: scriptedModel([]), tools: [toolNamed("read")] });
    const actors = machine.implementations.actors;
    expect(Object.keys(actors)).toEqual(
      expect.arrayContaining(["streamReply", "turnCallbacks", "guardrails", "validateOutput", "toolCall"]),
    );
    const toolCall = actors.toolCall as unknown as { implementations: { actions: Record<string, unknown> } };
    expect(toolCall).toBe(actors.toolCall);
    expect(() => (toolCall.implementations.actions.validate as () => void)()).not.toThrow(/not provided/);
  });

  it("gives steering drained from its source back when the run is aborted before injecting it", async () => {
    const steer = user("steer");
    const returned: { queue: string; messages: unknown[] }[] = [];
    let polls = 0;
    const machine = createAgentMachine({
      streamFn: scriptedModel([{ text: "never" }]),
      getSteeringMessages: () => (polls++ === 0 ? [steer] : []),
      restoreQueuedMessages: (queue, messages) => returned.push({ queue, messages }),
    });
    const actor = createActor(machine, { input: { model: testModel } });
    actor.on("message_end", () => actor.send({ type: "ABORT" }));
    actor.start();
    actor.send({ type: "PROMPT", messages: [user("go")] });
    await waitFor(actor, (snapshot) => snapshot.matches("idle") && snapshot.context.run === undefined);
    expect(returned).toEqual([{ queue: "steering", messages: [steer] }]);
    actor.stop();
  });
});

describe("the machine after .provide()", () => {
  it("keeps the context's data and runs tool calls with the machine's tools", async () => {
    const read = toolNamed("read");
    const base = createAgentMachine({
      streamFn: scriptedModel([{ toolCalls: [{ name: "read", arguments: {} }] }, { text: "Done." }]),
      tools: [read],
    });
    const machine = base.provide({});
    const actor = createActor(machine, { input: { model: testModel } });
    const results: string[] = [];
    actor.on("tool_execution_end", (event) => {
      const end = event as Extract<AgentEvent, { type: "tool_execution_end" }>;
      results.push(`${end.isError}:${JSON.stringify(end.result.content)}`);
    });
    actor.start();
    expect(actor.getSnapshot().context.toolNames).toEqual(["read"]);
    actor.send({ type: "PROMPT", messages: [user("read it")] });
    await waitFor(actor, (snapshot) => snapshot.matches("idle") && snapshot.context.messages.length === 4);
    expect(results).toEqual([`false:${JSON.stringify([{ type: "text", text: "read ran" }])}`]);
    // A restored snapshot is checked by the provided machine as well.
    const persisted = actor.getPersistedSnapshot() as unknown as { context: { toolNames: string[] } };
    actor.stop();
    expect(
      restoreError(machine, { ...persisted, context: { ...persisted.context, toolNames: ["gone"] } })
        ?.message,
    ).toContain('needs the tool "gone"');
  });
});

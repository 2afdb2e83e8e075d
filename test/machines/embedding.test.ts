/**
 * The statechart is the contract: what an XState user does with the agent machine — without the
 * `Agent` class — works: implementations through `createAgentMachine` (`.provide()`), restore with
 * plain `getPersistedSnapshot()` / `createActor(machine, { snapshot })` (of the agent, and of an app
 * that invokes it, in another process), independent actors of one parent, `transition()` returning
 * the events as `emit` actions, and clear errors for snapshots the machine cannot run.
 */
import { describe, expect, it } from "vitest";
import { type AnyActorRef, createActor, initialTransition, setup, toPromise, transition } from "xstate";
import { z } from "zod";
import { agentEvents$, agentState$, createAgentMachine } from "../../src/machines.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import { repoRoot, runTs } from "../support/cli-process.js";
import { APP_REPLIES, appMachine, chargeTool } from "../support/embedded-app.js";
import { deferred, testModel, user } from "../support/loop-harness.js";

/** Resolves with the first event of `type` the agent emits. */
function next<TType extends AgentEvent["type"]>(agent: AnyActorRef, type: TType) {
  return new Promise<Extract<AgentEvent, { type: TType }>>((resolve) => {
    const listener = agent.on(type, (event: Extract<AgentEvent, { type: TType }>) => {
      listener.unsubscribe();
      resolve(event);
    });
  });
}

describe("restoring with plain XState", () => {
  it("restores an agent whose call waits for approval: APPROVE_TOOL runs the tool exactly once and the run finishes", async () => {
    const runs: string[] = [];
    const options = () => ({
      streamFn: scriptedModel(APP_REPLIES),
      tools: [chargeTool((key) => runs.push(key))],
    });
    const first = createActor(createAgentMachine(options()), { input: { model: testModel, agentId: "a1" } });
    const asked = next(first, "tool_approval_request");
    first.start();
    first.send({ type: "PROMPT", messages: [user("charge me")] });
    await asked;
    const saved = JSON.stringify(first.getPersistedSnapshot());
    first.stop();

    const restored = createActor(
      createAgentMachine({ ...options(), streamFn: scriptedModel(APP_REPLIES.slice(1)) }),
      {
        snapshot: JSON.parse(saved),
      },
    );
    const ended = next(restored, "agent_end");
    restored.start();
    expect(restored.getSnapshot().hasTag("busy")).toBe(true);
    expect(restored.getSnapshot().hasTag("awaitingHuman")).toBe(true);
    restored.send({ type: "APPROVE_TOOL", toolCallId: "pay" });
    expect(restored.getSnapshot().hasTag("awaitingHuman")).toBe(false);
    const end = await ended;
    expect(runs).toEqual(["a1:pay"]);
    expect(end.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "Charged." }],
    });
    expect(restored.getSnapshot().value).toBe("idle");
  });

  it("restores a user's app that invokes the agent, persisted by another process while a call waits for approval", async () => {
    const child = await runTs("test/support/embedded-app-child.ts", [], { cwd: repoRoot });
    expect(child.code, child.stderr).toBe(0);
    const lines = child.stdout.trim().split("\n");
    expect(lines.filter((line) => line.startsWith("RUNNING"))).toEqual([]); // not approved there
    const persisted = JSON.parse(lines.at(-1)!);

    const runs: string[] = [];
    const app = createActor(appMachine({ replies: APP_REPLIES.slice(1), onRun: (key) => runs.push(key) }), {
      snapshot: persisted,
    });
    app.start();
    expect(app.getSnapshot().context.waiting).toEqual(["pay"]);
    app.send({ type: "APPROVE", toolCallId: "pay" });
    await expect(toPromise(app)).resolves.toBe("Charged.");
    expect(runs).toEqual(["embedded:pay"]);
  });

  it("fails the restored actor at start, naming a tool the machine lacks (its error observers see it)", async () => {
    const first = createActor(
      createAgentMachine({ streamFn: scriptedModel(APP_REPLIES), tools: [chargeTool(() => {})] }),
      { input: { model: testModel } },
    );
    const asked = next(first, "tool_approval_request");
    first.start();
    first.send({ type: "PROMPT", messages: [user("charge me")] });
    await asked;
    const snapshot = JSON.parse(JSON.stringify(first.getPersistedSnapshot()));
    first.stop();
    const restored = createActor(createAgentMachine({ streamFn: scriptedModel([]) }), { snapshot });
    const failed = deferred<unknown>();
    restored.subscribe({ error: (error) => failed.resolve(error) });
    restored.start();
    expect(String(await failed.promise)).toMatch(/needs the tool "charge", which this machine was not given/);
  });

  it("refuses a snapshot whose state value is not a state of the machine, naming the value", async () => {
    const machine = createAgentMachine({ streamFn: scriptedModel([]) });
    const idle = createActor(machine, { input: { model: testModel } }).start();
    const snapshot = { ...JSON.parse(JSON.stringify(idle.getPersistedSnapshot())), value: "thinking" };
    idle.stop();
    const restored = createActor(machine, { snapshot });
    const failed = deferred<unknown>();
    restored.subscribe({ error: (error) => failed.resolve(error) });
    restored.start();
    expect(String(await failed.promise)).toMatch(/state "thinking" is not a state of the agent machine/);
  });

  it("refuses a snapshot of another format version, naming it", async () => {
    const machine = createAgentMachine({ streamFn: scriptedModel([]) });
    const idle = createActor(machine, { input: { model: testModel } }).start();
    const persisted = JSON.parse(JSON.stringify(idle.getPersistedSnapshot()));
    idle.stop();
    const { formatVersion: _, ...older } = persisted.context;
    const restored = createActor(machine, { snapshot: { ...persisted, context: older } });
    const failed = deferred<unknown>();
    restored.subscribe({ error: (error) => failed.resolve(error) });
    restored.start();
    expect(String(await failed.promise)).toMatch(
      /format version "none \(agentchart 0\.3\.0 or older\)"; this agentchart restores version 5/,
    );
  });
});

describe("two agents of one app machine", () => {
  it("ABORT to one leaves the other's run untouched (a static input object, no shared controller)", async () => {
    const gate = deferred();
    const slow = defineTool({
      name: "slow",
      description: "Waits",
      parameters: z.object({}),
      execute: async (_args, { signal }) => {
        await Promise.race([
          gate.promise,
          new Promise((resolve) => signal.addEventListener("abort", resolve)),
        ]);
        return { content: [{ type: "text", text: signal.aborted ? "aborted" : "done" }] };
      },
    });
    const reply = { toolCalls: [{ id: "s", name: "slow", arguments: {} }] };
    const input = { model: testModel };
    const app = setup({
      actors: {
        agent: createAgentMachine({
          streamFn: scriptedModel([reply, reply, { text: "a" }, { text: "b" }]),
          tools: [slow],
        }),
      },
    }).createMachine({
      type: "parallel",
      states: {
        left: { invoke: { id: "left", src: "agent", input } },
        right: { invoke: { id: "right", src: "agent", input } },
      },
    });
    const actor = createActor(app).start();
    const [left, right] = ["left", "right"].map((id) => actor.getSnapshot().children[id] as AnyActorRef);
    const started = [next(left!, "tool_execution_start"), next(right!, "tool_execution_start")];
    left!.send({ type: "PROMPT", messages: [user("l")] });
    right!.send({ type: "PROMPT", messages: [user("r")] });
    await Promise.all(started);
    const leftEnd = next(left!, "agent_end");
    left!.send({ type: "ABORT" });
    expect((await leftEnd).messages.at(-1)).toMatchObject({ role: "toolResult", isError: true });
    expect(right!.getSnapshot().hasTag("busy")).toBe(true);
    const rightEnd = next(right!, "agent_end");
    gate.resolve();
    const end = await rightEnd;
    expect(end.messages.find((m) => m.role === "toolResult")).toMatchObject({
      isError: false,
      content: [{ type: "text", text: "done" }],
    });
  });
});

describe("XState's own tools see the agent's events", () => {
  const machine = createAgentMachine({ streamFn: scriptedModel([{ text: "hi" }]) });

  it("transition() returns agent_start as an emit action of the PROMPT transition", () => {
    const [idle] = initialTransition(machine, { model: testModel });
    const [running, actions] = transition(machine, idle, { type: "PROMPT", messages: [user("x")] });
    expect(running.value).toEqual({ running: { preparingTurn: "deciding" } });
    expect(actions).toContainEqual(
      expect.objectContaining({ type: "xstate.emit", params: { event: { type: "agent_start" } } }),
    );
  });

  it("an inspect observer sees every step's AgentEvent as an emit action (streamed ones go straight to listeners), and no anonymous action", async () => {
    const emitted: string[] = [];
    const actionTypes = new Set<string>();
    const actor = createActor(machine, {
      input: { model: testModel },
      inspect: (event) => {
        if (event.type !== "@xstate.action") return;
        actionTypes.add(event.action.type);
        if (event.action.type === "xstate.emit")
          emitted.push((event.action.params as { event: AgentEvent }).event.type);
      },
    });
    const heard: string[] = [];
    const stepEvents: string[] = [];
    actor.on("*", (event) => {
      heard.push(event.type);
      const reply =
        event.type === "message_update" ||
        (event.type === "message_start" && event.message.role === "assistant");
      if (!reply) stepEvents.push(event.type);
    });
    const ended = next(actor, "agent_end");
    actor.start();
    actor.send({ type: "PROMPT", messages: [user("x")] });
    await ended;
    expect(emitted).toEqual(stepEvents);
    expect(heard).toContain("message_update");
    expect(emitted).toContain("message_end");
    expect([...actionTypes].every((type) => type.length > 0 && !type.includes("anonymous"))).toBe(true);
  });

  it("agentEvents$ and agentState$ work for any agent actor; every state agrees with the machine", async () => {
    const actor = createActor(machine, { input: { model: testModel } });
    const types: string[] = [];
    agentEvents$(actor).subscribe((event) => types.push(event.type));
    const states: { isStreaming: boolean; busy: boolean; messages: number }[] = [];
    agentState$(actor).subscribe((state) =>
      states.push({
        isStreaming: state.isStreaming,
        busy: actor.getSnapshot().hasTag("busy"),
        messages: state.messages.length,
      }),
    );
    const ended = next(actor, "agent_end");
    actor.start();
    actor.send({ type: "PROMPT", messages: [user("x")] });
    await ended;
    expect(types[0]).toBe("agent_start");
    expect(types.at(-1)).toBe("agent_end");
    expect(states.every((state) => state.isStreaming === state.busy)).toBe(true);
    expect(states.some((state) => state.isStreaming)).toBe(true);
    expect(states.at(-1)).toEqual({ isStreaming: false, busy: false, messages: 2 });
  });
});

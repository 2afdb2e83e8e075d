/**
 * The `Agent` facade's own rules, each against its one actor: what the constructor and `restore`
 * build (input defaults, early failures, overrides, the resume after a restore), what each method
 * sends and refuses, the run's lifetime (signal, listeners, settling), and `asTool`'s definition.
 */
import { describe, expect, it, vi } from "vitest";
import { createActor, type InspectionEvent } from "xstate";
import { z } from "zod";
import { Agent, agentInputOf, agentOver } from "../../src/agent/agent.js";
import { agentImplementations } from "../../src/machines/agent/agent.implementations.js";
import { agentMachineOf } from "../../src/machines/agent/agent.provided.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { Recording } from "../../src/replay/recording.js";
import { defineClientTool } from "../../src/tools/define-client-tool.js";
import { defineHandoff } from "../../src/tools/define-handoff.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, AssistantMessage } from "../../src/types/messages.js";
import { FINAL_ANSWER_TOOL } from "../../src/types/output.js";
import { deferred, echoTool, testModel, user } from "../support/loop-harness.js";

const roles = (messages: readonly AgentMessage[]) => messages.map((m) => (m as { role: string }).role);
/** The events the inspector saw sent to the agent (XState's own `xstate.*` events left out). */
const eventTypes = (inspected: InspectionEvent[]) =>
  inspected.flatMap((event) =>
    event.type === "@xstate.event" && !event.event.type.startsWith("xstate.") ? [event.event.type] : [],
  );

/** An agent whose first reply calls `echo` held by a gate, so a run stays on until `gate.resolve()`. */
function heldAgent(extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  const gate = deferred();
  const running = deferred();
  const agent = new Agent({
    model: testModel,
    streamFn: scriptedModel([
      { toolCalls: [{ id: "c1", name: "echo", arguments: { text: "x" } }] },
      { text: "done" },
      { text: "again" },
    ]),
    tools: [
      echoTool("echo", () => {
        running.resolve();
        return gate.promise;
      }),
    ],
    ...extra,
  });
  return { agent, gate, running: running.promise };
}

describe("agentInputOf", () => {
  it("gives the machine the options' state, with the defaults", () => {
    const implementations = agentImplementations({ streamFn: scriptedModel([]), tools: [] });
    const input = agentInputOf(
      { model: testModel, streamFn: scriptedModel([]), tools: [echoTool()] },
      implementations,
    );
    expect(input).toEqual({
      model: testModel,
      toolNames: ["echo"],
      systemPrompt: "",
      thinkingLevel: "off",
      messages: [],
      settings: {
        toolExecution: "parallel",
        steering: "afterToolBatch",
        steeringMode: "one-at-a-time",
        followUpMode: "one-at-a-time",
        maxTurns: undefined,
      },
      streamOptions: {},
    });
  });

  it("takes every option given, the persistable stream options among them", () => {
    const implementations = agentImplementations({ streamFn: scriptedModel([]) });
    const messages = [user("hi")];
    const input = agentInputOf(
      {
        model: testModel,
        streamFn: scriptedModel([]),
        agentId: "a-1",
        systemPrompt: "sys",
        thinkingLevel: "high",
        messages,
        toolExecution: "sequential",
        steering: "betweenTools",
        steeringMode: "all",
        followUpMode: "all",
        maxTurns: 4,
        sessionId: "s-1",
        apiKey: "not persisted",
        budget: { maxModelCalls: 2 },
      } as never,
      implementations,
    );
    expect(input).toMatchObject({
      agentId: "a-1",
      systemPrompt: "sys",
      thinkingLevel: "high",
      messages,
      settings: {
        toolExecution: "sequential",
        steering: "betweenTools",
        steeringMode: "all",
        followUpMode: "all",
        maxTurns: 4,
      },
      streamOptions: { sessionId: "s-1" },
      budget: { maxModelCalls: 2 },
    });
    expect(input.streamOptions).not.toHaveProperty("apiKey");
  });

  it("starts as a handoff target: its prompt, tools and model", () => {
    const other = { ...testModel, id: "billing-model" };
    const toBilling = defineHandoff({
      agent: { name: "billing", systemPrompt: "You do billing.", tools: [echoTool("invoice")], model: other },
    });
    const implementations = agentImplementations({ streamFn: scriptedModel([]), tools: [toBilling] });
    const input = agentInputOf(
      {
        model: testModel,
        streamFn: scriptedModel([]),
        systemPrompt: "Route.",
        tools: [toBilling],
        activeAgent: "billing",
      },
      implementations,
    );
    expect(input).toMatchObject({
      activeAgent: "billing",
      systemPrompt: "You do billing.",
      toolNames: ["invoice"],
      model: other,
    });
    const plain = defineHandoff({ agent: { name: "plain" } });
    const withPlain = agentImplementations({ streamFn: scriptedModel([]), tools: [plain] });
    expect(
      agentInputOf(
        {
          model: testModel,
          streamFn: scriptedModel([]),
          tools: [plain],
          activeAgent: "plain",
        },
        withPlain,
      ).model,
    ).toEqual(testModel);
  });

  it("names the known handoff targets for an unknown active agent, or none", () => {
    const toBilling = defineHandoff({ agent: { name: "billing" } });
    const toSales = defineHandoff({ agent: { name: "sales" } });
    const both = agentImplementations({ streamFn: scriptedModel([]), tools: [toBilling, toSales] });
    expect(() =>
      agentInputOf({ model: testModel, streamFn: scriptedModel([]), activeAgent: "legal" }, both),
    ).toThrow(
      'Unknown active agent "legal": no handoff of this agent\'s tools leads to it (known: billing, sales)',
    );
    const none = agentImplementations({ streamFn: scriptedModel([]) });
    expect(() =>
      agentInputOf({ model: testModel, streamFn: scriptedModel([]), activeAgent: "legal" }, none),
    ).toThrow(/\(known: none\)$/);
  });
});

describe("the constructor", () => {
  it("fails early for a bad output repair count, and for a bad budget", () => {
    expect(
      () =>
        new Agent({
          model: testModel,
          streamFn: scriptedModel([]),
          output: z.object({}),
          maxOutputRepairs: -1,
        }),
    ).toThrow("maxOutputRepairs must be a whole number ≥ 0, got -1");
    expect(
      () => new Agent({ model: testModel, streamFn: scriptedModel([]), budget: { maxModelCalls: -1 } }),
    ).toThrow(/^Agent budget: maxModelCalls/);
  });

  it("has no tools unless given some", () => {
    expect(new Agent({ model: testModel, streamFn: scriptedModel([]) }).tools).toEqual([]);
  });

  it("passes the inspector on to its actor", () => {
    const inspected: InspectionEvent[] = [];
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([]),
      inspect: (event) => inspected.push(event),
    });
    agent.setSystemPrompt("seen");
    expect(eventTypes(inspected)).toContain("SET_SYSTEM_PROMPT");
  });

  it("records the commands it sends and each step, with record", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "Hi" }]), record: true });
    expect(agent.recording).toBeInstanceOf(Recording);
    expect(agent.recording!.source).toBe("agent");
    expect(agent.history).toEqual([]);
    await agent.prompt("hello");
    expect(agent.history.length).toBeGreaterThan(0);
    expect(agent.history.at(-1)!.snapshot).toEqual(agent.persist());
    expect(agent.recording!.commands.map((command) => command.command.type)).toContain("PROMPT");
    expect(new Agent({ model: testModel, streamFn: scriptedModel([]) }).history).toEqual([]);
  });
});

describe("Agent.restore", () => {
  it("applies the options' state values over the snapshot's", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]), systemPrompt: "old" });
    const other = { ...testModel, id: "other" };
    const messages = [user("kept")];
    const restored = Agent.restore(agent.persist(), {
      streamFn: scriptedModel([]),
      model: other,
      systemPrompt: "new",
      thinkingLevel: "medium",
      messages,
    });
    expect(restored.state).toMatchObject({
      model: other,
      systemPrompt: "new",
      thinkingLevel: "medium",
      messages,
    });
  });

  it("builds a new agent each time from the same options", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]) });
    const options = { streamFn: scriptedModel([]) };
    const first = Agent.restore(agent.persist(), options);
    const second = Agent.restore(agent.persist(), options);
    expect(second.actor).not.toBe(first.actor);
  });

  it("is running from the restore on, and resumes after it returns (a listener sees agent_resume)", async () => {
    const { agent, running } = heldAgent();
    void agent.prompt("go");
    await running;
    const saved = JSON.stringify(agent.persist());
    agent.actor.stop();
    const restored = Agent.restore(saved, {
      streamFn: scriptedModel([{ text: "after" }]),
      tools: [echoTool()],
      record: true,
    });
    expect(restored.isRunning).toBe(true);
    const events: AgentEvent[] = [];
    restored.subscribe((event) => {
      events.push(event);
    });
    await restored.waitForIdle();
    expect(events[0]).toEqual({ type: "agent_resume", from: "executingTools" });
    expect(restored.isRunning).toBe(false);
    expect(restored.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(restored.history.length).toBeGreaterThan(0);
    expect(restored.recording!.source).toBe("agent");
  });

  it("sends the resume before a command sent right after the restore", async () => {
    const { agent, running } = heldAgent();
    void agent.prompt("go");
    await running;
    const saved = agent.persist();
    agent.actor.stop();
    const inspected: InspectionEvent[] = [];
    const restored = Agent.restore(saved, {
      streamFn: scriptedModel([{ text: "after" }]),
      tools: [echoTool()],
      inspect: (event) => inspected.push(event),
    });
    restored.steer("first");
    const types = eventTypes(inspected);
    expect(types.indexOf("RESUME")).toBeGreaterThanOrEqual(0);
    expect(types.indexOf("RESUME")).toBeLessThan(types.indexOf("STEER"));
    await restored.waitForIdle();
    expect(eventTypes(inspected).filter((type) => type === "RESUME")).toHaveLength(1);
  });
});

describe("asTool", () => {
  it("defines a child with this agent's current definition, not its transcript", async () => {
    const childModel = scriptedModel([{ text: "drafted" }]);
    const writer = new Agent({
      model: testModel,
      streamFn: childModel,
      systemPrompt: "You write.",
      thinkingLevel: "low",
      tools: [echoTool(), echoTool("inactive")],
      toolExecution: "sequential",
      maxTurns: 3,
      record: true,
    });
    writer.setTools([echoTool(), echoTool("inactive")], ["echo"]);
    writer.setSystemPrompt("You write well.");
    const tool = writer.asTool({ name: "write", description: "Writes" });
    const spec = tool.subAgent!.agent({ task: "t" }) as Record<string, unknown> & {
      tools: { name: string }[];
    };
    expect(spec).toMatchObject({
      model: testModel,
      systemPrompt: "You write well.",
      thinkingLevel: "low",
      toolExecution: "sequential",
      maxTurns: 3,
      streamFn: expect.any(Function),
    });
    expect(spec.tools.map((t) => t.name)).toEqual(["echo"]);
    expect(spec).not.toHaveProperty("record");
    const editor = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "w1", name: "write", arguments: { task: "t" } }] },
        { text: "ok" },
      ]),
      tools: [tool],
    });
    await editor.prompt("go");
    expect(childModel.calls[0]!.context.systemPrompt).toBe("You write well.");
    expect(writer.state.messages).toEqual([]);
  });

  it("takes maxTurns from the agent's state, also when its options have none (a restored agent)", () => {
    const saved = new Agent({ model: testModel, streamFn: scriptedModel([]), maxTurns: 7 }).persist();
    const restored = Agent.restore(saved, { streamFn: scriptedModel([]) });
    expect(restored.asTool({ name: "a", description: "A" }).subAgent!.agent({})).toMatchObject({
      maxTurns: 7,
    });
  });

  it("leaves maxTurns out when the agent has none", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]) });
    expect(agent.asTool({ name: "a", description: "A" }).subAgent!.agent({})).not.toHaveProperty("maxTurns");
  });
});

describe("state, events and setters", () => {
  it("state$ gives the state now and after each change; events$ every event", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "Hi" }]) });
    const states: string[] = [];
    const events: string[] = [];
    agent.state$.subscribe((state) => states.push(state.systemPrompt));
    agent.events$.subscribe((event) => events.push(event.type));
    expect(states).toEqual([""]);
    agent.setSystemPrompt("sys");
    expect(states).toEqual(["", "sys"]);
    await agent.prompt("hello");
    expect(events[0]).toBe("agent_start");
    expect(events.at(-1)).toBe("agent_end");
    expect(states.length).toBeGreaterThan(3);
  });

  it("sends a setter's event only for a change", () => {
    const inspected: InspectionEvent[] = [];
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([]),
      systemPrompt: "same",
      thinkingLevel: "low",
      inspect: (event) => inspected.push(event),
    });
    agent.setModel(testModel);
    agent.setThinkingLevel("low");
    agent.setSystemPrompt("same");
    expect(eventTypes(inspected)).toEqual([]);
    const other = { ...testModel, id: "other" };
    agent.setModel(other);
    agent.setThinkingLevel("high");
    agent.setSystemPrompt("new");
    expect(eventTypes(inspected)).toEqual(["SET_MODEL", "SET_THINKING_LEVEL", "SET_SYSTEM_PROMPT"]);
    expect(agent.state).toMatchObject({ model: other, thinkingLevel: "high", systemPrompt: "new" });
  });

  it("setTools makes all given tools active by default, or the named ones; tools lists them all", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]) });
    const tools = [echoTool("a"), echoTool("b")];
    agent.setTools(tools);
    expect(agent.state.tools.map((tool) => tool.name)).toEqual(["a", "b"]);
    agent.setTools(tools, ["b"]);
    expect(agent.state.tools.map((tool) => tool.name)).toEqual(["b"]);
    expect(agent.tools.map((tool) => tool.name)).toEqual(["a", "b"]);
    expect(agent.tools).not.toBe(tools);
  });

  it("merges stream options with those set before", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]), sessionId: "s-1" } as never);
    agent.setStreamOptions({ maxTokens: 100 });
    expect(agent.actor.getSnapshot().context.streamOptions).toEqual({ sessionId: "s-1", maxTokens: 100 });
  });

  it("keeps the queued object while the queues do not change", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]) });
    const empty = agent.queued;
    expect(agent.queued).toBe(empty);
    agent.steer("s");
    const one = agent.queued;
    expect(one).not.toBe(empty);
    expect(one.steering.map((m) => (m as { content: string }).content)).toEqual(["s"]);
    expect(agent.queued).toBe(one);
    agent.followUp("f");
    expect(agent.queued.followUp).toHaveLength(1);
    agent.clearQueues();
    expect(agent.queued).toEqual({ steering: [], followUp: [] });
  });

  it("reports the queue modes of the options", () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([]),
      steeringMode: "all",
      followUpMode: "one-at-a-time",
    });
    expect(agent.steeringMode).toBe("all");
    expect(agent.followUpMode).toBe("one-at-a-time");
  });

  it("subscribe returns the function that removes the listener", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "a" }, { text: "b" }]) });
    const seen: string[] = [];
    const remove = agent.subscribe((event) => {
      seen.push(event.type);
    });
    await agent.prompt("one");
    const count = seen.length;
    remove();
    await agent.prompt("two");
    expect(seen).toHaveLength(count);
  });
});

describe("a run's lifetime", () => {
  it("has a signal only while running, aborted by abort() and new for the next run", async () => {
    const { agent, running, gate } = heldAgent();
    expect(agent.signal).toBeUndefined();
    const done = agent.prompt("go");
    await running;
    const signal = agent.signal!;
    expect(signal.aborted).toBe(false);
    agent.abort();
    expect(signal.aborted).toBe(true);
    gate.resolve();
    expect((await done).stopReason).toBe("aborted");
    expect(agent.signal).toBeUndefined();
    const next = agent.prompt("again");
    expect(agent.signal!.aborted).toBe(false);
    await next;
  });

  it("keeps the signal of a run that was not aborted for the next one", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "a" }, { text: "b" }]) });
    const first = agent.prompt("one");
    const signal = agent.signal;
    await first;
    const second = agent.prompt("two");
    expect(agent.signal).toBe(signal);
    await second;
  });

  it("does nothing for abort() and fail() while idle", () => {
    const inspected: InspectionEvent[] = [];
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([]),
      inspect: (e) => inspected.push(e),
    });
    agent.abort();
    agent.fail(new Error("x"));
    expect(eventTypes(inspected)).toEqual([]);
  });

  it("fail() ends the run with the error's text", async () => {
    const { agent, running } = heldAgent();
    const done = agent.prompt("go");
    await running;
    agent.fail(new Error("hook broke"));
    const result = await done;
    expect(result.stopReason).toBe("error");
    expect(agent.state.errorMessage).toMatch(/hook broke/);
  });

  it("refuses setMessages and reset while running, and resets the progress when idle", async () => {
    const { agent, running, gate } = heldAgent();
    const done = agent.prompt("go");
    await running;
    expect(agent.state.pendingToolCalls.size).toBe(1);
    expect(() => agent.setMessages([])).toThrow("Cannot replace messages while the agent is running");
    expect(() => agent.reset()).toThrow("Agent is already processing. Wait for completion before resetting.");
    gate.resolve();
    await done;
    expect(agent.state.pendingToolCalls.size).toBe(0);
    agent.reset();
    expect(agent.state.messages).toEqual([]);
    expect(agent.state.streamingMessage).toBeUndefined();
    const messages = [user("a")];
    agent.setMessages(messages);
    expect(agent.state.messages).toEqual(messages);
  });

  it("resolves a run only after its async listeners settle, whatever they throw", async () => {
    const reported: [unknown, string][] = [];
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "a" }]),
      onListenerError: (error, event) => reported.push([error, event.type]),
    });
    let settled = false;
    agent.subscribe(async (event) => {
      if (event.type !== "agent_end") return;
      await Promise.resolve();
      await Promise.resolve();
      settled = true;
      throw new Error("late");
    });
    agent.subscribe((event) => {
      if (event.type === "agent_start") throw new Error("early");
    });
    await agent.prompt("go");
    expect(settled).toBe(true);
    expect(reported.map(([error, type]) => [(error as Error).message, type])).toEqual([
      ["early", "agent_start"],
      ["late", "agent_end"],
    ]);
  });

  it("reports listener errors to console.error by default, and survives a reporter that throws", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "a" }, { text: "b" }]) });
      agent.subscribe((event) => {
        if (event.type === "agent_start") throw new Error("boom");
      });
      await agent.prompt("go");
      expect(logged).toHaveBeenCalledWith(
        'agentchart: a listener threw while handling "agent_start":',
        expect.any(Error),
      );
      const throwing = new Agent({
        model: testModel,
        streamFn: scriptedModel([{ text: "a" }]),
        onListenerError: () => {
          throw new Error("reporter broke");
        },
      });
      throwing.subscribe(() => {
        throw new Error("listener broke");
      });
      expect((await throwing.prompt("go")).stopReason).toBe("stop");
    } finally {
      logged.mockRestore();
    }
  });

  it("gives listeners the run's signal", async () => {
    const { agent, running, gate } = heldAgent();
    const signals: AbortSignal[] = [];
    agent.subscribe((_event, signal) => {
      signals.push(signal);
    });
    const done = agent.prompt("go");
    await running;
    expect(signals.every((signal) => signal === agent.signal)).toBe(true);
    gate.resolve();
    await done;
  });
});

describe("prompt and continue", () => {
  it("takes a string (with images), one message or several", async () => {
    const streamFn = scriptedModel([{ text: "1" }, { text: "2" }, { text: "3" }]);
    const agent = new Agent({ model: testModel, streamFn });
    const image = { type: "image" as const, data: "aGk=", mimeType: "image/png" };
    await agent.prompt("text", { images: [image] });
    expect(agent.state.messages[0]).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "text" }, image],
    });
    const one = user("one");
    await agent.prompt(one);
    expect(agent.state.messages[2]).toBe(one);
    const a = user("a");
    const b = user("b");
    await agent.prompt([a, b]);
    expect(agent.state.messages.slice(4, 6)).toEqual([a, b]);
  });

  it("rejects a prompt budget that is invalid, and a continue budget, before any run", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]), messages: [user("q")] });
    await expect(agent.prompt("x", { budget: { maxModelCalls: -1 } })).rejects.toThrow(/prompt budget/);
    await expect(agent.continue({ budget: { maxModelCalls: -1 } })).rejects.toThrow(/continue budget/);
    expect(agent.isRunning).toBe(false);
    expect(agent.state.messages).toHaveLength(1);
  });

  it("passes a prompt's or continue's budget and output to its run", async () => {
    const inspected: InspectionEvent[] = [];
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "f1", name: FINAL_ANSWER_TOOL, arguments: { n: 1 } }] },
        { toolCalls: [{ id: "f2", name: FINAL_ANSWER_TOOL, arguments: { n: 2 } }] },
      ]),
      inspect: (event) => inspected.push(event),
    });
    const output = z.object({ n: z.number() });
    const first = await agent.prompt("go", { output, budget: { maxModelCalls: 5 } });
    expect(first.output).toEqual({ n: 1 });
    agent.followUp("more");
    const second = await agent.continue({ output, budget: { maxModelCalls: 6 } });
    expect(second.output).toEqual({ n: 2 });
    const sent = inspected.flatMap((event) =>
      event.type === "@xstate.event" && ["PROMPT", "CONTINUE"].includes(event.event.type)
        ? [event.event]
        : [],
    );
    expect(
      sent.map((event) => [event.type, event.budget?.maxModelCalls, event.output !== undefined]),
    ).toEqual([
      ["PROMPT", 5, true],
      ["CONTINUE", 6, true],
    ]);
  });

  it("sends no output and no budget when neither is given", async () => {
    const inspected: InspectionEvent[] = [];
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "a" }, { text: "b" }]),
      inspect: (event) => inspected.push(event),
    });
    await agent.prompt("go");
    agent.followUp("more");
    await agent.continue();
    const sent = inspected.flatMap((event) =>
      event.type === "@xstate.event" && ["PROMPT", "CONTINUE"].includes(event.event.type)
        ? [event.event]
        : [],
    );
    for (const event of sent) {
      expect(event).not.toHaveProperty("output");
      expect(event).not.toHaveProperty("budget");
    }
  });

  it("refuses typed output beside a tool named final_answer", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([]),
      tools: [echoTool(FINAL_ANSWER_TOOL)],
    });
    await expect(agent.prompt("go", { output: z.object({}) })).rejects.toThrow(
      `A run with typed output offers the model a "${FINAL_ANSWER_TOOL}" tool: rename the agent's tool of that name`,
    );
    expect(agent.isRunning).toBe(false);
  });

  it("uses the agent's output and repairs unless the prompt gives its own", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { text: "not json" },
        { toolCalls: [{ id: "f1", name: FINAL_ANSWER_TOOL, arguments: { n: 3 } }] },
      ]),
      output: z.object({ n: z.number() }),
      maxOutputRepairs: 0,
    });
    const result = await agent.prompt("go");
    expect(result.stopReason).toBe("error");
  });

  it("continue() refuses an empty transcript, and while running", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]) });
    await expect(agent.continue()).rejects.toThrow("Cannot continue: no messages in context");
  });
});

describe("resumeToolCalls", () => {
  const reply: AssistantMessage = {
    role: "assistant",
    content: [
      { type: "toolCall", id: "c1", name: "echo", arguments: { text: "a" } },
      { type: "toolCall", id: "c2", name: "seq", arguments: { text: "b" } },
    ],
    api: "scripted",
    provider: "scripted",
    model: "m",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "toolUse",
    timestamp: 1,
  };
  const seq = defineTool({
    name: "seq",
    description: "Sequential",
    parameters: z.object({ text: z.string() }),
    executionMode: "sequential",
    execute: async ({ text }) => ({ content: [{ type: "text", text }] }),
  });

  it("refuses a message that is not the last reply, and calls it does not hold", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([]),
      tools: [echoTool(), seq],
      messages: [user("q"), reply],
    });
    await expect(agent.resumeToolCalls({ ...reply, timestamp: 2 }, { c1: "pending" })).rejects.toThrow(
      "resumeToolCalls: the message is not the transcript's last assistant message",
    );
    await expect(agent.resumeToolCalls(reply, {})).rejects.toThrow(
      "resumeToolCalls: name one or more tool calls of the message",
    );
    await expect(agent.resumeToolCalls(reply, { c1: "pending", zz: "pending" })).rejects.toThrow(
      "resumeToolCalls: name one or more tool calls of the message",
    );
  });

  it("runs the calls sequentially when a named call's tool is sequential, in parallel otherwise", async () => {
    for (const [calls, sequential] of [
      [{ c1: "pending" }, false],
      [{ c1: "pending", c2: "pending" }, true],
    ] as const) {
      const inspected: InspectionEvent[] = [];
      const agent = new Agent({
        model: testModel,
        streamFn: scriptedModel([{ text: "done" }]),
        tools: [echoTool(), seq],
        messages: [user("q"), JSON.parse(JSON.stringify(reply))],
        inspect: (event) => inspected.push(event),
      });
      const result = await agent.resumeToolCalls(reply, calls);
      expect(result.stopReason).toBe("stop");
      const sent = inspected.flatMap((event) =>
        event.type === "@xstate.event" && event.event.type === "RESUME_CALLS" ? [event.event] : [],
      );
      expect(sent[0]).toMatchObject({ calls, sequential });
    }
  });

  it("runs sequentially when the agent's tool execution is sequential", async () => {
    const inspected: InspectionEvent[] = [];
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "done" }]),
      tools: [echoTool(), seq],
      messages: [user("q"), reply],
      toolExecution: "sequential",
      inspect: (event) => inspected.push(event),
    });
    await agent.resumeToolCalls(reply, { c1: "pending" });
    const sent = inspected.flatMap((event) =>
      event.type === "@xstate.event" && event.event.type === "RESUME_CALLS" ? [event.event] : [],
    );
    expect(sent[0]).toMatchObject({ sequential: true });
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  it("refuses while a run is on", async () => {
    const { agent, running, gate } = heldAgent();
    const done = agent.prompt("go");
    await running;
    await expect(agent.resumeToolCalls(reply, { c1: "pending" })).rejects.toThrow(
      /already processing a prompt/,
    );
    gate.resolve();
    await done;
  });
});

describe("send", () => {
  /** A tool that waits for approval before it refunds. */
  const refund = defineTool({
    name: "refund",
    description: "Refunds",
    parameters: z.object({}),
    requiresApproval: true,
    execute: async () => ({ content: [{ type: "text", text: "refunded" }] }),
  });

  it("refuses a second answer to a call before the machine took the first", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ toolCalls: [{ id: "r1", name: "refund", arguments: {} }] }, { text: "ok" }]),
      tools: [refund],
    });
    const asked = deferred();
    let second: unknown;
    agent.subscribe((event) => {
      if (event.type !== "tool_approval_request") return;
      agent.approveToolCall("r1");
      try {
        agent.denyToolCall("r1", "changed my mind");
      } catch (error) {
        second = error;
      }
      asked.resolve();
    });
    const done = agent.prompt("go");
    await asked.promise;
    expect(second).toMatchObject({ code: "not_waiting" });
    await done;
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  it("takes an answer for a call of a later run with the same id as one answered before", async () => {
    const ask = { toolCalls: [{ id: "r1", name: "refund", arguments: {} }] };
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([ask, { text: "one" }, ask, { text: "two" }]),
      tools: [refund],
    });
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request") queueMicrotask(() => agent.approveToolCall("r1"));
    });
    expect((await agent.prompt("first")).stopReason).toBe("stop");
    expect((await agent.prompt("second")).stopReason).toBe("stop");
    expect(roles(agent.state.messages).filter((role) => role === "toolResult")).toHaveLength(2);
  });

  it("checks RAISE_BUDGET's limits before sending", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]) });
    expect(() => agent.raiseBudget({ maxModelCalls: -1 })).toThrow(/RAISE_BUDGET/);
  });
});

describe("agentOver", () => {
  /** An agent machine actor of its own, started, over `implementations` (as a harness runs its child). */
  function hostedActor(implementations: ReturnType<typeof agentImplementations>) {
    const actor = createActor(agentMachineOf(implementations), {
      input: agentInputOf(
        { model: testModel, streamFn: scriptedModel([]), tools: [echoTool()] },
        implementations,
      ),
    });
    actor.start();
    return actor;
  }

  it("records nothing itself into the implementations' recording (its host records the actor)", () => {
    const recording = new Recording();
    const implementations = agentImplementations({ streamFn: scriptedModel([]), record: recording as never });
    const agent = agentOver(hostedActor(implementations), implementations, {
      model: testModel,
      streamFn: scriptedModel([]),
    });
    expect(agent.recording).toBe(recording);
    agent.setSystemPrompt("changed");
    expect(agent.state.systemPrompt).toBe("changed");
    expect(recording.commands).toEqual([]);
  });

  it("is running when the actor it takes over is in a run, until that run ends", async () => {
    const gate = deferred();
    const running = deferred();
    const implementations = agentImplementations({
      streamFn: scriptedModel([
        { toolCalls: [{ id: "c1", name: "echo", arguments: { text: "x" } }] },
        { text: "done" },
      ]),
      tools: [
        echoTool("echo", () => {
          running.resolve();
          return gate.promise;
        }),
      ],
    });
    const actor = hostedActor(implementations);
    actor.send({ type: "PROMPT", messages: [user("go")] });
    await running.promise;
    const agent = agentOver(actor, implementations, { model: testModel, streamFn: scriptedModel([]) });
    expect(agent.isRunning).toBe(true);
    gate.resolve();
    await agent.waitForIdle();
    expect(agent.isRunning).toBe(false);
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(
      agentOver(hostedActor(implementations), implementations, {
        model: testModel,
        streamFn: scriptedModel([]),
      }).isRunning,
    ).toBe(false);
  });
});

describe("the answering shorthands", () => {
  const needsApproval = defineTool({
    name: "refund",
    description: "Refunds",
    parameters: z.object({}),
    requiresApproval: true,
    execute: async () => ({ content: [{ type: "text", text: "refunded" }] }),
  });
  const resultText = (agent: Agent) => {
    const result = agent.state.messages.find((m) => m.role === "toolResult") as
      | { content: { text?: string }[]; isError: boolean }
      | undefined;
    return { text: result!.content.map((c) => c.text ?? "").join(""), isError: result!.isError };
  };

  it.each([
    ["no reason", undefined, "Tool call denied"],
    ["a reason", "too much", "Tool call denied: too much"],
  ])("denyToolCall with %s", async (_, reason, text) => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ toolCalls: [{ id: "r1", name: "refund", arguments: {} }] }, { text: "ok" }]),
      tools: [needsApproval],
    });
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request") queueMicrotask(() => agent.denyToolCall("r1", reason));
    });
    await agent.prompt("go");
    expect(resultText(agent)).toEqual({ text, isError: true });
  });

  it.each([
    [undefined, false],
    [true, true],
  ])("answerToolCall with isError %j", async (isError, expected) => {
    const ask = defineClientTool({ name: "ask", description: "Asks", parameters: z.object({}) });
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ toolCalls: [{ id: "a1", name: "ask", arguments: {} }] }, { text: "ok" }]),
      tools: [ask],
    });
    agent.subscribe((event) => {
      if (event.type === "tool_client_request")
        queueMicrotask(() =>
          agent.answerToolCall(
            "a1",
            { content: [{ type: "text", text: "answer" }] },
            isError === undefined ? {} : { isError },
          ),
        );
    });
    await agent.prompt("go");
    expect(resultText(agent)).toEqual({ text: "answer", isError: expected });
  });

  it("continuePastBudget lets the held call go once", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "c1", name: "echo", arguments: { text: "a" } }] },
        { text: "done" },
      ]),
      tools: [echoTool()],
      budget: { maxModelCalls: 1, onExceeded: "pause" },
    });
    agent.subscribe((event) => {
      if (event.type === "budget_exceeded") queueMicrotask(() => agent.continuePastBudget());
    });
    const result = await agent.prompt("go");
    expect(result.stopReason).toBe("stop");
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });

  it("refuses RAISE_BUDGET with a bad limit as an invalid budget, before the pause check", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]) });
    expect(() => agent.raiseBudget({ maxModelCalls: -1 })).toThrow(
      expect.objectContaining({
        name: "BudgetError",
        code: "invalid_budget",
        message: expect.stringMatching(/^RAISE_BUDGET: /),
      }),
    );
  });

  it("a PROMPT sent as a command starts a run the facade follows", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "hi" }]) });
    agent.send({ type: "PROMPT", messages: [user("hello")] });
    expect(agent.isRunning).toBe(true);
    await agent.waitForIdle();
    expect(roles(agent.state.messages)).toEqual(["user", "assistant"]);
  });
});

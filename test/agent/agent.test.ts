import { filter, firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, AssistantMessage } from "../../src/types/messages.js";
import { deferred, echoTool, testModel } from "../support/loop-harness.js";
import { watchProcessFaults } from "../support/process-faults.js";

const roles = (messages: readonly AgentMessage[]) => messages.map((m) => (m as { role: string }).role);
const userTexts = (messages: readonly AgentMessage[]) =>
  messages.flatMap((m) =>
    (m as { role: string }).role === "user" ? [(m as { content: string }).content] : [],
  );

const processFaults = watchProcessFaults();

describe("Agent", () => {
  it("starts with the default state", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]) });
    expect(agent.state).toMatchObject({
      systemPrompt: "",
      thinkingLevel: "off",
      tools: [],
      messages: [],
      isStreaming: false,
      streamingMessage: undefined,
      errorMessage: undefined,
    });
    expect(agent.state.pendingToolCalls.size).toBe(0);
    expect(agent.actor.getSnapshot().value).toBe("idle");
  });

  it("runs a prompt on its one long-lived actor, which returns to idle", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "Hello!" }]),
      systemPrompt: "sys",
    });
    const events: string[] = [];
    agent.subscribe((event) => {
      events.push(event.type);
    });
    const actor = agent.actor;
    await agent.prompt("Hi");
    expect(roles(agent.state.messages)).toEqual(["user", "assistant"]);
    expect(events[0]).toBe("agent_start");
    expect(events.at(-1)).toBe("agent_end");
    expect(agent.actor).toBe(actor);
    expect(actor.getSnapshot()).toMatchObject({ status: "active", value: "idle" });
    expect(agent.state.isStreaming).toBe(false);
  });

  it("rejects prompt and continue while running, with the documented messages", async () => {
    const gate = deferred();
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "ok" }]),
      tools: [echoTool("echo", () => gate.promise)],
    });
    const run = agent.prompt("go");
    await expect(agent.prompt("again")).rejects.toThrow(
      "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.",
    );
    await expect(agent.continue()).rejects.toThrow(
      "Agent is already processing. Wait for completion before continuing.",
    );
    expect(() => agent.reset()).toThrow("Agent is already processing. Wait for completion before resetting.");
    gate.resolve();
    await run;
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  it("resolves prompt only after async agent_end listeners finish; its state follows the machine", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "ok" }]) });
    const listenerDone = deferred();
    let finished = false;
    agent.subscribe(async (event) => {
      if (event.type !== "agent_end") return;
      await listenerDone.promise;
      finished = true;
    });
    let resolved = false;
    const run = agent.prompt("go").then((result) => {
      resolved = true;
      return result;
    });
    const idle = agent.waitForIdle();
    await firstValueFrom(agent.events$.pipe(filter((e) => e.type === "agent_end")));
    // The machine is idle at agent_end, and so is the state; the run's promise waits for the listener.
    expect(agent.actor.getSnapshot().value).toBe("idle");
    expect(agent.state.isStreaming).toBe(false);
    expect(resolved).toBe(false);
    listenerDone.resolve();
    await Promise.all([run, idle]);
    expect(finished).toBe(true);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("reports a throwing listener without breaking the run or the process", async () => {
    const reported: string[] = [];
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "ok" }]),
      onListenerError: (_error, event) => reported.push(event.type),
    });
    agent.subscribe((event) => {
      if (event.type === "message_end") throw new Error("listener bug");
    });
    agent.subscribe(async (event) => {
      if (event.type === "agent_end") throw new Error("async listener bug");
    });
    await agent.prompt("go");
    expect(reported).toEqual(["message_end", "message_end", "agent_end"]);
    expect(roles(agent.state.messages)).toEqual(["user", "assistant"]);
  });

  it("records a provider failure as an assistant error and sets errorMessage", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ throws: "provider exploded" }]) });
    const events: string[] = [];
    agent.subscribe((event) => {
      events.push(event.type);
    });
    await agent.prompt("go");
    expect(events).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "message_start",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    expect(agent.state.errorMessage).toBe("provider exploded");
    expect((agent.state.messages[1] as AssistantMessage).stopReason).toBe("error");
  });

  it("drains steering one at a time by default: each steering message gets its own turn", async () => {
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "after first steer" },
      { text: "after second steer" },
    ]);
    const agent = new Agent({ model: testModel, streamFn, tools: [echoTool()] });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.steer("steer one");
        agent.steer("steer two");
      }
    });
    await agent.prompt("go");
    expect(userTexts(agent.state.messages)).toEqual(["go", "steer one", "steer two"]);
    expect(streamFn.calls.map((c) => c.context.messages.filter((m) => m.role === "user").length)).toEqual([
      1, 2, 3,
    ]);
  });

  it("drains all steering at once in mode all", async () => {
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ model: testModel, streamFn, tools: [echoTool()], steeringMode: "all" });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.steer("a");
        agent.steer("b");
      }
    });
    await agent.prompt("go");
    expect(streamFn.calls).toHaveLength(2);
    expect(userTexts(agent.state.messages)).toEqual(["go", "a", "b"]);
  });

  it("delivers follow-ups when the agent would stop, and continue() runs queued ones from an assistant tail", async () => {
    const streamFn = scriptedModel([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const agent = new Agent({ model: testModel, streamFn });
    agent.followUp("then this");
    expect(agent.state.messages).toHaveLength(0);
    await agent.prompt("first");
    expect(userTexts(agent.state.messages)).toEqual(["first", "then this"]);
    agent.followUp("later");
    await agent.continue();
    expect(userTexts(agent.state.messages)).toEqual(["first", "then this", "later"]);
    await expect(agent.continue()).rejects.toThrow("Cannot continue from message role: assistant");
  });

  it("aborts a run, keeps queued messages queued, and is a no-op when idle", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "long", hang: true }, { text: "next" }]),
    });
    agent.abort();
    const signals: AbortSignal[] = [];
    agent.subscribe((event, signal) => {
      signals.push(signal);
      if (event.type === "message_update") {
        agent.followUp("queued");
        agent.abort();
      }
    });
    await agent.prompt("go");
    expect((agent.state.messages[1] as AssistantMessage).stopReason).toBe("aborted");
    expect(signals.at(-1)?.aborted).toBe(true);
    expect(agent.queued.followUp).toHaveLength(1);
    await agent.continue();
    expect(userTexts(agent.state.messages)).toEqual(["go", "queued"]);
  });

  it("approves and denies tool calls by id, and refuses unknown ids", async () => {
    const tool = { ...echoTool("danger"), requiresApproval: true };
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "danger", arguments: { text: "a" }, id: "yes" },
          { name: "danger", arguments: { text: "b" }, id: "no" },
        ],
      },
      { text: "ok" },
    ]);
    const agent = new Agent({ model: testModel, streamFn, tools: [tool] });
    agent.subscribe((event) => {
      if (event.type !== "tool_approval_request") return;
      expect(() => agent.approveToolCall("missing")).toThrow(
        'APPROVE_TOOL: no tool call "missing" is awaiting approval',
      );
      if (event.toolCallId === "yes") agent.approveToolCall("yes");
      else agent.denyToolCall("no", "nope");
    });
    await agent.prompt("go");
    const results = agent.state.messages.filter((m) => (m as { role: string }).role === "toolResult") as {
      toolCallId: string;
      isError: boolean;
    }[];
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["yes", false],
      ["no", true],
    ]);
  });

  it("applies setters made during a run to the next request", async () => {
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ model: testModel, streamFn, tools: [echoTool()] });
    const otherModel = { ...testModel, id: "other" };
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.setModel(otherModel);
        agent.setThinkingLevel("medium");
        agent.setSystemPrompt("new prompt");
      }
    });
    await agent.prompt("go");
    expect(streamFn.calls[1]?.model.id).toBe("other");
    expect(streamFn.calls[1]?.options.reasoning).toBe("medium");
    expect(streamFn.calls[1]?.context.systemPrompt).toBe("new prompt");
  });

  it("publishes state changes on state$ and every event on events$", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "ok" }]) });
    const streaming: boolean[] = [];
    const types: AgentEvent["type"][] = [];
    agent.state$.subscribe((state) => streaming.push(state.isStreaming));
    agent.events$.subscribe((event) => types.push(event.type));
    await agent.prompt("go");
    expect(streaming[0]).toBe(false);
    expect(streaming).toContain(true);
    expect(streaming.at(-1)).toBe(false);
    expect(types).toContain("message_update");
  });

  it("resets the transcript and queues when idle", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "ok" }]) });
    await agent.prompt("go");
    agent.steer("pending");
    agent.reset();
    expect(agent.state.messages).toEqual([]);
    expect(agent.queued.steering).toEqual([]);
  });

  it("builds a user message with images", async () => {
    const streamFn = scriptedModel([{ text: "nice picture" }]);
    const agent = new Agent({ model: testModel, streamFn });
    await agent.prompt("look", { images: [{ type: "image", data: "aGk=", mimeType: "image/png" }] });
    expect(streamFn.calls[0]?.context.messages[0]).toMatchObject({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image", data: "aGk=", mimeType: "image/png" },
      ],
    });
  });

  it("saw no unhandled rejection or uncaught exception in this file", () => {
    expect(processFaults).toEqual([]);
  });
});

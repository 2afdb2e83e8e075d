import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { agentLoop } from "../../src/agent/agent-loop.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage } from "../../src/types/messages.js";
import { deferred, echoTool, emptyContext, testModel, user } from "../support/loop-harness.js";

// Regressions: an abort requested synchronously inside a callback or listener takes effect before
// the loop decides anything else; queued messages are delivered one turn each and never lost.

const contentOf = (message: AgentMessage) => (message as { content?: unknown }).content;
const texts = (messages: readonly AgentMessage[]) => messages.map(contentOf);

describe("abort inside a listener or callback", () => {
  it("R1: steer then abort in the first assistant message_end: no further call, the steer stays queued", async () => {
    const streamFn = scriptedModel([{ text: "first" }, { text: "second" }]);
    const agent = new Agent({ model: testModel, streamFn });
    let done = false;
    agent.subscribe((event) => {
      if (done || event.type !== "message_end" || (event.message as { role: string }).role !== "assistant")
        return;
      done = true;
      agent.steer("later");
      agent.abort();
    });
    await agent.prompt("go");
    expect(streamFn.calls).toHaveLength(1);
    expect(texts(agent.queued.steering)).toEqual(["later"]);
  });

  it("R2: a synchronous prepareNextTurn that aborts: one call, the follow-up stays queued", async () => {
    const streamFn = scriptedModel([{ text: "first" }, { text: "second" }]);
    let agent!: Agent;
    agent = new Agent({
      model: testModel,
      streamFn,
      prepareNextTurn: () => {
        agent.abort();
        return undefined;
      },
    });
    agent.subscribe((event) => {
      if (event.type === "turn_end") agent.followUp("queued");
    });
    await agent.prompt("go");
    expect(streamFn.calls).toHaveLength(1);
    expect(texts(agent.queued.followUp)).toEqual(["queued"]);
  });

  it("R2 (agentLoop): a signal aborted inside the subscriber stops the run before the follow-up poll", async () => {
    const streamFn = scriptedModel([{ text: "first" }, { text: "second" }]);
    const controller = new AbortController();
    const followUps = [user("queued")];
    const restored: AgentMessage[] = [];
    const events: AgentEvent[] = [];
    const run = agentLoop([user("go")], emptyContext(), {
      model: testModel,
      streamFn,
      signal: controller.signal,
      getFollowUpMessages: () => followUps.splice(0),
      restoreQueuedMessages: (_queue, messages) => restored.push(...messages),
    });
    await new Promise<void>((resolve) =>
      run.subscribe({
        next: (event) => {
          events.push(event);
          if (event.type === "turn_end") controller.abort();
        },
        complete: resolve,
      }),
    );
    expect(streamFn.calls).toHaveLength(1);
    expect([...followUps, ...restored].map(contentOf)).toEqual(["queued"]);
    expect(events.at(-1)?.type).toBe("agent_end");
  });

  it("R5: steering mode all, abort in the message_end of the first steer: none injected after it, no call", async () => {
    const gate = deferred();
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "never" },
    ]);
    const agent = new Agent({
      model: testModel,
      streamFn,
      tools: [echoTool("echo", () => gate.promise)],
      steeringMode: "all",
    });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.steer("accepted");
        agent.steer("pending");
        gate.resolve();
      }
      if (event.type === "message_end" && contentOf(event.message) === "accepted") agent.abort();
    });
    await agent.prompt("go");
    expect(streamFn.calls).toHaveLength(1);
    expect(texts(agent.state.messages)).toContain("accepted");
    expect(texts(agent.state.messages)).not.toContain("pending");
    expect(texts(agent.queued.steering)).toEqual(["pending"]);
  });
});

describe("queues", () => {
  it("R3: continue() after an assistant tail runs one steering message per turn (one-at-a-time)", async () => {
    const streamFn = scriptedModel([{ text: "a1" }, { text: "a2" }]);
    const agent = new Agent({
      model: testModel,
      streamFn,
      messages: [user("earlier"), { ...(await firstReply()), content: [{ type: "text", text: "reply" }] }],
    });
    agent.steer("S1");
    agent.steer("S2");
    await agent.continue();
    expect(streamFn.calls).toHaveLength(2);
    const userTurns = streamFn.calls.map(
      (call) => call.context.messages.filter((m) => m.role === "user").length,
    );
    expect(userTurns).toEqual([2, 3]);
    expect(agent.queued.steering).toEqual([]);
  });

  it("R4: sequential tools, steering between tools, async poll: the next tool is skipped, never run", async () => {
    const ran: string[] = [];
    const counting = defineTool({
      name: "echo",
      description: "Echoes its text",
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        ran.push(text);
        return { content: [{ type: "text", text }] };
      },
    });
    const steering = [user("stop please")];
    let polls = 0;
    const events = await lastValueFrom(
      agentLoop([user("go")], emptyContext({ tools: [counting] }), {
        model: testModel,
        streamFn: scriptedModel([
          {
            toolCalls: [
              { name: "echo", arguments: { text: "one" }, id: "c1" },
              { name: "echo", arguments: { text: "two" }, id: "c2" },
            ],
          },
          { text: "ok" },
        ]),
        toolExecution: "sequential",
        steering: "betweenTools",
        // Async: answers after the first tool settled, with a message on the second poll (after c1).
        getSteeringMessages: async () => (++polls === 2 ? steering.splice(0) : []),
      }).pipe(toArray()),
    );
    expect(ran).toEqual(["one"]);
    const c2 = events.find((e) => e.type === "tool_execution_end" && e.toolCallId === "c2");
    expect(JSON.stringify(c2)).toContain("skipped");
  });
});

describe("stream options", () => {
  it("the StreamFn receives only stream options, and sessionId can change between prompts", async () => {
    const streamFn = scriptedModel([{ text: "one" }, { text: "two" }]);
    const agent = new Agent({
      model: testModel,
      streamFn,
      systemPrompt: "sys",
      messages: [],
      steeringMode: "all",
      onListenerError: () => undefined,
      sessionId: "a",
      apiKey: "k",
    });
    await agent.prompt("one");
    agent.setStreamOptions({ sessionId: "b" });
    await agent.prompt("two");
    const [first, second] = streamFn.calls.map((call) => call.options);
    expect(Object.keys(first!).sort()).toEqual(["apiKey", "sessionId", "signal"]);
    expect(first!.sessionId).toBe("a");
    expect(second!.sessionId).toBe("b");
    expect(JSON.stringify(agent.persist())).not.toContain('"k"');
  });
});

/** An assistant message as the scripted model makes it. */
async function firstReply() {
  const events = await lastValueFrom(
    agentLoop([user("x")], emptyContext(), {
      model: testModel,
      streamFn: scriptedModel([{ text: "reply" }]),
    }).pipe(toArray()),
  );
  const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
  return end.messages.at(-1) as Extract<AgentMessage, { role: "assistant" }>;
}

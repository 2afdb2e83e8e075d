/**
 * The loop's functions on their own: `createAgentLoopActor` (the machine input it builds from a loop
 * context and config, the abort signal it follows) and the cold Observables `agentLoop` and
 * `agentLoopContinue` (a run per subscription, completion at the root's `agent_end`, abort on
 * unsubscribe).
 */
import { firstValueFrom, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import type { InspectionEvent } from "xstate";
import { z } from "zod";
import { agentLoop, agentLoopContinue, createAgentLoopActor } from "../../src/agent/agent-loop.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import { deferred, echoTool, emptyContext, testModel, user } from "../support/loop-harness.js";

/** A tool that reports its start and resolves `aborted` when its signal aborts; it never ends by itself. */
function waitingTool() {
  const started = deferred();
  const aborted = deferred();
  const tool = defineTool({
    name: "wait",
    description: "Waits",
    parameters: z.object({}),
    execute: (_args, ctx) =>
      new Promise<never>((_resolve, reject) => {
        ctx.signal?.addEventListener("abort", () => {
          aborted.resolve();
          reject(new Error("aborted"));
        });
        started.resolve();
      }),
  });
  return { tool, started: started.promise, aborted: aborted.promise };
}

const waitCall = { toolCalls: [{ id: "w1", name: "wait", arguments: {} }] };

describe("createAgentLoopActor", () => {
  it("builds the machine's input from the context, with the loop's defaults", () => {
    const hi = user("hi");
    const actor = createAgentLoopActor(
      { systemPrompt: "loop", messages: [hi], tools: [echoTool(), echoTool("other")] },
      { model: testModel, streamFn: scriptedModel([]) },
    );
    const { context } = actor.getSnapshot();
    expect(context).toMatchObject({
      model: testModel,
      systemPrompt: "loop",
      thinkingLevel: "off",
      toolNames: ["echo", "other"],
      messages: [hi],
    });
    expect(context.settings).toMatchObject({
      toolExecution: "parallel",
      steering: "afterToolBatch",
      maxTurns: undefined,
    });
  });

  it("takes the config's thinking level, tool execution, steering and turn limit", () => {
    const actor = createAgentLoopActor(emptyContext(), {
      model: testModel,
      streamFn: scriptedModel([]),
      thinkingLevel: "high",
      toolExecution: "sequential",
      steering: "betweenTools",
      maxTurns: 3,
    });
    const { context } = actor.getSnapshot();
    expect(context.thinkingLevel).toBe("high");
    expect(context.settings).toMatchObject({
      toolExecution: "sequential",
      steering: "betweenTools",
      maxTurns: 3,
    });
  });

  it("passes the inspector on", () => {
    const inspected: InspectionEvent[] = [];
    const actor = createAgentLoopActor(emptyContext(), {
      model: testModel,
      streamFn: scriptedModel([]),
      inspect: (event) => inspected.push(event),
    });
    actor.start();
    actor.stop();
    expect(inspected.some((event) => event.type === "@xstate.actor")).toBe(true);
  });

  it("aborts the run when the signal aborts, and stops listening to it once the actor stops", async () => {
    const { tool, started, aborted } = waitingTool();
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, "removeEventListener");
    const actor = createAgentLoopActor(emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn: scriptedModel([waitCall, { text: "after the abort" }]),
      signal: controller.signal,
    });
    const ended = deferred<AgentEvent>();
    actor.on("agent_end", (event) => ended.resolve(event));
    actor.start();
    actor.send({ type: "PROMPT", messages: [user("go")] });
    await started;
    controller.abort();
    await aborted;
    expect(await ended.promise).toMatchObject({ type: "agent_end", stopReason: "aborted" });
    expect(removed).not.toHaveBeenCalledWith("abort", expect.anything());
    actor.stop();
    expect(removed).toHaveBeenCalledWith("abort", expect.any(Function));
  });

  it("ends a run at its start when the signal was aborted before it", async () => {
    const controller = new AbortController();
    controller.abort();
    const streamFn = scriptedModel([{ text: "never asked" }]);
    const actor = createAgentLoopActor(emptyContext(), {
      model: testModel,
      streamFn,
      signal: controller.signal,
    });
    const ended = deferred<AgentEvent>();
    actor.on("agent_end", (event) => ended.resolve(event));
    actor.start();
    actor.send({ type: "PROMPT", messages: [user("go")] });
    expect(await ended.promise).toMatchObject({ stopReason: "aborted" });
    expect(streamFn.calls).toHaveLength(0);
    actor.stop();
  });
});

describe("agentLoop", () => {
  it("runs once per subscription and completes right after the root's agent_end", async () => {
    const streamFn = scriptedModel([{ text: "one" }, { text: "two" }]);
    const hi = user("hi");
    const run = agentLoop([hi], emptyContext(), { model: testModel, streamFn });
    expect(streamFn.calls).toHaveLength(0);
    const first = await lastValueFrom(run.pipe(toArray()));
    expect(first[0]!.type).toBe("agent_start");
    expect(first.at(-1)!.type).toBe("agent_end");
    const second = await lastValueFrom(run.pipe(toArray()));
    expect(second.at(-1)).toMatchObject({ type: "agent_end", messages: [hi, expect.anything()] });
    expect(streamFn.calls).toHaveLength(2);
  });

  it("goes on past a sub-agent's agent_end", async () => {
    const helper = defineAgentTool({
      name: "helper",
      description: "Helps",
      agent: { systemPrompt: "You help.", streamFn: scriptedModel([{ text: "helped" }]) },
    });
    const events = await lastValueFrom(
      agentLoop([user("hi")], emptyContext({ tools: [helper] }), {
        model: testModel,
        streamFn: scriptedModel([
          { toolCalls: [{ id: "h1", name: "helper", arguments: { task: "t" } }] },
          { text: "root done" },
        ]),
      }).pipe(toArray()),
    );
    const ends = events.filter((event) => event.type === "agent_end");
    expect(ends.map((event) => event.agentPath)).toEqual([["h1"], undefined]);
    expect(events.at(-1)).toBe(ends[1]);
  });

  it("aborts the run when unsubscribed before its end", async () => {
    const { tool, started, aborted } = waitingTool();
    const subscription = agentLoop([user("go")], emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn: scriptedModel([waitCall]),
    }).subscribe();
    await started;
    subscription.unsubscribe();
    await aborted;
  });

  it("sends ABORT (seen by an inspector) when unsubscribed before the end, and nothing after the end", async () => {
    const aborts = (inspected: InspectionEvent[]) =>
      inspected.filter((event) => event.type === "@xstate.event" && event.event.type === "ABORT").length;
    const cut: InspectionEvent[] = [];
    const { tool, started } = waitingTool();
    const subscription = agentLoop([user("go")], emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn: scriptedModel([waitCall]),
      inspect: (event) => cut.push(event),
    }).subscribe();
    await started;
    expect(aborts(cut)).toBe(0);
    subscription.unsubscribe();
    expect(aborts(cut)).toBeGreaterThan(0);

    const finished: InspectionEvent[] = [];
    await lastValueFrom(
      agentLoop([user("hi")], emptyContext(), {
        model: testModel,
        streamFn: scriptedModel([{ text: "done" }]),
        inspect: (event) => finished.push(event),
      }),
    );
    expect(finished.some((event) => event.type === "@xstate.event" && event.event.type === "PROMPT")).toBe(
      true,
    );
    expect(aborts(finished)).toBe(0);
  });
});

describe("agentLoopContinue", () => {
  it("asks the model again from a context that ends with a user message", async () => {
    const streamFn = scriptedModel([{ text: "answer" }]);
    const question = user("question");
    const end = await lastValueFrom(
      agentLoopContinue(emptyContext({ messages: [question] }), { model: testModel, streamFn }),
    );
    expect(end).toMatchObject({ type: "agent_end" });
    expect(streamFn.calls[0]!.context.messages).toEqual([question]);
  });

  it("throws at once for an empty context, before any run", () => {
    const streamFn = scriptedModel([]);
    expect(() => agentLoopContinue(emptyContext(), { model: testModel, streamFn })).toThrow(
      "Cannot continue: no messages in context",
    );
    expect(streamFn.calls).toHaveLength(0);
  });

  it("sends no prompt: the first event is the run's start, then the request", async () => {
    const streamFn = scriptedModel([{ text: "answer" }]);
    const first = await firstValueFrom(
      agentLoopContinue(emptyContext({ messages: [user("question")] }), { model: testModel, streamFn }),
    );
    expect(first.type).toBe("agent_start");
  });
});

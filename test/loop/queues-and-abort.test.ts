import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/agent/agent-loop.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/types/messages.js";
import {
  deferred,
  describeEvents,
  echoTool,
  emptyContext,
  runToEnd,
  testModel,
  user,
} from "../support/loop-harness.js";

const roles = (messages: readonly AgentMessage[] | undefined) =>
  messages?.map((m) => (m as { role: string }).role);
const endMessages = (events: AgentEvent[]) => {
  const end = events.at(-1);
  return end?.type === "agent_end" ? end.messages : undefined;
};

describe("steering and follow-ups", () => {
  it("injects steering only after the whole tool batch (default policy) and shows it to the next request", async () => {
    const queue: AgentMessage[] = [];
    const first = echoTool("first", async () => {
      queue.push(user("change of plan"));
    });
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "first", arguments: { text: "1" } },
          { name: "echo", arguments: { text: "2" } },
        ],
      },
      { text: "adapted" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [first, echoTool()] }), {
      model: testModel,
      streamFn,
      toolExecution: "sequential",
      getSteeringMessages: () => queue.splice(0),
    });
    const results = events.filter((e) => e.type === "tool_execution_end");
    expect(results.every((e) => e.type === "tool_execution_end" && !e.isError)).toBe(true);
    expect(roles(endMessages(events))).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "user",
      "assistant",
    ]);
    expect(roles(streamFn.calls[1]?.context.messages)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "user",
    ]);
  });

  it("skips the remaining calls when steering arrives between tools (policy betweenTools)", async () => {
    const queue: AgentMessage[] = [];
    const first = echoTool("first", async () => {
      queue.push(user("stop that"));
    });
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "first", arguments: { text: "1" }, id: "a" },
          { name: "echo", arguments: { text: "2" }, id: "b" },
          { name: "echo", arguments: { text: "3" }, id: "c" },
        ],
      },
      { text: "ok" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [first, echoTool()] }), {
      model: testModel,
      streamFn,
      toolExecution: "sequential",
      steering: "betweenTools",
      getSteeringMessages: () => queue.splice(0),
    });
    const results = events.flatMap((e) =>
      e.type === "message_end" && (e.message as ToolResultMessage).role === "toolResult"
        ? [e.message as ToolResultMessage]
        : [],
    );
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["a", false],
      ["b", true],
      ["c", true],
    ]);
    expect(results[1]?.content[0]).toEqual({
      type: "text",
      text: "Tool call skipped: the user sent a new message",
    });
    expect(roles(streamFn.calls[1]?.context.messages)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "toolResult",
      "user",
    ]);
  });

  it("polls steering at run start and injects it right after the prompt", async () => {
    const queue = [user("also this")];
    const streamFn = scriptedModel([{ text: "ok" }]);
    await runToEnd([user("go")], emptyContext(), {
      model: testModel,
      streamFn,
      getSteeringMessages: () => queue.splice(0),
    });
    expect(roles(streamFn.calls[0]?.context.messages)).toEqual(["user", "user"]);
  });

  it("polls follow-ups only when the loop would stop, each in a new turn of the same run", async () => {
    const followUps = [user("one more"), user("and another")];
    let polls = 0;
    const streamFn = scriptedModel([{ text: "a" }, { text: "b" }, { text: "c" }]);
    const events = await runToEnd([user("go")], emptyContext(), {
      model: testModel,
      streamFn,
      getFollowUpMessages: () => {
        polls++;
        return followUps.splice(0, 1);
      },
    });
    expect(polls).toBe(3);
    expect(events.filter((e) => e.type === "agent_start")).toHaveLength(1);
    expect(events.filter((e) => e.type === "turn_start")).toHaveLength(3);
    expect(roles(endMessages(events))).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("stops after shouldStopAfterTurn without polling queues again", async () => {
    let steeringPolls = 0;
    let followUpPolls = 0;
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "never" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
      shouldStopAfterTurn: () => true,
      getSteeringMessages: () => {
        steeringPolls++;
        return [];
      },
      getFollowUpMessages: () => {
        followUpPolls++;
        return [];
      },
    });
    expect([streamFn.calls.length, steeringPolls, followUpPolls]).toEqual([1, 1, 0]);
    expect(events.at(-1)?.type).toBe("agent_end");
  });

  it("uses the context returned by prepareNextTurn for the next request", async () => {
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "ok" },
    ]);
    await runToEnd([user("go")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
      prepareNextTurn: ({ context }) => ({
        context: { ...context, systemPrompt: "second prompt" },
        thinkingLevel: "low",
      }),
    });
    expect(streamFn.calls[1]?.context.systemPrompt).toBe("second prompt");
    expect(streamFn.calls[1]?.options.reasoning).toBe("low");
  });

  it("ends the run after maxTurns without an error", async () => {
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "1" } }] },
      { toolCalls: [{ name: "echo", arguments: { text: "2" } }] },
      { text: "never" },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [echoTool()] }), {
      model: testModel,
      streamFn,
      maxTurns: 2,
    });
    expect(streamFn.calls).toHaveLength(2);
    const assistants = endMessages(events)?.filter(
      (m) => (m as AssistantMessage).role === "assistant",
    ) as AssistantMessage[];
    expect(assistants.every((m) => m.stopReason === "toolUse")).toBe(true);
  });
});

describe("abort", () => {
  it("aborts mid-stream: keeps the partial reply, makes no further call, completes the observable", async () => {
    const controller = new AbortController();
    const streamFn = scriptedModel([
      { text: "a long reply that will be cut", deltas: 10, hang: true },
      { text: "never" },
    ]);
    const events: AgentEvent[] = [];
    await new Promise<void>((resolve) => {
      agentLoop([user("go")], emptyContext(), {
        model: testModel,
        streamFn,
        signal: controller.signal,
      }).subscribe({
        next: (event) => {
          events.push(event);
          if (event.type === "message_update" && event.assistantMessageEvent.type === "text_end")
            controller.abort();
        },
        complete: resolve,
      });
    });
    const reply = endMessages(events)?.[1] as AssistantMessage;
    expect(reply.stopReason).toBe("aborted");
    expect(reply.content[0]).toEqual({ type: "text", text: "a long reply that will be cut" });
    expect(describeEvents(events).slice(-3)).toEqual(["message_end(assistant)", "turn_end", "agent_end"]);
    expect(streamFn.calls).toHaveLength(1);
  });

  it("aborts a StreamFn that ignores its signal", async () => {
    const controller = new AbortController();
    const streamFn = () =>
      (async function* () {
        await new Promise(() => {});
      })();
    const run = runToEnd([user("go")], emptyContext(), {
      model: testModel,
      streamFn,
      signal: controller.signal,
    });
    controller.abort();
    const events = await run;
    const reply = endMessages(events)?.[1] as AssistantMessage;
    expect(reply.stopReason).toBe("aborted");
  });

  it("aborts mid-tool: every call gets a result, tools see the signal, no further model call", async () => {
    const controller = new AbortController();
    const started = deferred();
    const signals: AbortSignal[] = [];
    const hanging = echoTool("hang", () => new Promise<void>(() => {}));
    const watched = {
      ...hanging,
      execute: (args: { text: string }, ctx: Parameters<typeof hanging.execute>[1]) => {
        signals.push(ctx.signal);
        if (signals.length === 2) started.resolve();
        return hanging.execute(args, ctx);
      },
    };
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "hang", arguments: { text: "1" }, id: "a" },
          { name: "hang", arguments: { text: "2" }, id: "b" },
        ],
      },
      { text: "never" },
    ]);
    const run = runToEnd([user("go")], emptyContext({ tools: [watched] }), {
      model: testModel,
      streamFn,
      signal: controller.signal,
    });
    await started.promise;
    controller.abort();
    const events = await run;
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(streamFn.calls).toHaveLength(1);
    expect(describeEvents(events).slice(-8)).toEqual([
      "tool_execution_end(a)",
      "tool_execution_end(b)",
      "message_start(toolResult)",
      "message_end(toolResult)",
      "message_start(toolResult)",
      "message_end(toolResult)",
      "turn_end",
      "agent_end",
    ]);
    const results = endMessages(events)?.filter(
      (m) => (m as ToolResultMessage).role === "toolResult",
    ) as ToolResultMessage[];
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["a", true],
      ["b", true],
    ]);
  });

  it("answers not-yet-started sequential calls on abort too", async () => {
    const controller = new AbortController();
    const first = echoTool("first", async () => {
      controller.abort();
      await new Promise<void>(() => {});
    });
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "first", arguments: { text: "1" }, id: "a" },
          { name: "echo", arguments: { text: "2" }, id: "b" },
        ],
      },
    ]);
    const events = await runToEnd([user("go")], emptyContext({ tools: [first, echoTool()] }), {
      model: testModel,
      streamFn,
      signal: controller.signal,
      toolExecution: "sequential",
    });
    const starts = events.filter((e) => e.type === "tool_execution_start").length;
    const ends = events.filter((e) => e.type === "tool_execution_end").length;
    expect([starts, ends]).toEqual([2, 2]);
    expect(roles(endMessages(events))).toEqual(["user", "assistant", "toolResult", "toolResult"]);
  });

  it("aborts when the subscriber unsubscribes", async () => {
    const toolSignal = deferred<AbortSignal>();
    const tool = echoTool("echo");
    const watched = {
      ...tool,
      execute: (_args: { text: string }, ctx: { signal: AbortSignal }) => {
        toolSignal.resolve(ctx.signal);
        return new Promise<never>(() => {});
      },
    };
    const streamFn = scriptedModel([{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }]);
    const subscription = agentLoop([user("go")], emptyContext({ tools: [watched as never] }), {
      model: testModel,
      streamFn,
    }).subscribe();
    const signal = await toolSignal.promise;
    subscription.unsubscribe();
    expect(signal.aborted).toBe(true);
  });

  it("ends at once when the signal is already aborted, without calling the model", async () => {
    const streamFn = scriptedModel([{ text: "never" }]);
    const events = await runToEnd([user("go")], emptyContext(), {
      model: testModel,
      streamFn,
      signal: AbortSignal.abort(),
    });
    expect(streamFn.calls).toHaveLength(0);
    expect(events.at(0)?.type).toBe("agent_start");
    expect(events.at(-1)?.type).toBe("agent_end");
  });

  it("gives drained queue messages back when an abort lands while they are polled", async () => {
    const controller = new AbortController();
    const restored = deferred<AgentMessage[]>();
    const streamFn = scriptedModel([{ text: "a" }, { text: "never" }]);
    const events = await runToEnd([user("go")], emptyContext(), {
      model: testModel,
      streamFn,
      signal: controller.signal,
      getFollowUpMessages: async () => {
        controller.abort();
        return [user("later")];
      },
      restoreQueuedMessages: (queue, messages) => restored.resolve(queue === "followUp" ? messages : []),
    });
    expect(streamFn.calls).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("agent_end");
    // The poll was still running when the run ended; its messages come back when it returns.
    expect(roles(await restored.promise)).toEqual(["user"]);
  });
});

describe("abort racing an async decision", () => {
  it("returns drained steering to its queue when the abort lands just after the poll answered", async () => {
    const controller = new AbortController();
    const restored = deferred<AgentMessage[]>();
    const streamFn = scriptedModel([{ text: "a" }, { text: "never" }]);
    const steering = user("late steer");
    let polls = 0;
    const events = await runToEnd([user("go")], emptyContext(), {
      model: testModel,
      streamFn,
      signal: controller.signal,
      getSteeringMessages: () => {
        polls++;
        if (polls === 1) return [];
        const answer = Promise.resolve([steering]);
        // One tick after the poll answers: the decision is made but not yet delivered to the loop.
        answer.then(() => undefined).then(() => controller.abort());
        return answer;
      },
      restoreQueuedMessages: (queue, messages) => restored.resolve(queue === "steering" ? messages : []),
    });
    expect(streamFn.calls).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("agent_end");
    expect(await restored.promise).toEqual([steering]);
  });
});

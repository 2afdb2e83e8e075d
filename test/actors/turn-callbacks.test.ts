/**
 * The `turnCallbacks` actor on its own, invoked by a tiny parent that records what it sends back (as
 * `preparingTurn.deciding` spawns it), and the two provided actions of the same file: `pollSteering`
 * and `returnQueuedMessages`. The callbacks run in pi's order, an answer is `DECIDED` or
 * `DECISION_FAILED`, and a stop before the answer aborts them and hands drained messages back.
 */
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  pollSteering,
  returnQueuedMessages,
  turnCallbacksActor,
} from "../../src/actors/turn-callbacks.actor.js";
import { beginRun } from "../../src/loop/run-steps.js";
import type { AgentMachineContext, RunState } from "../../src/machines/agent/agent.context.js";
import type { DecisionEvent } from "../../src/machines/agent/agent.events.js";
import type { AgentMachineOptions } from "../../src/machines/agent/agent.implementations.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { TurnEndContext } from "../../src/types/loop.js";
import type { AgentMessage, ToolResultMessage } from "../../src/types/messages.js";
import type { Model } from "../../src/types/model.js";
import { flushJobs, implementationsOf, recordingParent } from "../support/actor-harness-a.js";
import { assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { testModel, user } from "../support/loop-harness.js";

const toolOf = (name: string) =>
  defineTool({ name, description: name, parameters: z.object({}), execute: async () => ({ content: [] }) });
const lookup = toolOf("lookup");
const reply = assistant([{ type: "text", text: "Done." }], "stop");
const toolResult: ToolResultMessage = {
  role: "toolResult",
  toolCallId: "c1",
  toolName: "lookup",
  content: [{ type: "text", text: "found" }],
  isError: false,
  timestamp: 1,
};
const transcript: AgentMessage[] = [user("hello"), reply];
const otherModel: Model = { ...testModel, id: "scripted-2" };
const steer = user("steer");
const followUp = user("follow up");

/** A context at the start of a run (no turn yet), `run` applied. */
function atRunStart(
  run: Partial<RunState> = {},
  patch: Partial<AgentMachineContext> = {},
): AgentMachineContext {
  const started = beginRun(
    idleContext({
      systemPrompt: "Be brief.",
      messages: transcript,
      toolNames: ["lookup", "missing"],
      ...patch,
    }),
    [],
    false,
  ).context;
  return deepFreeze({ ...started, run: { ...started.run!, ...run } });
}

/** A context after the run's first turn: it ended with `reply` and no call wants a reply. */
function afterTurn(
  run: Partial<RunState> = {},
  patch: Partial<AgentMachineContext> = {},
): AgentMachineContext {
  return atRunStart(
    { lastTurn: { message: reply, toolResults: [toolResult] }, turns: 1, newMessages: [reply], ...run },
    patch,
  );
}

/** Starts the actor built from `options` under a recording parent, for `context`. */
function decide(options: Partial<AgentMachineOptions>, context: AgentMachineContext) {
  const implementations = implementationsOf({ tools: [lookup], ...options });
  const parent = recordingParent(turnCallbacksActor(implementations), { context });
  return { parent, implementations };
}

/** A promise the test settles later. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const noExternal = { steering: [], followUp: [] };

describe("the turnCallbacks actor", () => {
  it("at run start polls the steering source only, without the turn callbacks", async () => {
    const prepareNextTurn = vi.fn();
    const shouldStopAfterTurn = vi.fn(() => true);
    const getFollowUpMessages = vi.fn(() => [followUp]);
    const { parent } = decide(
      { prepareNextTurn, shouldStopAfterTurn, getSteeringMessages: () => [steer], getFollowUpMessages },
      atRunStart(),
    );
    expect(await parent.answer()).toStrictEqual({
      type: "DECIDED",
      decision: { stop: false, external: { steering: [steer], followUp: [] } },
    });
    expect(prepareNextTurn).not.toHaveBeenCalled();
    expect(shouldStopAfterTurn).not.toHaveBeenCalled();
    expect(getFollowUpMessages).not.toHaveBeenCalled();
  });

  it("runs no callback in the turn it was started in (an abort sent there acts first)", async () => {
    const getSteeringMessages = vi.fn(() => [steer]);
    const { parent } = decide({ getSteeringMessages }, atRunStart());
    expect(getSteeringMessages).not.toHaveBeenCalled();
    await flushJobs();
    expect(getSteeringMessages).toHaveBeenCalledOnce();
    expect(parent.received()).toHaveLength(1);
  });

  it("after a turn gives prepareNextTurn the turn's end: reply, results, active tools, new messages", async () => {
    const prepareNextTurn = vi.fn(() => undefined);
    const shouldStopAfterTurn = vi.fn(() => false);
    const { parent } = decide({ prepareNextTurn, shouldStopAfterTurn }, afterTurn());
    expect(await parent.answer()).toStrictEqual({
      type: "DECIDED",
      decision: { stop: false, external: noExternal },
    });
    const turnEnd = {
      message: reply,
      toolResults: [toolResult],
      context: { systemPrompt: "Be brief.", messages: transcript, tools: [lookup] },
      newMessages: [reply],
    };
    expect(prepareNextTurn).toHaveBeenCalledWith(turnEnd);
    expect(shouldStopAfterTurn).toHaveBeenCalledWith(turnEnd);
  });

  it("decides the model and thinking level prepareNextTurn asks for", async () => {
    const { parent } = decide(
      { prepareNextTurn: () => ({ model: otherModel, thinkingLevel: "high" }) },
      afterTurn({ toolsWantReply: true }),
    );
    expect(await parent.answer()).toStrictEqual({
      type: "DECIDED",
      decision: { stop: false, model: otherModel, thinkingLevel: "high", external: noExternal },
    });
  });

  it("a replaced context is decided as data, its new tools registered and the known ones kept", async () => {
    const otherLookup = toolOf("lookup");
    const search = toolOf("search");
    const messages = [user("summary")];
    const shouldStopAfterTurn = vi.fn((_: TurnEndContext) => false);
    const { parent, implementations } = decide(
      {
        prepareNextTurn: () => ({
          context: { systemPrompt: "New.", messages, tools: [otherLookup, search] },
        }),
        shouldStopAfterTurn,
      },
      afterTurn({ toolsWantReply: true }),
    );
    const event = await parent.answer();
    expect(event).toStrictEqual({
      type: "DECIDED",
      decision: {
        stop: false,
        context: { systemPrompt: "New.", messages, toolNames: ["lookup", "search"] },
        external: noExternal,
      },
    });
    expect((event as DecisionEvent & { type: "DECIDED" }).decision.context?.messages).not.toBe(messages);
    expect(implementations.tools.get("search")).toBe(search);
    expect(implementations.tools.get("lookup")).toBe(lookup);
    expect(shouldStopAfterTurn.mock.calls[0]?.[0].context).toStrictEqual({
      systemPrompt: "New.",
      messages,
      tools: [otherLookup, search],
    });
  });

  it("shouldStopAfterTurn saying stop decides a stop, keeping the update and polling nothing", async () => {
    const getSteeringMessages = vi.fn(() => [steer]);
    const { parent } = decide(
      {
        prepareNextTurn: () => ({ model: otherModel }),
        shouldStopAfterTurn: () => true,
        getSteeringMessages,
      },
      afterTurn(),
    );
    expect(await parent.answer()).toStrictEqual({
      type: "DECIDED",
      decision: { stop: true, model: otherModel, external: noExternal },
    });
    expect(getSteeringMessages).not.toHaveBeenCalled();
  });

  it.each([
    [2, 2, true],
    [3, 2, true],
    [1, 2, false],
    [5, undefined, false],
  ])("after %i turns with maxTurns %s the decision is stop: %s", async (turns, maxTurns, stop) => {
    const getSteeringMessages = vi.fn(() => []);
    const { parent } = decide(
      { getSteeringMessages },
      afterTurn({ turns, toolsWantReply: true }, { settings: { ...idleContext().settings, maxTurns } }),
    );
    expect(await parent.answer()).toStrictEqual({
      type: "DECIDED",
      decision: { stop, external: noExternal },
    });
    expect(getSteeringMessages).toHaveBeenCalledTimes(stop ? 0 : 1);
  });

  it("polls the follow-up source when the loop would otherwise stop", async () => {
    const { parent } = decide(
      { getSteeringMessages: () => [], getFollowUpMessages: () => [followUp] },
      afterTurn(),
    );
    expect(await parent.answer()).toStrictEqual({
      type: "DECIDED",
      decision: { stop: false, external: { steering: [], followUp: [followUp] } },
    });
  });

  it.each([
    ["external steering arrived", afterTurn(), [steer]],
    ["tools want a reply", afterTurn({ toolsWantReply: true }), []],
    ["the agent's own steering waits", afterTurn({}, { steering: [steer] }), []],
  ])("does not poll the follow-up source when %s", async (_, context, steering) => {
    const getFollowUpMessages = vi.fn(() => [followUp]);
    const { parent } = decide({ getSteeringMessages: () => steering, getFollowUpMessages }, context);
    expect(await parent.answer()).toStrictEqual({
      type: "DECIDED",
      decision: { stop: false, external: { steering, followUp: [] } },
    });
    expect(getFollowUpMessages).not.toHaveBeenCalled();
  });

  it("a source that answers nothing drained nothing", async () => {
    const { parent } = decide(
      {
        getSteeringMessages: () => undefined as unknown as AgentMessage[],
        getFollowUpMessages: async () => undefined as unknown as AgentMessage[],
      },
      afterTurn(),
    );
    expect(await parent.answer()).toStrictEqual({
      type: "DECIDED",
      decision: { stop: false, external: noExternal },
    });
  });

  it("waits for callbacks that answer asynchronously", async () => {
    const { parent } = decide(
      {
        prepareNextTurn: async () => ({ thinkingLevel: "low" as const }),
        shouldStopAfterTurn: async () => false,
        getSteeringMessages: async () => [],
        getFollowUpMessages: async () => [followUp],
      },
      afterTurn(),
    );
    expect(await parent.answer()).toStrictEqual({
      type: "DECIDED",
      decision: { stop: false, thinkingLevel: "low", external: { steering: [], followUp: [followUp] } },
    });
  });

  it.each([
    ["steering", { getSteeringMessages: () => "steer" as unknown as AgentMessage[] }],
    ["followUp", { getFollowUpMessages: () => ({}) as unknown as AgentMessage[] }],
  ])("a %s source that answers something other than an array fails the decision", async (queue, options) => {
    const { parent } = decide(options, afterTurn());
    expect(await parent.answer()).toStrictEqual({
      type: "DECISION_FAILED",
      error: `The ${queue} queue callback must return an array of messages`,
    });
  });

  it("a callback that throws fails the decision with its error", async () => {
    const { parent } = decide(
      {
        prepareNextTurn: () => {
          throw new Error("no model left");
        },
      },
      afterTurn(),
    );
    expect(await parent.answer()).toStrictEqual({ type: "DECISION_FAILED", error: "no model left" });
  });

  it("a callback that rejects fails the decision with its error", async () => {
    const { parent } = decide(
      { shouldStopAfterTurn: () => Promise.reject(new Error("store down")) },
      afterTurn(),
    );
    expect(await parent.answer()).toStrictEqual({ type: "DECISION_FAILED", error: "store down" });
  });

  it("stopped before it ran, it runs no callback and sends nothing", async () => {
    const prepareNextTurn = vi.fn();
    const getSteeringMessages = vi.fn(() => [steer]);
    const { parent } = decide({ prepareNextTurn, getSteeringMessages }, afterTurn());
    parent.stopChild();
    await flushJobs();
    expect(prepareNextTurn).not.toHaveBeenCalled();
    expect(getSteeringMessages).not.toHaveBeenCalled();
    expect(parent.received()).toStrictEqual([]);
  });

  it("stopped while prepareNextTurn runs, it calls nothing after it and sends nothing", async () => {
    const prepared = deferred<undefined>();
    const shouldStopAfterTurn = vi.fn(() => false);
    const getSteeringMessages = vi.fn(() => [steer]);
    const { parent } = decide(
      { prepareNextTurn: () => prepared.promise, shouldStopAfterTurn, getSteeringMessages },
      afterTurn(),
    );
    await flushJobs();
    parent.stopChild();
    prepared.resolve(undefined);
    await flushJobs();
    expect(shouldStopAfterTurn).not.toHaveBeenCalled();
    expect(getSteeringMessages).not.toHaveBeenCalled();
    expect(parent.received()).toStrictEqual([]);
  });

  it("stopped while shouldStopAfterTurn runs, it polls nothing", async () => {
    const asked = deferred<boolean>();
    const getSteeringMessages = vi.fn(() => [steer]);
    const { parent } = decide({ shouldStopAfterTurn: () => asked.promise, getSteeringMessages }, afterTurn());
    await flushJobs();
    parent.stopChild();
    asked.resolve(false);
    await flushJobs();
    expect(getSteeringMessages).not.toHaveBeenCalled();
  });

  it("stopped while the steering poll runs, it hands what the poll drained back to the source", async () => {
    const polled = deferred<AgentMessage[]>();
    const restoreQueuedMessages = vi.fn();
    const getFollowUpMessages = vi.fn(() => [followUp]);
    const { parent } = decide(
      { getSteeringMessages: () => polled.promise, getFollowUpMessages, restoreQueuedMessages },
      afterTurn(),
    );
    await flushJobs();
    parent.stopChild();
    polled.resolve([steer]);
    await flushJobs();
    expect(restoreQueuedMessages.mock.calls).toStrictEqual([["steering", [steer]]]);
    expect(getFollowUpMessages).not.toHaveBeenCalled();
    expect(parent.received()).toStrictEqual([]);
  });

  it("stopped while the follow-up poll runs, it hands what the poll drained back to the source", async () => {
    const polled = deferred<AgentMessage[]>();
    const restoreQueuedMessages = vi.fn();
    const { parent } = decide(
      { getSteeringMessages: () => [], getFollowUpMessages: () => polled.promise, restoreQueuedMessages },
      afterTurn(),
    );
    await flushJobs();
    parent.stopChild();
    polled.resolve([followUp]);
    await flushJobs();
    expect(restoreQueuedMessages.mock.calls).toStrictEqual([["followUp", [followUp]]]);
    expect(parent.received()).toStrictEqual([]);
  });

  it("stopped while a poll that drained nothing runs, it hands nothing back", async () => {
    const polled = deferred<AgentMessage[]>();
    const restoreQueuedMessages = vi.fn();
    const { parent } = decide(
      { getSteeringMessages: () => polled.promise, restoreQueuedMessages },
      afterTurn(),
    );
    await flushJobs();
    parent.stopChild();
    polled.resolve([]);
    await flushJobs();
    expect(restoreQueuedMessages).not.toHaveBeenCalled();
  });

  it("stopped after the callbacks finished but before it answered, it hands the drained messages back", async () => {
    const steering = deferred<AgentMessage[]>();
    const restoreQueuedMessages = vi.fn();
    const { parent } = decide(
      { getSteeringMessages: () => steering.promise, restoreQueuedMessages },
      afterTurn({ toolsWantReply: true }),
    );
    await flushJobs();
    // This reaction runs after the callbacks' steps resumed and finished, before the actor's answer.
    void steering.promise.then(() => parent.stopChild());
    steering.resolve([steer]);
    await flushJobs();
    expect(restoreQueuedMessages.mock.calls).toStrictEqual([["steering", [steer]]]);
    expect(parent.received()).toStrictEqual([]);
  });

  it("without a source to hand them back to, drained messages of a stopped decision are dropped quietly", async () => {
    const steering = deferred<AgentMessage[]>();
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    try {
      const { parent } = decide(
        { getSteeringMessages: () => steering.promise },
        afterTurn({ toolsWantReply: true }),
      );
      await flushJobs();
      void steering.promise.then(() => parent.stopChild());
      steering.resolve([steer]);
      await flushJobs();
      // Node reports a promise rejected without a handler once the pending jobs have run.
      await flushJobs();
      expect(unhandled).not.toHaveBeenCalled();
      expect(parent.received()).toStrictEqual([]);
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });

  it("stopped before a failing callback rejects, it sends nothing", async () => {
    const prepared = deferred<undefined>();
    const { parent } = decide({ prepareNextTurn: () => prepared.promise }, afterTurn());
    await flushJobs();
    parent.stopChild();
    prepared.reject(new Error("late"));
    await flushJobs();
    expect(parent.received()).toStrictEqual([]);
  });
});

describe("pollSteering", () => {
  /** Polls with `options` and records what the poll sends to the agent. */
  function poll(options: Partial<AgentMachineOptions>) {
    const sent: unknown[] = [];
    pollSteering(implementationsOf(options), { send: (event) => void sent.push(event) });
    return sent;
  }
  const polledWith = (external: AgentMessage[]) => ({ type: "STEERING_POLLED", external });

  it("answers at once with no messages when there is no steering source", () => {
    expect(poll({})).toStrictEqual([polledWith([])]);
  });

  it("answers at once with what a synchronous source returns", () => {
    expect(poll({ getSteeringMessages: () => [steer] })).toStrictEqual([polledWith([steer])]);
    expect(poll({ getSteeringMessages: () => undefined as unknown as AgentMessage[] })).toStrictEqual([
      polledWith([]),
    ]);
  });

  it("answers with no messages when the source throws", () => {
    const sent = poll({
      getSteeringMessages: () => {
        throw new Error("queue gone");
      },
    });
    expect(sent).toStrictEqual([polledWith([])]);
  });

  it("answers once an asynchronous source settles", async () => {
    const polled = deferred<AgentMessage[]>();
    const sent = poll({ getSteeringMessages: () => polled.promise });
    expect(sent).toStrictEqual([]);
    polled.resolve([steer]);
    await flushJobs();
    expect(sent).toStrictEqual([polledWith([steer])]);
  });

  it("answers with no messages when an asynchronous source rejects or answers nothing", async () => {
    const rejected = poll({ getSteeringMessages: () => Promise.reject(new Error("queue gone")) });
    const empty = poll({ getSteeringMessages: async () => undefined as unknown as AgentMessage[] });
    await flushJobs();
    expect(rejected).toStrictEqual([polledWith([])]);
    expect(empty).toStrictEqual([polledWith([])]);
  });

  it("waits for a thenable that is not a promise", async () => {
    // biome-ignore lint/suspicious/noThenProperty: a thenable source is what this case is about
    const thenable = { then: (resolve: (messages: AgentMessage[]) => void) => resolve([steer]) };
    const sent = poll({ getSteeringMessages: () => thenable as unknown as Promise<AgentMessage[]> });
    await flushJobs();
    expect(sent).toStrictEqual([polledWith([steer])]);
  });
});

describe("returnQueuedMessages", () => {
  it("gives each queue's messages back to the source, in order", () => {
    const restoreQueuedMessages = vi.fn();
    returnQueuedMessages(implementationsOf({ restoreQueuedMessages }), [
      { queue: "steering", messages: [steer] },
      { queue: "followUp", messages: [followUp] },
    ]);
    expect(restoreQueuedMessages.mock.calls).toStrictEqual([
      ["steering", [steer]],
      ["followUp", [followUp]],
    ]);
  });

  it("does nothing when the agent has no source to give them back to", () => {
    expect(() =>
      returnQueuedMessages(implementationsOf(), [{ queue: "steering", messages: [steer] }]),
    ).not.toThrow();
  });
});

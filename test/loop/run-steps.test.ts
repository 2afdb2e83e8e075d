import { describe, expect, it } from "vitest";
import { planNextTurn, willStream } from "../../src/loop/between-turns.js";
import * as steps from "../../src/loop/run-steps.js";
import { appendMessages, grewFrom } from "../../src/loop/transcript-growth.js";
import type { AgentMachineContext } from "../../src/machines/agent/agent.context.js";
import type { TurnDecision } from "../../src/machines/agent/agent.events.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage } from "../../src/types/messages.js";
import { assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { testModel, user } from "../support/loop-harness.js";

// The loop's steps are pure functions of (context, input): tested here without an actor. Every input
// context is deep-frozen, so a step that changed it in place would throw.

const types = (events: AgentEvent[]) => events.map((event) => event.type);
const go: TurnDecision = { stop: false, external: { steering: [], followUp: [] } };

describe("run steps", () => {
  it("a run starts with agent_start; the prompt is injected with the turn's start", () => {
    const prompt = user("hi");
    const started = steps.beginRun(idleContext(), [{ message: prompt }], false);
    expect(types(started.events)).toEqual(["agent_start"]);
    expect(started.context.messages).toEqual([]);
    const injected = steps.injectNext(deepFreeze(started.context));
    expect(types(injected.events)).toEqual(["turn_start", "message_start", "message_end"]);
    expect(injected.context.messages).toEqual([prompt]);
    expect(injected.context.run).toMatchObject({ inbox: [], newMessages: [prompt], turnOpen: true });
  });

  it("a reply cut at the token limit answers each tool call with a 'truncated' error result", () => {
    const run = steps.beginRun(idleContext(), [], false).context;
    const reply = assistant([{ type: "toolCall", id: "c1", name: "t", arguments: {} }], "length");
    const recorded = steps.recordReply(deepFreeze(run), { message: reply, started: true, sequential: false });
    expect(types(recorded.events)).toEqual(["message_end", "tool_execution_start", "tool_execution_end"]);
    const closed = steps.closeTurn(deepFreeze(recorded.context));
    expect(types(closed.events)).toEqual(["message_start", "message_end", "turn_end"]);
    const result = closed.context.messages.at(-1) as { role: string; content: { text: string }[] };
    expect(result.role).toBe("toolResult");
    expect(result.content[0]!.text).toMatch(/output token limit/);
    expect(closed.context.run!.toolsWantReply).toBe(true);
  });

  it("an aborted run records its prompt and an aborted message, and gives queue messages back", () => {
    const queued = user("steer me");
    const run = steps.beginRun(
      idleContext(),
      [{ message: user("hi") }, { message: queued, from: "steering" }],
      false,
    ).context;
    const failed = steps.failTurn(deepFreeze(run), "aborted", "Run was aborted");
    expect(failed.context.messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
    const ended = steps.endRun(deepFreeze(failed.context));
    expect(types(ended.events)).toEqual(["agent_end"]);
    expect(ended.context.steering).toEqual([queued]);
    expect(ended.context.run).toBeUndefined();
  });

  it("an abort between turns (no turn open, nothing to inject) adds nothing", () => {
    const run = steps.beginRun(idleContext(), [], false).context;
    const failed = steps.failTurn(deepFreeze(run), "aborted", "x");
    expect(failed.events).toEqual([]);
    expect(failed.context).toEqual({ ...run, run: { ...run.run, stopReason: "aborted" } });
  });
});

describe("planning the next turn", () => {
  const afterTurn = (patch: Partial<AgentMachineContext>) => {
    const reply = assistant([{ type: "text", text: "ok" }], "stop");
    const run = steps.beginRun(idleContext(patch), [], false).context;
    const recorded = steps.recordReply(run, { message: reply, started: true, sequential: false }).context;
    return deepFreeze(steps.closeTurn(recorded).context);
  };

  it("takes one steering message per turn in one-at-a-time mode, and follow-ups only when it would stop", () => {
    const [s1, s2, f1] = [user("s1"), user("s2"), user("f1")];
    const withSteering = planNextTurn(afterTurn({ steering: [s1, s2], followUp: [f1] }), go);
    expect(withSteering.next).toBe("stream");
    expect(withSteering.context.run!.inbox.map((entry) => entry.message)).toEqual([s1]);
    expect(withSteering.context.steering).toEqual([s2]);
    expect(withSteering.context.followUp).toEqual([f1]);

    const onlyFollowUp = planNextTurn(afterTurn({ followUp: [f1] }), go);
    expect(onlyFollowUp.next).toBe("stream");
    expect(onlyFollowUp.context.run!.inbox).toEqual([{ message: f1, from: "followUp" }]);

    expect(planNextTurn(afterTurn({}), go).next).toBe("stop");
    expect(willStream(afterTurn({}))).toBe(false);
  });

  it("a run started from a steering message skips the steering queue at its first decision", () => {
    const [s1, s2] = [user("s1"), user("s2")];
    const tail: AgentMessage[] = [user("q"), assistant([{ type: "text", text: "a" }], "stop")];
    const started = steps.continueRun(idleContext({ messages: tail, steering: [s1, s2] }));
    expect(started.context.run).toMatchObject({
      inbox: [{ message: s1, from: "steering" }],
      steeringSpent: true,
    });
    const plan = planNextTurn(deepFreeze(started.context), go);
    expect(plan.context.run!.inbox.map((entry) => entry.message)).toEqual([s1]);
    expect(plan.context.steering).toEqual([s2]);
  });

  it("applies a prepareNextTurn update (model, thinking level, a replaced context)", () => {
    const other = { ...testModel, id: "other" };
    const plan = planNextTurn(afterTurn({}), {
      ...go,
      stop: true,
      model: other,
      thinkingLevel: "high",
      context: { systemPrompt: "new", messages: [], toolNames: [] },
    });
    expect(plan).toMatchObject({
      next: "stop",
      context: { model: other, thinkingLevel: "high", systemPrompt: "new", messages: [] },
    });
  });
});

describe("transcript growth", () => {
  it("knows which transcript a step's transcript was made from by appending", () => {
    const first = [user("a")];
    const second = appendMessages(first, [user("b")]);
    const third = appendMessages(second, [user("c")]);
    expect(third.map((m) => (m as { content: string }).content)).toEqual(["a", "b", "c"]);
    expect(first).toHaveLength(1);
    expect(grewFrom(third, first)).toBe(true);
    expect(grewFrom(third, third)).toBe(true);
    expect(grewFrom(first, third)).toBe(false);
    expect(grewFrom([...third], first)).toBe(false);
  });
});

describe("Step", () => {
  it("copies the context once per step and never changes a context it handed out", () => {
    const begun = deepFreeze(steps.beginRun(idleContext(), [], false).context);
    const step = new steps.Step(begun);
    const message = user("x");
    step.setRun({ turns: 1 });
    step.setRun({ turnOpen: true });
    step.set({ errorMessage: "e" });
    step.append(message);
    const first = step.result().context;
    expect(first).not.toBe(begun);
    expect(first.run).toMatchObject({ turns: 1, turnOpen: true, newMessages: [message] });
    expect(first).toMatchObject({ errorMessage: "e", messages: [message] });
    const firstRun = first.run;
    step.setRun({ turns: 2 });
    step.set({ errorMessage: "f" });
    const second = step.result().context;
    expect(first).toMatchObject({ errorMessage: "e", run: { turns: 1 } });
    expect(first.run).toBe(firstRun);
    expect(second).toMatchObject({ errorMessage: "f", run: { turns: 2, turnOpen: true } });
  });
});

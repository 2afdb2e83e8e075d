import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openLedger } from "../../src/loop/budget-ledger.js";
import { outputStateOf } from "../../src/loop/output-schema.js";
import * as steps from "../../src/loop/run-steps.js";
import type { AgentMachineContext, InboxMessage, RunState } from "../../src/machines/agent/agent.context.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, AssistantMessage } from "../../src/types/messages.js";
import { assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { testModel, user } from "../support/loop-harness.js";

// The run's lifecycle steps, without an actor: start (from a prompt or the transcript), injections,
// a turn's end, a failure, the run's end and what it hands back.

const types = (events: AgentEvent[]) => events.map((event) => event.type);
const reply = (text: string, stopReason: AssistantMessage["stopReason"] = "stop") =>
  assistant([{ type: "text", text }], stopReason);
const s1 = user("s1"),
  s2 = user("s2"),
  f1 = user("f1"),
  f2 = user("f2");

/** A frozen context with a run in it (patched). */
function inRun(run: Partial<RunState> = {}, patch: Partial<AgentMachineContext> = {}): AgentMachineContext {
  const begun = steps.beginRun(idleContext(patch), [], false).context;
  return deepFreeze({ ...begun, run: { ...begun.run!, ...run } });
}

function agentEnd(events: AgentEvent[]): Extract<AgentEvent, { type: "agent_end" }> {
  return events.find((e) => e.type === "agent_end") as Extract<AgentEvent, { type: "agent_end" }>;
}

describe("starting a run", () => {
  it("a run opens a ledger for its budget (the run's over the agent's), and checks input guardrails when asked", () => {
    expect(steps.beginRun(idleContext(), [], false).context.run!.ledger).toBeUndefined();
    const agentBudget = steps.beginRun(idleContext({ budget: { maxTurns: 3 } }), [], false).context.run!;
    expect(agentBudget.ledger!.budget).toEqual({ maxTurns: 3 });
    const runBudget = steps.beginRun(idleContext({ budget: { maxTurns: 3 } }), [], false, {
      budget: { maxTurns: 1 },
    });
    expect(runBudget.context.run!.ledger!.budget).toEqual({ maxTurns: 1 });

    const guard = (mode: "blocking" | "parallel") => ({
      name: mode,
      mode,
      check: () => ({ tripwire: false }),
    });
    const guarded = idleContext({
      guardrails: { input: [guard("parallel"), guard("blocking")], output: [] },
    } as never);
    expect(steps.beginRun(guarded, [], false, { checkInput: true }).context.run!.inputCheck).toBe("blocking");
    expect(steps.beginRun(guarded, [], false).context.run!.inputCheck).toBeUndefined();
    const parallel = idleContext({ guardrails: { input: [guard("parallel")], output: [] } });
    expect(steps.beginRun(parallel, [], false, { checkInput: true }).context.run!.inputCheck).toBe(
      "parallel",
    );
    expect(
      steps.beginRun(idleContext(), [], false, { checkInput: true }).context.run!.inputCheck,
    ).toBeUndefined();
  });

  it("a run starts with no error message, its output expected, its prompts in the inbox", () => {
    const output = outputStateOf(z.object({ a: z.string() }));
    const { context } = steps.beginRun(idleContext({ errorMessage: "old" }), [{ message: s1 }], true, {
      output,
    });
    expect(context.errorMessage).toBeUndefined();
    expect(context.run).toMatchObject({ inbox: [{ message: s1 }], steeringSpent: true, output, turns: 0 });
  });

  it("continuing after a reply starts from the steering queue by its mode, else from the follow-ups", () => {
    const after: AgentMessage[] = [user("q"), reply("a")];
    const steering = steps.continueRun(idleContext({ messages: after, steering: [s1, s2], followUp: [f1] }));
    expect(steering.context.run).toMatchObject({
      inbox: [{ message: s1, from: "steering" }],
      steeringSpent: true,
    });
    expect(steering.context.steering).toEqual([s2]);
    expect(steering.context.followUp).toEqual([f1]);

    const all = steps.continueRun(
      idleContext({
        messages: after,
        followUp: [f1, f2],
        settings: { ...idleContext().settings, followUpMode: "all" },
      }),
    );
    expect(all.context.run).toMatchObject({
      inbox: [
        { message: f1, from: "followUp" },
        { message: f2, from: "followUp" },
      ],
      steeringSpent: false,
    });
    expect(all.context.followUp).toEqual([]);
    const one = steps.continueRun(idleContext({ messages: after, followUp: [f1, f2] }));
    expect(one.context.run!.inbox).toEqual([{ message: f1, from: "followUp" }]);
    expect(one.context.followUp).toEqual([f2]);
  });

  it("continuing from the steering queue takes it by the steering mode, not the follow-up mode", () => {
    const settings = {
      ...idleContext().settings,
      steeringMode: "all" as const,
      followUpMode: "one-at-a-time" as const,
    };
    const started = steps.continueRun(
      idleContext({ messages: [user("q"), reply("a")], steering: [s1, s2], followUp: [f1], settings }),
    );
    expect(started.context.run!.inbox.map((entry) => entry.message)).toEqual([s1, s2]);
    expect(started.context.steering).toEqual([]);
  });

  it("continuing after anything but a reply, or with nothing queued, asks the model again", () => {
    const afterPrompt = steps.continueRun(idleContext({ messages: [user("q")], steering: [s1] }));
    expect(afterPrompt.context.run).toMatchObject({ inbox: [], steeringSpent: false });
    expect(afterPrompt.context.steering).toEqual([s1]);
    const nothingQueued = steps.continueRun(idleContext({ messages: [user("q"), reply("a")] }));
    expect(nothingQueued.context.run!.inbox).toEqual([]);
    expect(types(nothingQueued.events)).toEqual(["agent_start"]);
    expect(steps.continueRun(idleContext(), { budget: { maxTurns: 1 } }).context.run!.ledger!.budget).toEqual(
      {
        maxTurns: 1,
      },
    );
  });
});

describe("injecting and closing turns", () => {
  it("injects one inbox message per step, opening the turn once", () => {
    const ctx = inRun({ inbox: [{ message: s1 }, { message: s2, from: "steering" }] });
    const first = steps.injectNext(ctx);
    expect(types(first.events)).toEqual(["turn_start", "message_start", "message_end"]);
    expect(first.context.run!.inbox).toEqual([{ message: s2, from: "steering" }]);
    const second = steps.injectNext(deepFreeze(first.context));
    expect(types(second.events)).toEqual(["message_start", "message_end"]);
    expect(second.context.messages).toEqual([s1, s2]);
    const empty = steps.injectNext(deepFreeze(second.context));
    expect(empty.events).toEqual([]);
    expect(empty.context.messages).toEqual([s1, s2]);
  });

  it("a turn without a reply ends with nothing; a plain reply ends it with no tool results", () => {
    const none = steps.closeTurn(inRun({ turnOpen: true }));
    expect(none.events).toEqual([]);
    expect(none.context.run!.turnOpen).toBe(true);
    const answer = reply("done");
    const recorded = steps.recordReply(inRun({ turnOpen: true }), {
      message: answer,
      started: true,
      sequential: false,
    });
    const closed = steps.closeTurn(deepFreeze(recorded.context));
    expect(closed.events).toEqual([{ type: "turn_end", message: answer, toolResults: [] }]);
    expect(closed.context.run).toMatchObject({
      turnOpen: false,
      lastTurn: { message: answer, toolResults: [] },
      toolsWantReply: false,
      batch: undefined,
      turns: 1,
    });
  });

  it("a turn with a prompt injected and no reply yet does not end", () => {
    const injected = deepFreeze(steps.injectNext(inRun({ inbox: [{ message: s1 }] })).context);
    const closed = steps.closeTurn(injected);
    expect(closed.events).toEqual([]);
    expect(closed.context.run!.turnOpen).toBe(true);
  });

  it("a turn whose tools all ask to terminate wants no reply", () => {
    const call = { type: "toolCall" as const, id: "c1", name: "t", arguments: {} };
    const recorded = steps.recordReply(inRun(), {
      message: assistant([call], "toolUse"),
      started: true,
      sequential: false,
    }).context;
    const settled = steps.recordToolOutcome(deepFreeze(recorded), {
      toolCall: call,
      result: { content: [], terminate: true },
      isError: false,
    }).context;
    const closed = steps.closeTurn(deepFreeze(settled));
    expect(closed.context.run!.toolsWantReply).toBe(false);
    expect(types(closed.events)).toEqual(["message_start", "message_end", "turn_end"]);
  });
});

describe("failing a turn", () => {
  it("an error injects the prompts not yet injected, then a failure message, and ends the turn", () => {
    const prompt = user("hi");
    const queued: InboxMessage = { message: s1, from: "steering" };
    const ctx = inRun({ inbox: [{ message: prompt }, queued] });
    const failed = steps.failTurn(ctx, "error", "model down");
    expect(types(failed.events)).toEqual([
      "turn_start",
      "message_start",
      "message_end",
      "message_start",
      "message_end",
      "turn_end",
    ]);
    const message = failed.context.messages.at(-1) as AssistantMessage;
    expect(message).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "model down",
      content: [],
    });
    expect(message.model).toBe(testModel.id);
    expect(failed.context.messages).toEqual([prompt, message]);
    expect(failed.context.run).toMatchObject({ inbox: [queued], turnOpen: false, stopReason: "error" });
    expect(failed.context.errorMessage).toBe("model down");
    expect(failed.events.at(-1)).toEqual({ type: "turn_end", message, toolResults: [] });
  });

  it("an error between turns with nothing to inject still records the failure", () => {
    const failed = steps.failTurn(inRun(), "error", "callback threw");
    expect(types(failed.events)).toEqual(["turn_start", "message_start", "message_end", "turn_end"]);
    expect(failed.context.errorMessage).toBe("callback threw");
  });

  it("an abort in an open turn records an aborted message", () => {
    const failed = steps.failTurn(inRun({ turnOpen: true }), "aborted", "Run was aborted");
    expect(types(failed.events)).toEqual(["message_start", "message_end", "turn_end"]);
    expect((failed.context.messages.at(-1) as AssistantMessage).stopReason).toBe("aborted");
  });

  it("a FAIL while streaming is kept for the reply, and only within a run", () => {
    expect(steps.markFailure(inRun(), "stop now").run!.failure).toBe("stop now");
    const idle = idleContext();
    expect(steps.markFailure(idle, "stop now")).toBe(idle);
  });
});

describe("ending a run", () => {
  it("gives undelivered queue messages back to the front of their queues, external ones to their source", () => {
    const ctx = inRun(
      {
        inbox: [
          { message: user("prompt") },
          { message: s1, from: "steering" },
          { message: f1, from: "followUp" },
          { message: s2, from: "steering", external: true },
          { message: f2, from: "followUp", external: true },
        ],
      },
      { steering: [user("s0")], followUp: [user("f0")] },
    );
    const ended = steps.endRun(ctx);
    expect(ended.context.steering.map((m) => (m as { content: string }).content)).toEqual(["s1", "s0"]);
    expect(ended.context.followUp.map((m) => (m as { content: string }).content)).toEqual(["f1", "f0"]);
    expect(ended.returned).toEqual([
      { queue: "steering", messages: [s2] },
      { queue: "followUp", messages: [f2] },
    ]);
    expect(ended.context.run).toBeUndefined();
    expect(types(ended.events)).toEqual(["agent_end"]);
  });

  it("hands nothing back when nothing waits", () => {
    const ctx = inRun({}, { steering: [s1] });
    const ended = steps.endRun(ctx);
    expect(ended.returned).toEqual([]);
    expect(ended.context.steering).toBe(ctx.steering);
  });

  it("agent_end says how the run ended: a trip, a failed output, an explicit reason, else its last reply's", () => {
    const output = outputStateOf(z.object({ a: z.string() }));
    const trip = { guardrail: "g", kind: "output" as const, reason: "r" };
    const failure = { issues: [], raw: "x" };
    const endOf = (run: Partial<RunState>) => agentEnd(steps.endRun(inRun(run)).events);
    expect(endOf({ tripped: trip, stopReason: "aborted" })).toMatchObject({
      stopReason: "guardrail",
      guardrail: trip,
    });
    expect(endOf({ output: { ...output, failure }, stopReason: "aborted" })).toMatchObject({
      stopReason: "error",
      outputFailure: failure,
    });
    expect(endOf({ stopReason: "budget", newMessages: [reply("a")] }).stopReason).toBe("budget");
    expect(endOf({ newMessages: [reply("a", "length"), user("b")] }).stopReason).toBe("length");
    expect(endOf({ newMessages: [reply("a", "length"), reply("b")] }).stopReason).toBe("stop");
    expect(endOf({ newMessages: [user("only")] }).stopReason).toBe("stop");
    const plain = endOf({ newMessages: [reply("a")] });
    expect(plain).toEqual({ type: "agent_end", messages: [reply("a")], stopReason: "stop" });
  });

  it("agent_end carries the accepted output and the budget's usage up to the end", () => {
    const output = { ...outputStateOf(z.object({ a: z.string() })), accepted: true, value: { a: "x" } };
    expect(agentEnd(steps.endRun(inRun({ output })).events).output).toEqual({ a: "x" });
    expect("output" in agentEnd(steps.endRun(inRun({ output: outputStateOf(z.string()) })).events)).toBe(
      false,
    );
    const ledger = {
      ...openLedger({ maxWallMs: 1_000_000 }, Date.now() - 50),
      usage: { ...openLedger({}, 0).usage, turns: 2 },
    };
    const usage = agentEnd(steps.endRun(inRun({ ledger })).events).budgetUsage!;
    expect(usage.turns).toBe(2);
    expect(usage.wallMs).toBeGreaterThanOrEqual(50);
  });
});

describe("queues", () => {
  it("a queued message goes to the end of its queue", () => {
    const ctx = idleContext({ steering: [s1] });
    expect(steps.enqueue(ctx, "steering", s2).steering).toEqual([s1, s2]);
    expect(steps.enqueue(ctx, "followUp", f1)).toMatchObject({ steering: [s1], followUp: [f1] });
  });

  it("external steering outside a batch waits in the inbox, marked external", () => {
    const ctx = inRun({ inbox: [{ message: s1 }] });
    expect(steps.keepInInbox(ctx, [s2, f1]).run!.inbox).toEqual([
      { message: s1 },
      { message: s2, from: "steering", external: true },
      { message: f1, from: "steering", external: true },
    ]);
  });
});

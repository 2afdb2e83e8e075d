import { describe, expect, it } from "vitest";
import {
  actionOf,
  budgetExceededEvent,
  budgetStopText,
  callSignature,
  checkModelCall,
  checkToolCall,
  clockIn,
  countDescendantEvents,
  isLoopBreaker,
  loopNotice,
  openLedger,
  passOnce,
  pauseLedger,
  raiseLimits,
  recordCallFailure,
  restartClock,
  settleReply,
  wallTimeLeft,
} from "../../src/loop/budget-ledger.js";
import type { AgentBudget, BudgetExceeded, BudgetLedger, BudgetUsage } from "../../src/types/budget.js";
import type { AgentEvent } from "../../src/types/events.js";
import { type AssistantMessage, emptyUsage, type ToolCall, type Usage } from "../../src/types/messages.js";
import { assistant } from "../support/loop-context.js";
import { user } from "../support/loop-harness.js";

const call = (name: string, args: Record<string, unknown> = {}, id = "c1"): ToolCall => ({
  type: "toolCall",
  id,
  name,
  arguments: args,
});
const usageOf = (totalTokens: number, cost: number): Usage => ({
  ...emptyUsage(),
  totalTokens,
  cost: { ...emptyUsage().cost, total: cost },
});
const replyOf = (text: string, usage?: Usage): AssistantMessage => {
  const message = assistant([{ type: "text", text }], "stop");
  return usage ? { ...message, usage } : ({ ...message, usage: undefined } as unknown as AssistantMessage);
};

/** A ledger opened at time 0 with `used` already spent. */
function ledgerOf(
  budget: AgentBudget,
  used: Partial<BudgetUsage> = {},
  extra: Partial<BudgetLedger> = {},
): BudgetLedger {
  const opened = openLedger(budget, 0);
  return { ...opened, usage: { ...opened.usage, ...used }, ...extra };
}

describe("the budget ledger", () => {
  it("knows the loop breakers among the limits", () => {
    expect(
      ["maxIdenticalCalls", "maxFailedRepeats", "maxRepeatedReplies"].every((n) => isLoopBreaker(n as never)),
    ).toBe(true);
    expect(isLoopBreaker("maxTokens")).toBe(false);
    expect(isLoopBreaker("maxToolCalls")).toBe(false);
  });

  it("a call's signature is its tool and its arguments, whatever their key order", () => {
    const one = callSignature(call("lookup", { b: 1, a: { y: [1, { d: 2, c: null }], x: "s" } }));
    const two = callSignature(call("lookup", { a: { x: "s", y: [1, { c: null, d: 2 }] }, b: 1 }));
    expect(one).toBe(two);
    expect(one).toBe('lookup {"a":{"x":"s","y":[1,{"c":null,"d":2}]},"b":1}');
    expect(callSignature(call("lookup", { a: 1, gone: undefined }))).toBe(
      callSignature(call("lookup", { a: 1 })),
    );
    expect(callSignature(call("lookup", { a: 1 }))).not.toBe(callSignature(call("other", { a: 1 })));
    expect(callSignature(call("lookup", { a: [1, 2] }))).not.toBe(
      callSignature(call("lookup", { a: [2, 1] })),
    );
    expect(callSignature({ name: "t", arguments: undefined as never })).toBe("t null");
    expect(callSignature({ name: "t", arguments: { f: () => 1 } as never })).toBe('t {"f":null}');
  });

  it("opens with nothing used and its clock started; a copy of the budget", () => {
    const budget = { maxTurns: 2 };
    const ledger = openLedger(budget, 5);
    expect(ledger).toEqual({
      budget: { maxTurns: 2 },
      usage: { tokens: 0, costUsd: 0, modelCalls: 0, toolCalls: 0, toolCallsByTool: {}, turns: 0, wallMs: 0 },
      warned: [],
      clockedAt: 5,
    });
    expect(ledger.budget).not.toBe(budget);
  });

  it("clocks wall time in from its last check point, never backwards; a stopped clock restarts", () => {
    const ledger = ledgerOf({}, { wallMs: 10 }, { clockedAt: 100 });
    expect(clockIn(ledger, 150)).toMatchObject({ usage: { wallMs: 60 }, clockedAt: 150 });
    expect(clockIn(ledger, 90)).toMatchObject({ usage: { wallMs: 10 }, clockedAt: 90 });
    const stopped = pauseLedger(ledger, exceeded("maxTurns"));
    expect(stopped.clockedAt).toBeUndefined();
    expect("clockedAt" in stopped).toBe(false);
    expect(stopped.paused).toEqual(exceeded("maxTurns"));
    expect(clockIn(stopped, 500)).toMatchObject({ usage: { wallMs: 10 }, clockedAt: 500 });
  });

  it("a restored run's clock restarts now, unless it is paused", () => {
    const ledger = ledgerOf({}, {}, { clockedAt: 100 });
    expect(restartClock(ledger, 900).clockedAt).toBe(900);
    const paused = pauseLedger(ledger, exceeded("maxTurns"));
    expect(restartClock(paused, 900)).toBe(paused);
  });

  it("the wall time left counts the running clock, and is never below zero", () => {
    expect(wallTimeLeft(ledgerOf({}), 10)).toBeUndefined();
    const ledger = ledgerOf({ maxWallMs: 100 }, { wallMs: 30 }, { clockedAt: 50 });
    expect(wallTimeLeft(ledger, 60)).toBe(60);
    expect(wallTimeLeft(ledger, 40)).toBe(70);
    expect(wallTimeLeft(ledger, 500)).toBe(0);
    expect(wallTimeLeft(pauseLedger(ledger, exceeded("maxWallMs")), 500)).toBe(70);
  });

  it("a limit's action is its own, else the budget's, else pause", () => {
    expect(actionOf({}, "maxTurns")).toBe("pause");
    expect(actionOf({ onExceeded: "stop" }, "maxTurns")).toBe("stop");
    expect(actionOf({ onExceeded: { maxTurns: "warn" } }, "maxTurns")).toBe("warn");
    expect(actionOf({ onExceeded: { maxTokens: "warn" } }, "maxTurns")).toBe("pause");
  });
});

function exceeded(budget: BudgetExceeded["budget"], extra: Partial<BudgetExceeded> = {}): BudgetExceeded {
  return { budget, limit: 1, used: 1, action: "pause", before: "modelCall", ...extra };
}

describe("checking a model call", () => {
  it("reserves a model call, a turn and the request's estimate, clocked in at the check", () => {
    const verdict = checkModelCall(ledgerOf({}, {}, { clockedAt: 0 }), 40, { tokens: 7, costUsd: 0.5 });
    expect(verdict.go).toBe(true);
    expect(verdict.ledger.usage).toMatchObject({ modelCalls: 1, turns: 1, wallMs: 40 });
    expect(verdict.ledger.reserved).toEqual({ tokens: 7, costUsd: 0.5 });
    expect(checkModelCall(ledgerOf({}), 0).ledger.reserved).toEqual({ tokens: 0, costUsd: 0 });
  });

  it("stops at the model call and turn counts", () => {
    const calls = checkModelCall(ledgerOf({ maxModelCalls: 2 }, { modelCalls: 2 }), 0);
    expect(calls).toMatchObject({
      go: false,
      exceeded: { budget: "maxModelCalls", limit: 2, used: 2, action: "pause", before: "modelCall" },
    });
    expect(calls.ledger.usage.modelCalls).toBe(2);
    expect(checkModelCall(ledgerOf({ maxModelCalls: 2 }, { modelCalls: 1 }), 0).go).toBe(true);
    expect(checkModelCall(ledgerOf({ maxTurns: 1 }, { turns: 1 }), 0)).toMatchObject({
      go: false,
      exceeded: { budget: "maxTurns", limit: 1, used: 1 },
    });
    expect(checkModelCall(ledgerOf({ maxTurns: 1 }, { turns: 0 }), 0).go).toBe(true);
  });

  it("stops once tokens or cost reached their limit, or would pass it with the estimate", () => {
    const tokens = (used: number, estimate: number) =>
      checkModelCall(ledgerOf({ maxTokens: 100 }, { tokens: used }), 0, { tokens: estimate, costUsd: 0 });
    expect(tokens(99, 1).go).toBe(true);
    expect(tokens(100, 0)).toMatchObject({
      go: false,
      exceeded: { budget: "maxTokens", limit: 100, used: 100 },
    });
    expect(tokens(100, 0)).not.toHaveProperty("exceeded.estimate");
    expect(tokens(90, 11)).toMatchObject({
      go: false,
      exceeded: { budget: "maxTokens", used: 90, estimate: 11 },
    });
    const cost = (used: number, estimate: number) =>
      checkModelCall(ledgerOf({ maxCostUsd: 1 }, { costUsd: used }), 0, { tokens: 0, costUsd: estimate });
    expect(cost(0.5, 0.5).go).toBe(true);
    expect(cost(0.5, 0.6)).toMatchObject({ go: false, exceeded: { budget: "maxCostUsd", estimate: 0.6 } });
    expect(cost(1, 0)).toMatchObject({ go: false, exceeded: { budget: "maxCostUsd", used: 1 } });
  });

  it("stops once the wall time is spent, counting the time since the last check", () => {
    const ledger = ledgerOf({ maxWallMs: 100 }, { wallMs: 60 }, { clockedAt: 0 });
    expect(checkModelCall(ledger, 39).go).toBe(true);
    expect(checkModelCall(ledger, 40)).toMatchObject({
      go: false,
      exceeded: { budget: "maxWallMs", used: 100 },
    });
  });

  it("the counts come first, then tokens, cost, wall time, then repeated replies", () => {
    const everything = ledgerOf(
      { maxModelCalls: 0, maxTurns: 0, maxTokens: 0, maxCostUsd: 0, maxWallMs: 0 },
      {},
      { replyRepeats: 5 },
    );
    expect(checkModelCall(everything, 0)).toMatchObject({ exceeded: { budget: "maxModelCalls" } });
    const order = ["maxModelCalls", "maxTurns", "maxTokens", "maxCostUsd", "maxWallMs"] as const;
    for (const [index, name] of order.entries()) {
      const budget = Object.fromEntries(order.slice(index).map((n) => [n, 0]));
      expect(checkModelCall(ledgerOf(budget, {}, { replyRepeats: 5 }), 0), name).toMatchObject({
        exceeded: { budget: name },
      });
    }
    expect(checkModelCall(ledgerOf({}, {}, { replyRepeats: 5 }), 0)).toMatchObject({
      exceeded: { budget: "maxRepeatedReplies" },
    });
  });

  it("a reply repeated past maxRepeatedReplies (default 1) holds the next call", () => {
    expect(checkModelCall(ledgerOf({}, {}, { replyRepeats: 0 }), 0).go).toBe(true);
    expect(checkModelCall(ledgerOf({}, {}, { replyRepeats: 1 }), 0)).toMatchObject({
      go: false,
      exceeded: { budget: "maxRepeatedReplies", limit: 1, used: 1, before: "modelCall", action: "pause" },
    });
    expect(checkModelCall(ledgerOf({ maxRepeatedReplies: 2 }, {}, { replyRepeats: 1 }), 0).go).toBe(true);
    expect(checkModelCall(ledgerOf({}), 0).go).toBe(true);
    const verdict = checkModelCall(ledgerOf({}, {}, { replyRepeats: 1 }), 0);
    expect(verdict).not.toHaveProperty("exceeded.toolName");
  });
});

describe("checking a tool call", () => {
  it("reserves a tool call, one of its tool and one of its signature", () => {
    const first = checkToolCall(ledgerOf({}), call("lookup", { q: 1 }), 0);
    expect(first.go).toBe(true);
    expect(first.ledger.usage).toMatchObject({ toolCalls: 1, toolCallsByTool: { lookup: 1 } });
    const second = checkToolCall(first.ledger, call("lookup", { q: 1 }), 0);
    expect(second.ledger.usage).toMatchObject({ toolCalls: 2, toolCallsByTool: { lookup: 2 } });
    expect(second.ledger.calls).toEqual({
      [callSignature(call("lookup", { q: 1 }))]: { made: 2, failed: 0 },
    });
    const other = checkToolCall(second.ledger, call("other"), 0);
    expect(other.ledger.usage.toolCallsByTool).toEqual({ lookup: 2, other: 1 });
  });

  it("stops at the tool call count, then the per-tool count, then the wall time", () => {
    expect(checkToolCall(ledgerOf({ maxToolCalls: 1 }, { toolCalls: 1 }), call("t"), 0)).toMatchObject({
      go: false,
      exceeded: { budget: "maxToolCalls", limit: 1, used: 1, before: "toolCall", toolName: "t" },
    });
    expect(checkToolCall(ledgerOf({ maxToolCalls: 2 }, { toolCalls: 1 }), call("t"), 0).go).toBe(true);
    const perTool = ledgerOf({ maxToolCallsPerTool: 1 }, { toolCalls: 1, toolCallsByTool: { t: 1 } });
    expect(checkToolCall(perTool, call("t"), 0)).toMatchObject({
      go: false,
      exceeded: { budget: "maxToolCallsPerTool", limit: 1, used: 1, before: "toolCall", toolName: "t" },
    });
    expect(checkToolCall(perTool, call("u"), 0).go).toBe(true);
    const wall = ledgerOf({ maxWallMs: 10 }, { wallMs: 10 }, { clockedAt: 0 });
    expect(checkToolCall(wall, call("t"), 0)).toMatchObject({
      go: false,
      exceeded: { budget: "maxWallMs", limit: 10, used: 10, before: "toolCall", toolName: "t" },
    });
    expect(checkToolCall(ledgerOf({ maxWallMs: 10 }, { wallMs: 9 }, { clockedAt: 0 }), call("t"), 0).go).toBe(
      true,
    );
  });

  it("an identical call past maxIdenticalCalls (default 5) is held", () => {
    let ledger = ledgerOf({});
    for (let made = 0; made < 5; made++) {
      const verdict = checkToolCall(ledger, call("t", { a: 1 }), 0);
      expect(verdict.go).toBe(true);
      ledger = verdict.ledger;
    }
    expect(checkToolCall(ledger, call("t", { a: 1 }), 0)).toMatchObject({
      go: false,
      exceeded: { budget: "maxIdenticalCalls", limit: 5, used: 5, toolName: "t" },
    });
    expect(checkToolCall(ledger, call("t", { a: 2 }), 0).go).toBe(true);
  });

  it("a call that failed maxFailedRepeats times (default 2) is held before it is made again", () => {
    const failing = call("t", { a: 1 });
    const once = recordCallFailure(ledgerOf({}), failing);
    expect(once.calls).toEqual({ [callSignature(failing)]: { made: 0, failed: 1 } });
    expect(checkToolCall(once, failing, 0).go).toBe(true);
    const twice = recordCallFailure(once, failing);
    expect(checkToolCall(twice, failing, 0)).toMatchObject({
      go: false,
      exceeded: { budget: "maxFailedRepeats", limit: 2, used: 2, toolName: "t", before: "toolCall" },
    });
    expect(checkToolCall(twice, call("t", { a: 2 }), 0).go).toBe(true);
    expect(checkToolCall(recordCallFailure(ledgerOf({ maxFailedRepeats: 1 }), failing), failing, 0).go).toBe(
      false,
    );
  });

  it("a refused call is not counted as made", () => {
    const refused = checkToolCall(ledgerOf({ maxToolCalls: 0 }), call("t", { a: 1 }), 0);
    expect(refused.go).toBe(false);
    expect(refused.ledger.calls).toBeUndefined();
    expect(refused.ledger.usage.toolCalls).toBe(0);
  });

  it("a repeated reply holds tool calls too, naming the tool", () => {
    expect(checkToolCall(ledgerOf({}, {}, { replyRepeats: 1 }), call("t"), 0)).toMatchObject({
      go: false,
      exceeded: { budget: "maxRepeatedReplies", before: "toolCall", toolName: "t" },
    });
  });
});

describe("deciding at a limit", () => {
  it("a warned limit lets the call go, reserved, and warns once per run", () => {
    const ledger = ledgerOf({ maxTurns: 0, onExceeded: "warn" });
    const first = checkModelCall(ledger, 0);
    expect(first).toMatchObject({ go: true, warning: { budget: "maxTurns", action: "warn" } });
    expect(first.ledger.usage.turns).toBe(1);
    expect(first.ledger.warned).toEqual(["maxTurns"]);
    const second = checkModelCall(first.ledger, 0);
    expect(second.go).toBe(true);
    expect(second).not.toHaveProperty("warning");
    expect(second.ledger.warned).toEqual(["maxTurns"]);
    expect(second.ledger.usage.turns).toBe(2);
  });

  it("a stop or pause refuses the call and reserves nothing", () => {
    const verdict = checkModelCall(ledgerOf({ maxTurns: 0, onExceeded: "stop" }), 0);
    expect(verdict).toMatchObject({ go: false, exceeded: { action: "stop" } });
    expect(verdict.ledger.usage.turns).toBe(0);
  });

  it("continue-once lets one call through past any limit, then the limits hold again", () => {
    const held = ledgerOf({ maxTurns: 0 });
    const once = passOnce(pauseLedger(held, exceeded("maxTurns")));
    expect(once.paused).toBeUndefined();
    const through = checkModelCall(once, 0);
    expect(through.go).toBe(true);
    expect(through.ledger.passOnce).toBeUndefined();
    expect(through.ledger.usage.turns).toBe(1);
    expect(checkModelCall(through.ledger, 0).go).toBe(false);
  });

  it("a repeated reply let through is spent: the next replies count afresh", () => {
    const warned = checkModelCall(ledgerOf({ onExceeded: "warn" }, {}, { replyRepeats: 1 }), 0);
    expect(warned.go).toBe(true);
    expect(warned.ledger.replyRepeats).toBe(0);
    const passed = checkModelCall(passOnce(ledgerOf({}, {}, { replyRepeats: 1 })), 0);
    expect(passed.ledger.replyRepeats).toBe(0);
    const paused = checkModelCall(ledgerOf({}, {}, { replyRepeats: 1 }), 0);
    expect(paused.ledger.replyRepeats).toBe(1);
    expect(
      checkModelCall(passOnce(ledgerOf({ maxTurns: 0 }, {}, { replyRepeats: 1 })), 0).ledger.replyRepeats,
    ).toBe(1);
  });

  it("raising limits lifts the pause and keeps the others", () => {
    const paused = pauseLedger(ledgerOf({ maxTurns: 1, maxTokens: 5 }), exceeded("maxTurns"));
    const raised = raiseLimits(paused, { maxTurns: 3 });
    expect(raised.budget).toEqual({ maxTurns: 3, maxTokens: 5 });
    expect(raised.paused).toBeUndefined();
  });
});

describe("settling replies", () => {
  it("adds the reply's reported tokens and cost in place of the estimate", () => {
    const reserved = checkModelCall(ledgerOf({}), 0, { tokens: 50, costUsd: 5 }).ledger;
    const settled = settleReply(reserved, replyOf("a", usageOf(30, 0.25)));
    expect(settled.usage).toMatchObject({ tokens: 30, costUsd: 0.25 });
    expect(settled.reserved).toBeUndefined();
  });

  it("a reply that reports no usage counts the estimate its call reserved, or nothing", () => {
    const reserved = checkModelCall(ledgerOf({}, { tokens: 1, costUsd: 1 }), 0, {
      tokens: 50,
      costUsd: 5,
    }).ledger;
    expect(settleReply(reserved, replyOf("a")).usage).toMatchObject({ tokens: 51, costUsd: 6 });
    expect(settleReply(ledgerOf({}, { tokens: 1 }), replyOf("a")).usage.tokens).toBe(1);
    const partial = {
      ...replyOf("a"),
      usage: { totalTokens: undefined, cost: undefined },
    } as unknown as AssistantMessage;
    expect(settleReply(ledgerOf({}, { tokens: 1, costUsd: 1 }), partial).usage).toMatchObject({
      tokens: 1,
      costUsd: 1,
    });
  });

  it("counts how many replies in a row repeat the one before, by their text and calls", () => {
    const first = settleReply(ledgerOf({}), replyOf("same", usageOf(1, 0)));
    expect(first.replyRepeats).toBe(0);
    const second = settleReply(first, replyOf("same", usageOf(2, 0)));
    expect(second.replyRepeats).toBe(1);
    expect(settleReply(second, replyOf("same", usageOf(2, 0))).replyRepeats).toBe(2);
    expect(settleReply(second, replyOf("different", usageOf(2, 0))).replyRepeats).toBe(0);
    // Thinking is not part of what repeats: the same text and call with other thinking is a repeat.
    const withCall = (args: Record<string, unknown>, thinking: string) =>
      assistant([{ type: "text", text: "x" }, { type: "thinking", thinking }, call("t", args)], "toolUse");
    const a = settleReply(ledgerOf({}), withCall({ a: 1 }, "first"));
    expect(settleReply(a, withCall({ a: 1 }, "second")).replyRepeats).toBe(1);
    expect(settleReply(a, withCall({ a: 2 }, "first")).replyRepeats).toBe(0);
    // Text and a call are told apart even when their characters agree.
    const asText = settleReply(ledgerOf({}), replyOf('t {"a":1}', usageOf(0, 0)));
    expect(settleReply(asText, assistant([call("t", { a: 1 })], "toolUse")).replyRepeats).toBe(0);
  });

  it("counts what a descendant used: its replies' tokens and cost, settling the estimate each reserved", () => {
    const events = [
      // The child's prompt comes up first: not a reply, it settles nothing.
      { type: "message_end", message: user("not a reply") },
      { type: "message_end", message: replyOf("a", usageOf(10, 0.5)) },
      { type: "tool_execution_start", toolCallId: "x", toolName: "t", args: {} },
      { type: "tool_execution_end", toolCallId: "x", toolName: "t", result: { content: [] }, isError: false },
      { type: "message_end", message: replyOf("b"), agentPath: ["g1"] },
      { type: "turn_end", message: replyOf("b"), toolResults: [] },
    ] as AgentEvent[];
    const reservedBelow = {
      c1: { tokens: 40, costUsd: 4 },
      "c1/g1": { tokens: 7, costUsd: 0.25 },
      c2: { tokens: 3, costUsd: 1 },
    };
    const ledger = { ...ledgerOf({}, { tokens: 1, modelCalls: 1, toolCalls: 1 }), reservedBelow };
    const counted = countDescendantEvents(ledger, "c1", events);
    // The reply with usage counts its usage; the grandchild's reply without usage counts its estimate.
    // Calls are not counted again (their reservations counted them); c2's estimate is still in flight.
    expect(counted.usage).toMatchObject({ tokens: 18, costUsd: 0.75, modelCalls: 1, toolCalls: 1, turns: 0 });
    expect(counted.reservedBelow).toEqual({ c2: { tokens: 3, costUsd: 1 } });
    expect(counted.usage.toolCallsByTool).toEqual({});
    // A reply without usage and without an estimate counts nothing.
    expect(countDescendantEvents(ledgerOf({}), "c9", [events[4]!]).usage.tokens).toBe(0);
    expect(events[4]).toMatchObject({ type: "message_end", agentPath: ["g1"] });
  });
});

describe("what a limit says", () => {
  it("a loop breaker is a loop_detected event, a budget limit a budget_exceeded event", () => {
    const loop = exceeded("maxIdenticalCalls", { toolName: "t" });
    expect(budgetExceededEvent(loop)).toEqual({ type: "loop_detected", ...loop });
    expect(budgetExceededEvent(exceeded("maxTurns"))).toEqual({
      type: "budget_exceeded",
      ...exceeded("maxTurns"),
    });
  });

  it("the model is told about a loop breaker, never about a budget limit", () => {
    const text = (e: BudgetExceeded) => loopNotice(e)?.content;
    expect(loopNotice(exceeded("maxTokens"))).toBeUndefined();
    expect(text(exceeded("maxIdenticalCalls", { toolName: "lookup", used: 5 }))).toBe(
      '[loop breaker] The run was held because you called "lookup" with the same arguments 5 times in this run. It goes on now: do not repeat it; change the approach, or say what blocks you.',
    );
    expect(text(exceeded("maxFailedRepeats", { toolName: "lookup", used: 2 }))).toBe(
      '[loop breaker] The run was held because the call of "lookup" you are repeating failed 2 times with the same arguments. It goes on now: do not repeat it; change the approach, or say what blocks you.',
    );
    expect(text(exceeded("maxRepeatedReplies"))).toBe(
      "[loop breaker] The run was held because your last reply repeated the one before it. It goes on now: do not repeat it; change the approach, or say what blocks you.",
    );
    expect(loopNotice(exceeded("maxRepeatedReplies"))?.role).toBe("user");
  });

  it("the stop text names the limit, its tool, its value and what was used", () => {
    expect(budgetStopText(exceeded("maxTurns", { limit: 3, used: 3 }))).toBe(
      "Run stopped: the budget maxTurns (3) was reached (used: 3)",
    );
    expect(budgetStopText(exceeded("maxToolCallsPerTool", { limit: 2, used: 2, toolName: "t" }))).toBe(
      'Run stopped: the budget maxToolCallsPerTool for "t" (2) was reached (used: 2)',
    );
  });
});

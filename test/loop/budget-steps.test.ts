import { describe, expect, it } from "vitest";
import { budgetStopText } from "../../src/loop/budget-ledger.js";
import {
  budgetPaused,
  continueOnce,
  countDescendants,
  markDescendantPause,
  modelCallPauses,
  modelCallStops,
  modelCallVerdict,
  pauseBeforeModelCall,
  raiseBudget,
  reserveModelCall,
  restartWallClock,
  stopAtBudget,
  stopAtWallTime,
  wallTimerDelay,
} from "../../src/loop/budget-steps.js";
import { userMessage } from "../../src/loop/messages.js";
import * as steps from "../../src/loop/run-steps.js";
import { estimateContextTokens, estimateTokens } from "../../src/loop/token-estimate.js";
import type { BudgetExceeded } from "../../src/types/budget.js";
import type { AgentEvent } from "../../src/types/events.js";
import { type AssistantMessage, emptyUsage, type ToolCall } from "../../src/types/messages.js";
import { ledgerOf, withLedger } from "../support/budget-ledgers.js";
import { assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { testModel, user } from "../support/loop-harness.js";

const types = (events: AgentEvent[]) => events.map((event) => event.type);

function pausedAt(budget: BudgetExceeded["budget"]): BudgetExceeded {
  return { budget, limit: 1, used: 1, action: "pause", before: "modelCall", toolName: "t" };
}

/** A run with a budget whose reply called "a", a tool running a child agent, now in flight. */
function childCallInFlight() {
  const a: ToolCall = { type: "toolCall", id: "a", name: "child", arguments: {} };
  return deepFreeze(
    steps.recordReply(withLedger(ledgerOf({})), {
      message: assistant([a], "toolUse"),
      started: true,
      sequential: false,
    }).context,
  );
}
describe("the budget before a model call", () => {
  it("no budget: no verdict, no pause, no stop, nothing reserved", () => {
    const ctx = withLedger(undefined);
    expect(modelCallVerdict(ctx)).toBeUndefined();
    expect(modelCallPauses(ctx)).toBe(false);
    expect(modelCallStops(ctx)).toBe(false);
    expect(reserveModelCall(ctx)).toEqual({ context: ctx, events: [] });
    expect(pauseBeforeModelCall(ctx)).toEqual({ context: ctx, events: [] });
    expect(stopAtBudget(ctx)).toEqual({ context: ctx, events: [] });
    expect(modelCallVerdict(idleContext())).toBeUndefined();
  });

  it("the verdict is made once per ledger", () => {
    const ctx = withLedger(ledgerOf({ maxTurns: 5 }));
    const verdict = modelCallVerdict(ctx);
    expect(verdict!.go).toBe(true);
    expect(modelCallVerdict({ ...ctx })).toBe(verdict);
    expect(modelCallVerdict(withLedger(ledgerOf({ maxTurns: 5 })))).not.toBe(verdict);
  });

  it("a call within the limits is reserved", () => {
    const ctx = withLedger(ledgerOf({ maxTurns: 5 }, { turns: 1 }));
    const reserved = reserveModelCall(ctx);
    expect(reserved.events).toEqual([]);
    expect(reserved.context.run!.ledger!.usage).toMatchObject({ turns: 2, modelCalls: 1 });
    expect(modelCallPauses(ctx)).toBe(false);
    expect(modelCallStops(ctx)).toBe(false);
  });

  it("a pause limit reached: the call waits, budget_exceeded, the pause recorded", () => {
    const ctx = withLedger(ledgerOf({ maxTurns: 1 }, { turns: 1 }));
    expect(modelCallPauses(ctx)).toBe(true);
    expect(modelCallStops(ctx)).toBe(false);
    expect(reserveModelCall(ctx)).toEqual({ context: ctx, events: [] });
    const paused = pauseBeforeModelCall(ctx);
    expect(paused.events).toEqual([
      {
        type: "budget_exceeded",
        budget: "maxTurns",
        limit: 1,
        used: 1,
        action: "pause",
        before: "modelCall",
      },
    ]);
    expect(paused.context.run!.ledger!.paused).toMatchObject({ budget: "maxTurns" });
    expect(budgetPaused(paused.context)).toBe(true);
    expect(budgetPaused(ctx)).toBe(false);
    expect(budgetPaused(idleContext())).toBe(false);
  });

  it("a stop limit reached: the turn ends with an aborted message naming the limit; the run stops at its budget", () => {
    const ctx = withLedger(
      ledgerOf({ maxTurns: 1, onExceeded: "stop" }, { turns: 1 }),
      {},
      { turnOpen: true },
    );
    expect(modelCallStops(ctx)).toBe(true);
    expect(modelCallPauses(ctx)).toBe(false);
    const stopped = stopAtBudget(ctx);
    expect(types(stopped.events)).toEqual(["budget_exceeded", "message_start", "message_end", "turn_end"]);
    const last = stopped.context.messages.at(-1) as AssistantMessage;
    const exceeded = { budget: "maxTurns", limit: 1, used: 1, action: "stop", before: "modelCall" } as const;
    expect(last).toMatchObject({ stopReason: "aborted", errorMessage: budgetStopText(exceeded) });
    expect(stopped.context.run!.stopReason).toBe("budget");
    expect(pauseBeforeModelCall(withLedger(ledgerOf({ maxTurns: 5 })))).toMatchObject({ events: [] });
    expect(stopAtBudget(withLedger(ledgerOf({ maxTurns: 5 }))).events).toEqual([]);
  });

  it("a run a refused tool call stopped ends without announcing it again", () => {
    const stoppedBy: BudgetExceeded = { ...pausedAt("maxToolCalls"), action: "stop", before: "toolCall" };
    const ctx = withLedger(ledgerOf({}, {}, { stoppedBy }), {}, { turnOpen: true });
    expect(modelCallVerdict(ctx)).toEqual({ go: false, ledger: ctx.run!.ledger, exceeded: stoppedBy });
    expect(modelCallStops(ctx)).toBe(true);
    const stopped = stopAtBudget(ctx);
    expect(types(stopped.events)).toEqual(["message_start", "message_end", "turn_end"]);
    expect((stopped.context.messages.at(-1) as AssistantMessage).errorMessage).toBe(
      budgetStopText(stoppedBy),
    );
  });

  it("a warned limit reserves the call with a warning; a loop breaker's also tells the model first", () => {
    const budgetWarn = withLedger(ledgerOf({ maxTurns: 0, onExceeded: "warn" }));
    const warned = reserveModelCall(budgetWarn);
    expect(types(warned.events)).toEqual(["budget_exceeded"]);
    expect(warned.context.messages).toEqual([]);
    expect(warned.context.run!.ledger!.usage.turns).toBe(1);

    const loopWarn = withLedger(
      ledgerOf({ onExceeded: "warn" }, {}, { replyRepeats: 1 }),
      {},
      { turnOpen: true },
    );
    const told = reserveModelCall(loopWarn);
    expect(types(told.events)).toEqual(["loop_detected", "message_start", "message_end"]);
    expect((told.context.messages.at(-1) as { content: string }).content).toMatch(
      /^\[loop breaker\] .*repeated/,
    );
    expect(told.context.run!.inbox).toEqual([]);
    expect(told.context.run!.ledger!.replyRepeats).toBe(0);
  });
});

describe("what the next model call is expected to use", () => {
  const history = [
    user("a question of some length, about forty characters"),
    assistant([{ type: "text", text: "an answer" }], "stop"),
  ];

  it("a token limit counts the transcript, the system prompt and the output cap against what is left", () => {
    const input = estimateContextTokens(history).tokens + estimateTokens(userMessage("You are a test."));
    const expected = input + 100;
    const ctx = (used: number) =>
      withLedger(ledgerOf({ maxTokens: 1000 }, { tokens: used }), {
        messages: history,
        systemPrompt: "You are a test.",
        streamOptions: { maxTokens: 100 },
      });
    expect(modelCallVerdict(ctx(1000 - expected))!.go).toBe(true);
    expect(modelCallVerdict(ctx(1001 - expected))).toMatchObject({
      go: false,
      exceeded: { budget: "maxTokens", estimate: expected },
    });
  });

  it("without a system prompt or an output cap, only the transcript counts", () => {
    const input = estimateContextTokens(history).tokens;
    const verdict = modelCallVerdict(
      withLedger(ledgerOf({ maxTokens: 1000 }, { tokens: 1001 - input }), {
        messages: history,
        systemPrompt: "",
      }),
    );
    expect(verdict).toMatchObject({ go: false, exceeded: { estimate: input } });
  });

  it("a cost limit prices the estimate with the model's input and output prices (per million tokens)", () => {
    const model = { ...testModel, cost: { input: 1_000, output: 10_000, cacheRead: 0, cacheWrite: 0 } };
    const input = estimateContextTokens(history).tokens;
    const costUsd = (input * 1_000 + 10 * 10_000) / 1e6;
    const ctx = withLedger(ledgerOf({ maxCostUsd: costUsd * 2 }, { costUsd: costUsd * 1.5 }), {
      model,
      messages: history,
      systemPrompt: "",
      streamOptions: { maxTokens: 10 },
    });
    expect(modelCallVerdict(ctx)).toMatchObject({ go: false, exceeded: { budget: "maxCostUsd" } });
    expect((modelCallVerdict(ctx) as { exceeded: BudgetExceeded }).exceeded.estimate).toBeCloseTo(
      costUsd,
      10,
    );
    const unpriced = withLedger(ledgerOf({ maxTokens: 1e9 }), { messages: history });
    expect(modelCallVerdict(unpriced)!.ledger.reserved!.costUsd).toBe(0);
  });

  it("a budget without a token or cost limit estimates nothing", () => {
    const verdict = modelCallVerdict(withLedger(ledgerOf({ maxTurns: 5 }), { messages: history }));
    expect(verdict!.ledger.reserved).toEqual({ tokens: 0, costUsd: 0 });
  });
});

describe("raising, continuing, descendants, wall time", () => {
  it("a raise changes the limits and lifts the pause, telling the model about a loop breaker", () => {
    const loopPaused = withLedger(
      ledgerOf({ maxIdenticalCalls: 1 }, {}, { paused: pausedAt("maxIdenticalCalls") }),
    );
    const raised = raiseBudget(loopPaused, { maxIdenticalCalls: 3 });
    expect(raised.run!.ledger!.budget.maxIdenticalCalls).toBe(3);
    expect(raised.run!.ledger!.paused).toBeUndefined();
    expect((raised.run!.inbox.at(-1)!.message as { content: string }).content).toMatch(/^\[loop breaker\]/);
    const budgetPausedCtx = withLedger(ledgerOf({ maxTurns: 1 }, {}, { paused: pausedAt("maxTurns") }));
    expect(raiseBudget(budgetPausedCtx, { maxTurns: 2 }).run!.inbox).toEqual([]);
    expect(raiseBudget(withLedger(ledgerOf({ maxTurns: 1 })), { maxTurns: 2 }).run!.inbox).toEqual([]);
    const none = withLedger(undefined);
    expect(raiseBudget(none, { maxTurns: 2 })).toBe(none);
  });

  it("a continue-once lets one call through, telling the model about a loop breaker", () => {
    const loopPaused = withLedger(ledgerOf({}, {}, { paused: pausedAt("maxFailedRepeats") }));
    const passed = continueOnce(loopPaused);
    expect(passed.run!.ledger).toMatchObject({ passOnce: true });
    expect(passed.run!.ledger!.paused).toBeUndefined();
    expect((passed.run!.inbox.at(-1)!.message as { content: string }).content).toMatch(/failed 1 times/);
    expect(continueOnce(withLedger(ledgerOf({}))).run!.inbox).toEqual([]);
    expect(continueOnce(withLedger(ledgerOf({}, {}, { paused: pausedAt("maxTurns") }))).run!.inbox).toEqual(
      [],
    );
    const none = withLedger(undefined);
    expect(continueOnce(none)).toBe(none);
  });

  it("a call waits while its descendant's last limit event paused it, and goes on after any later event", () => {
    const ctx = childCallInFlight();
    const pause = { type: "budget_exceeded", ...pausedAt("maxTurns") } as AgentEvent;
    const loopPause = { type: "loop_detected", ...pausedAt("maxIdenticalCalls") } as AgentEvent;
    const warn = { type: "budget_exceeded", ...pausedAt("maxTurns"), action: "warn" } as AgentEvent;
    const other = { type: "turn_start" } as AgentEvent;
    const waiting = markDescendantPause(ctx, "a", [other, pause]);
    expect(waiting.run!.batch!.waiting).toEqual(["a"]);
    expect(markDescendantPause(ctx, "a", [loopPause]).run!.batch!.waiting).toEqual(["a"]);
    expect(markDescendantPause(ctx, "a", [warn]).run!.batch!.waiting ?? []).toEqual([]);
    expect(markDescendantPause(deepFreeze(waiting), "a", [other]).run!.batch!.waiting).toEqual([]);
    expect(markDescendantPause(deepFreeze(waiting), "a", []).run!.batch!.waiting).toEqual(["a"]);
    expect(markDescendantPause(ctx, "a", [pause, other]).run!.batch!.waiting ?? []).toEqual([]);
  });

  it("a descendant's usage is added to the run's", () => {
    const events = [
      {
        type: "message_end",
        message: { ...assistant([], "stop"), usage: { ...emptyUsage(), totalTokens: 9 } },
      },
    ] as AgentEvent[];
    expect(countDescendants(withLedger(ledgerOf({})), "c1", events).run!.ledger!.usage).toMatchObject({
      tokens: 9,
      modelCalls: 0,
    });
    const none = withLedger(undefined);
    expect(countDescendants(none, "c1", events)).toBe(none);
  });

  it("a wall-time timer runs only for a stop action, while the run neither waits nor already stops", () => {
    const stop = { maxWallMs: 1000, onExceeded: { maxWallMs: "stop" } } as const;
    expect(wallTimerDelay(withLedger(ledgerOf(stop, { wallMs: 400 })))).toBe(600);
    expect(wallTimerDelay(withLedger(ledgerOf({ ...stop, onExceeded: "stop" }, { wallMs: 400 })))).toBe(600);
    expect(wallTimerDelay(withLedger(ledgerOf({ maxWallMs: 1000 })))).toBeUndefined();
    expect(wallTimerDelay(withLedger(ledgerOf({ maxWallMs: 1000, onExceeded: "warn" })))).toBeUndefined();
    expect(wallTimerDelay(withLedger(ledgerOf(stop, {}, { paused: pausedAt("maxTurns") })))).toBeUndefined();
    const stoppedBy = { ...pausedAt("maxToolCalls"), action: "stop" as const };
    expect(wallTimerDelay(withLedger(ledgerOf(stop, {}, { stoppedBy })))).toBeUndefined();
    expect(wallTimerDelay(withLedger(undefined))).toBeUndefined();
    expect(wallTimerDelay(withLedger(ledgerOf({ onExceeded: "stop" })))).toBeUndefined();
  });

  it("the wall time ran out during a call: clocked in, budget_exceeded, the run stops at its budget", () => {
    const ctx = withLedger(ledgerOf({ maxWallMs: 500 }, { wallMs: 500 }));
    const stopped = stopAtWallTime(ctx, "toolCall");
    const exceeded = { budget: "maxWallMs", limit: 500, used: 500, action: "stop", before: "toolCall" };
    expect(stopped.events).toEqual([{ type: "budget_exceeded", ...exceeded }]);
    expect(stopped.context.run!.ledger!.stoppedBy).toEqual(exceeded);
    expect(stopped.context.run!.stopReason).toBe("budget");
    const started = Date.now();
    const running = withLedger({ ...ledgerOf({ maxWallMs: 500 }), clockedAt: started - 10 });
    expect(stopAtWallTime(running, "modelCall").context.run!.ledger!.usage.wallMs).toBeGreaterThanOrEqual(10);

    const stoppedBy = { ...pausedAt("maxToolCalls"), action: "stop" as const };
    for (const quiet of [
      withLedger(undefined),
      withLedger(ledgerOf({ maxWallMs: 500 }, {}, { stoppedBy })),
      withLedger(ledgerOf({ maxTurns: 5 })),
    ])
      expect(stopAtWallTime(quiet, "modelCall")).toEqual({ context: quiet, events: [] });
  });

  it("outside a run, the budget steps change nothing", () => {
    const idle = idleContext();
    expect(raiseBudget(idle, { maxTurns: 2 })).toBe(idle);
    expect(continueOnce(idle)).toBe(idle);
    expect(countDescendants(idle, "c1", [])).toBe(idle);
    expect(wallTimerDelay(idle)).toBeUndefined();
    expect(stopAtWallTime(idle, "modelCall")).toEqual({ context: idle, events: [] });
    expect(restartWallClock(idle)).toBe(idle);
    expect(markDescendantPause(idle, "a", [])).toBe(idle);
    const noBatch = withLedger(ledgerOf({}));
    expect(markDescendantPause(noBatch, "a", [])).toBe(noBatch);
  });

  it("a call not waiting stays so when no event came up", () => {
    const ctx = childCallInFlight();
    expect(markDescendantPause(ctx, "a", []).run!.batch!.waiting ?? []).toEqual([]);
  });

  it("a restored run's clock restarts now", () => {
    const before = Date.now();
    const restarted = restartWallClock(withLedger({ ...ledgerOf({ maxWallMs: 500 }), clockedAt: 0 }));
    expect(restarted.run!.ledger!.clockedAt).toBeGreaterThanOrEqual(before);
    const none = withLedger(undefined);
    expect(restartWallClock(none)).toBe(none);
  });
});

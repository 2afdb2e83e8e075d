import { describe, expect, it } from "vitest";
import { budgetStopText, checkSubAgentCall } from "../../src/loop/budget-ledger.js";
import { requestEstimate } from "../../src/loop/budget-steps.js";
import {
  admitHeldReservations,
  admitSubAgentCall,
  modelCallReservation,
  stopAtAncestorBudget,
  toolCallReservation,
} from "../../src/loop/reservation-steps.js";
import type { BudgetExceeded, BudgetLedger, BudgetReservation } from "../../src/types/budget.js";
import type { ToolCall } from "../../src/types/messages.js";
import { FUTURE, ledgerOf, withLedger } from "../support/budget-ledgers.js";
import { type assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { user } from "../support/loop-harness.js";

const modelCall = (path: string[] = [], tokens = 0): BudgetReservation => ({
  path,
  before: "modelCall",
  estimate: { tokens, costUsd: 0 },
});
const toolCall = (path: string[] = [], toolName = "ping"): BudgetReservation => ({
  path,
  before: "toolCall",
  toolName,
});
const GRANTED = { granted: true };

describe("a sub-agent's call checked against a ledger (checkSubAgentCall)", () => {
  it("reserves a model call and its estimate by path; a tool call as a tool call", () => {
    const model = checkSubAgentCall(ledgerOf({ maxModelCalls: 2 }), modelCall(["c1", "g1"], 7), FUTURE);
    expect(model.go).toBe(true);
    expect(model.ledger.usage).toMatchObject({ modelCalls: 1, toolCalls: 0, turns: 0 });
    expect(model.ledger.reservedBelow).toEqual({ "c1/g1": { tokens: 7, costUsd: 0 } });
    const tool = checkSubAgentCall(ledgerOf({ maxToolCalls: 2 }), toolCall(["c1"]), FUTURE);
    expect(tool.go).toBe(true);
    expect(tool.ledger.usage).toMatchObject({ modelCalls: 0, toolCalls: 1, toolCallsByTool: {} });
    expect(tool.ledger.reservedBelow).toBeUndefined();
    // A model call without an estimate reserves none.
    const bare = checkSubAgentCall(ledgerOf({}), { path: ["c1"], before: "modelCall" }, FUTURE);
    expect(bare.ledger.reservedBelow).toBeUndefined();
  });

  it("is held at the run's model calls, tokens with what is in flight, tool calls and wall time", () => {
    const held = (ledger: BudgetLedger, reservation: BudgetReservation) => {
      const verdict = checkSubAgentCall(ledger, reservation, FUTURE);
      return verdict.go ? undefined : verdict.exceeded;
    };
    expect(held(ledgerOf({ maxModelCalls: 2 }, { modelCalls: 2 }), modelCall(["c1"]))).toEqual({
      budget: "maxModelCalls",
      limit: 2,
      used: 2,
      action: "pause",
      before: "modelCall",
      subAgentPath: ["c1"],
    });
    expect(held(ledgerOf({ maxModelCalls: 3 }, { modelCalls: 2 }), modelCall(["c1"]))).toBeUndefined();
    const inFlight = { c2: { tokens: 40, costUsd: 0 } };
    expect(
      held(ledgerOf({ maxTokens: 100 }, { tokens: 50 }, { reservedBelow: inFlight }), modelCall(["c1"], 11)),
    ).toMatchObject({ budget: "maxTokens", used: 50, estimate: 11 });
    expect(
      held(ledgerOf({ maxTokens: 100 }, { tokens: 50 }, { reservedBelow: inFlight }), modelCall(["c1"], 10)),
    ).toBeUndefined();
    // Cost in flight counts the same way.
    const priced = (costUsd: number): BudgetReservation => ({
      path: ["c1"],
      before: "modelCall",
      estimate: { tokens: 0, costUsd },
    });
    const costInFlight = { reservedBelow: { c2: { tokens: 0, costUsd: 0.4 } } };
    expect(held(ledgerOf({ maxCostUsd: 1 }, { costUsd: 0.5 }, costInFlight), priced(0.11))).toMatchObject({
      budget: "maxCostUsd",
    });
    expect(held(ledgerOf({ maxCostUsd: 1 }, { costUsd: 0.5 }, costInFlight), priced(0.1))).toBeUndefined();
    expect(held(ledgerOf({ maxToolCalls: 1 }, { toolCalls: 1 }), toolCall(["c1"], "ping"))).toEqual({
      budget: "maxToolCalls",
      limit: 1,
      used: 1,
      action: "pause",
      before: "toolCall",
      toolName: "ping",
      subAgentPath: ["c1"],
    });
    expect(held(ledgerOf({ maxWallMs: 10 }, { wallMs: 10 }), toolCall(["c1"]))).toMatchObject({
      budget: "maxWallMs",
    });
    expect(held(ledgerOf({ maxWallMs: 10 }, { wallMs: 10 }), modelCall(["c1"]))).toMatchObject({
      budget: "maxWallMs",
    });
  });

  it("leaves the run's own turns, per-tool counts and loop breakers out", () => {
    const ledger = ledgerOf(
      { maxTurns: 1, maxToolCallsPerTool: 1, maxIdenticalCalls: 1 },
      { turns: 5, toolCallsByTool: { ping: 5 } },
      { calls: { 'ping {"n":1}': { made: 9, failed: 9 } }, replyRepeats: 9 },
    );
    expect(checkSubAgentCall(ledger, modelCall(["c1"]), FUTURE).go).toBe(true);
    expect(checkSubAgentCall(ledger, toolCall(["c1"]), FUTURE).go).toBe(true);
  });

  it("a warn limit lets the call through with a warning; continue-once lets one through", () => {
    const warned = checkSubAgentCall(
      ledgerOf({ maxModelCalls: 0, onExceeded: "warn" }),
      modelCall(["c1"]),
      FUTURE,
    );
    expect(warned).toMatchObject({ go: true, warning: { budget: "maxModelCalls", subAgentPath: ["c1"] } });
    const once = checkSubAgentCall(ledgerOf({ maxToolCalls: 0 }, {}, { passOnce: true }), toolCall(), FUTURE);
    expect(once.go).toBe(true);
    expect(once.ledger.passOnce).toBeUndefined();
  });
});

describe("reservations at an agent (admitSubAgentCall, admitHeldReservations)", () => {
  it("without a ledger: granted at the top, sent up by an agent that shares its ancestors' ledgers", () => {
    const top = admitSubAgentCall(withLedger(undefined), "c1", modelCall(["g1"], 3));
    expect(top.answers).toEqual([{ path: ["c1", "g1"], answer: GRANTED }]);
    expect(top.forward).toEqual([]);
    expect(top.events).toEqual([]);
    const middle = admitSubAgentCall(
      withLedger(undefined, { sharesLedger: true }),
      "c1",
      modelCall(["g1"], 3),
    );
    expect(middle.answers).toEqual([]);
    expect(middle.forward).toEqual([modelCall(["c1", "g1"], 3)]);
  });

  it("with a ledger: reserved there, then granted (or sent up)", () => {
    const admitted = admitSubAgentCall(withLedger(ledgerOf({ maxToolCalls: 5 })), "c1", toolCall());
    expect(admitted.answers).toEqual([{ path: ["c1"], answer: GRANTED }]);
    expect(admitted.context.run!.ledger!.usage.toolCalls).toBe(1);
    const shared = admitSubAgentCall(
      withLedger(ledgerOf({ maxToolCalls: 5 }), { sharesLedger: true }),
      "c1",
      toolCall(),
    );
    expect(shared.answers).toEqual([]);
    expect(shared.forward).toEqual([toolCall(["c1"])]);
    expect(shared.context.run!.ledger!.usage.toolCalls).toBe(1);
  });

  it("a warn limit: budget_exceeded naming the sub-agent, and the call goes on", () => {
    const ctx = withLedger(ledgerOf({ maxModelCalls: 0, onExceeded: "warn" }));
    const warned = admitSubAgentCall(ctx, "c1", modelCall());
    expect(warned.events).toEqual([
      expect.objectContaining({ type: "budget_exceeded", subAgentPath: ["c1"] }),
    ]);
    expect(warned.answers).toEqual([{ path: ["c1"], answer: GRANTED }]);
  });

  it("a pause limit: budget_exceeded, the run paused with the call held; held again while paused", () => {
    const paused = admitSubAgentCall(
      withLedger(ledgerOf({ maxModelCalls: 1 }, { modelCalls: 1 })),
      "c1",
      modelCall(),
    );
    expect(paused.events).toEqual([
      {
        type: "budget_exceeded",
        budget: "maxModelCalls",
        limit: 1,
        used: 1,
        action: "pause",
        before: "modelCall",
        subAgentPath: ["c1"],
      },
    ]);
    expect(paused.answers).toEqual([]);
    expect(paused.forward).toEqual([]);
    const ledger = paused.context.run!.ledger!;
    expect(ledger.paused).toMatchObject({ budget: "maxModelCalls", subAgentPath: ["c1"] });
    expect(ledger.held).toEqual([modelCall(["c1"])]);
    // A held call's estimate is not in flight until it is admitted.
    expect(ledger.reservedBelow).toBeUndefined();
    expect(ledger.clockedAt).toBeUndefined();
    const second = admitSubAgentCall(deepFreeze(paused.context), "c2", toolCall());
    expect(second.events).toEqual([]);
    expect(second.context.run!.ledger!.held).toEqual([modelCall(["c1"]), toolCall(["c2"])]);
  });

  it("a stop limit: budget_exceeded, the call refused, the run stops; later calls refused by that limit", () => {
    const ctx = withLedger(ledgerOf({ maxToolCalls: 1, onExceeded: "stop" }, { toolCalls: 1 }));
    const stopped = admitSubAgentCall(ctx, "c1", toolCall());
    const exceeded: BudgetExceeded = {
      budget: "maxToolCalls",
      limit: 1,
      used: 1,
      action: "stop",
      before: "toolCall",
      toolName: "ping",
      subAgentPath: ["c1"],
    };
    expect(stopped.events).toEqual([{ type: "budget_exceeded", ...exceeded }]);
    expect(stopped.answers).toEqual([{ path: ["c1"], answer: { granted: false, exceeded } }]);
    expect(stopped.context.run!.stopReason).toBe("budget");
    expect(stopped.context.run!.ledger!.stoppedBy).toEqual(exceeded);
    const later = admitSubAgentCall(deepFreeze(stopped.context), "c2", modelCall());
    expect(later.events).toEqual([]);
    expect(later.answers).toEqual([{ path: ["c2"], answer: { granted: false, exceeded } }]);
  });

  it("after a raise the held calls are admitted in the order they came; nothing while still paused", () => {
    const held = ledgerOf(
      { maxModelCalls: 1 },
      { modelCalls: 1 },
      {
        held: [modelCall(["c1"]), toolCall(["c2"])],
      },
    );
    const stillPaused = withLedger({ ...held, paused: { ...heldAt(), action: "pause" } });
    expect(admitHeldReservations(stillPaused)).toEqual({
      context: stillPaused,
      events: [],
      answers: [],
      forward: [],
    });
    const idle = idleContext();
    expect(admitHeldReservations(idle)).toEqual({ context: idle, events: [], answers: [], forward: [] });

    const raised = withLedger({ ...held, budget: { maxModelCalls: 2 } });
    const admitted = admitHeldReservations(raised);
    expect(admitted.answers).toEqual([
      { path: ["c1"], answer: GRANTED },
      { path: ["c2"], answer: GRANTED },
    ]);
    expect(admitted.context.run!.ledger!.held).toBeUndefined();
    expect(admitted.context.run!.ledger!.usage).toMatchObject({ modelCalls: 2, toolCalls: 1 });

    // Raised by too little: the first pauses the run again, the second stays held behind it.
    const again = admitHeldReservations(withLedger({ ...held, budget: { maxModelCalls: 1 } }));
    expect(again.answers).toEqual([]);
    expect(again.context.run!.ledger!.held).toEqual([modelCall(["c1"]), toolCall(["c2"])]);
    expect(again.events.map((e) => e.type)).toEqual(["budget_exceeded"]);
  });
});

function heldAt(): Omit<BudgetExceeded, "action"> {
  return { budget: "maxModelCalls", limit: 1, used: 1, before: "modelCall", subAgentPath: ["c1"] };
}

describe("this agent's own reservations", () => {
  it("a model call carries its request's estimate; a tool call its tool", () => {
    const ctx = withLedger(undefined, { messages: [user("x".repeat(400))], systemPrompt: "be brief" });
    expect(modelCallReservation(ctx)).toEqual({
      path: [],
      before: "modelCall",
      estimate: requestEstimate(ctx),
    });
    expect(requestEstimate(ctx).tokens).toBeGreaterThan(100);
    const call: ToolCall = { type: "toolCall", id: "t1", name: "ping", arguments: {} };
    expect(toolCallReservation(call)).toEqual({ path: [], before: "toolCall", toolName: "ping" });
  });

  it("refused by an ancestor's stop limit, the run stops there: its turn closed with the limit's text", () => {
    const exceeded: BudgetExceeded = { ...heldAt(), action: "stop", subAgentPath: ["c1"] };
    const ctx = deepFreeze({
      ...withLedger(undefined),
      run: { ...withLedger(undefined).run!, turnOpen: true },
    });
    const stopped = stopAtAncestorBudget(ctx, exceeded);
    expect(stopped.context.run!.stopReason).toBe("budget");
    const last = stopped.context.messages.at(-1) as ReturnType<typeof assistant>;
    expect(last).toMatchObject({
      role: "assistant",
      stopReason: "aborted",
      errorMessage: budgetStopText(exceeded),
    });
    expect(stopped.events.map((e) => e.type)).toEqual(["message_start", "message_end", "turn_end"]);
  });
});

/**
 * The agent machine's guards, as tables: each is a pure predicate of the context (and of the params
 * the machine hands it: a streamed reply, a decision, a verdict, a tool call id), so each row is a
 * context, the params, and what the guard answers. Every context is deep-frozen.
 */
import { describe, expect, it } from "vitest";
import { openLedger } from "../../src/loop/budget-ledger.js";
import type { OutputVerdict } from "../../src/loop/output-steps.js";
import * as steps from "../../src/loop/run-steps.js";
import { createToolBatch, settle, withPhase, withWaiting } from "../../src/loop/tool-batch.js";
import type {
  AgentMachineContext,
  RunState,
  ToolBatch,
  ToolCallPhase,
} from "../../src/machines/agent/agent.context.js";
import type { StreamedReply, TurnDecision } from "../../src/machines/agent/agent.events.js";
import * as guards from "../../src/machines/agent/agent.guards.js";
import type { ReservationEvent } from "../../src/machines/tool-call/tool-call.events.js";
import type { AgentBudget, BudgetExceeded, BudgetLedger, BudgetUsage } from "../../src/types/budget.js";
import type { AgentMessage, AssistantMessage, ToolCall } from "../../src/types/messages.js";
import type { RunOutputState } from "../../src/types/output.js";
import { assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { user } from "../support/loop-harness.js";

// A clock that starts in the far future never runs at a check made now: wall time stays as given.
const FUTURE = Date.now() + 1e12;

/** A frozen context in a run (begun from `patch`), with `run` applied. */
function inRun(run: Partial<RunState> = {}, patch: Partial<AgentMachineContext> = {}): AgentMachineContext {
  const begun = steps.beginRun(idleContext(patch), [], false).context;
  return deepFreeze({ ...begun, run: { ...begun.run!, ...run } });
}

const waiting = (...texts: string[]) => texts.map((text) => ({ message: user(text) }));

function ledgerOf(budget: AgentBudget, used: Partial<BudgetUsage> = {}, extra: Partial<BudgetLedger> = {}) {
  const opened = openLedger(budget, FUTURE);
  return { ...opened, usage: { ...opened.usage, ...used }, ...extra };
}

const pausedAtTurns: BudgetExceeded = {
  budget: "maxTurns",
  limit: 1,
  used: 1,
  action: "pause",
  before: "modelCall",
};

const call = (id: string, name = "work"): ToolCall => ({ type: "toolCall", id, name, arguments: {} });

/** A batch of calls `a` and `b`, each in the phase given. */
function batchIn(a: ToolCallPhase, b: ToolCallPhase): ToolBatch {
  const batch = createToolBatch(assistant([call("a"), call("b")], "toolUse"), false);
  return withPhase(withPhase(batch, "a", a), "b", b);
}

function streamed(message: AssistantMessage, extra: Partial<StreamedReply> = {}): StreamedReply {
  return { message, started: true, sequential: false, held: false, ...extra };
}

const text = (words: string) => ({ type: "text" as const, text: words });

function expectedOutput(progress: Partial<RunOutputState> = {}): RunOutputState {
  return {
    request: { name: "answer", schema: { type: "object" }, strict: false },
    wrapped: false,
    maxRepairs: 2,
    repairs: 0,
    accepted: false,
    ...progress,
  };
}

const failedVerdict: OutputVerdict = { ok: false, issues: [{ path: [], message: "not an object" }] };
const passedVerdict: OutputVerdict = { ok: true, value: {} };

describe("the agent machine's guards", () => {
  it("inboxEmpty: no run, or a run whose inbox holds no message", () => {
    expect(guards.inboxEmpty({ context: idleContext() })).toBe(true);
    expect(guards.inboxEmpty({ context: inRun() })).toBe(true);
    expect(guards.inboxEmpty({ context: inRun({ inbox: waiting("later") }) })).toBe(false);
  });

  it("inputCheckDue: the inbox is injected and the input guardrails block the first model call", () => {
    const rows: [Partial<RunState>, boolean][] = [
      [{ inputCheck: "blocking" }, true],
      [{ inputCheck: "blocking", inbox: waiting("first") }, false],
      [{ inputCheck: "parallel" }, false],
      [{}, false],
    ];
    for (const [run, due] of rows)
      expect(guards.inputCheckDue({ context: inRun(run) }), JSON.stringify(run)).toBe(due);
    expect(guards.inputCheckDue({ context: idleContext() })).toBe(false);
  });

  it("modelCallPausesForBudget and modelCallStopsForBudget: only once the inbox is injected, by the limit's action", () => {
    const pause = { ledger: ledgerOf({ maxTurns: 1 }, { turns: 1 }) };
    const stop = { ledger: ledgerOf({ maxTurns: 1, onExceeded: "stop" }, { turns: 1 }) };
    const under = { ledger: ledgerOf({ maxTurns: 2 }, { turns: 1 }) };
    const rows: [string, Partial<RunState>, { pauses: boolean; stops: boolean }][] = [
      ["a pause limit reached", pause, { pauses: true, stops: false }],
      ["a stop limit reached", stop, { pauses: false, stops: true }],
      ["under the limit", under, { pauses: false, stops: false }],
      ["no budget", {}, { pauses: false, stops: false }],
      [
        "a pause limit, a message still to inject",
        { ...pause, inbox: waiting("x") },
        { pauses: false, stops: false },
      ],
      [
        "a stop limit, a message still to inject",
        { ...stop, inbox: waiting("x") },
        { pauses: false, stops: false },
      ],
    ];
    for (const [name, context, expected] of [
      ...rows.map(([name, run, expected]) => [name, inRun(run), expected] as const),
      ["idle", idleContext(), { pauses: false, stops: false }] as const,
    ]) {
      expect(
        {
          pauses: guards.modelCallPausesForBudget({ context }),
          stops: guards.modelCallStopsForBudget({ context }),
        },
        name,
      ).toEqual(expected);
    }
  });

  it("reservesWithAncestors: the inbox is injected and the agent shares its ancestors' ledgers", () => {
    const rows: [string, AgentMachineContext, boolean][] = [
      ["a sub-agent that shares them", inRun({}, { sharesLedger: true }), true],
      ["a message still to inject", inRun({ inbox: waiting("x") }, { sharesLedger: true }), false],
      ["an agent that does not share them", inRun(), false],
      ["idle, sharing", idleContext({ sharesLedger: true }), true],
    ];
    for (const [name, context, reserves] of rows)
      expect(guards.reservesWithAncestors({ context }), name).toBe(reserves);
  });

  it("ownReservation and ownReservationGranted: an answer for this agent (an empty path), and granted", () => {
    const context = inRun();
    const exceeded = { ...pausedAtTurns, action: "stop" as const };
    const rows: [ReservationEvent, boolean, boolean][] = [
      [{ type: "RESERVATION", path: [], answer: { granted: true } }, true, true],
      [{ type: "RESERVATION", path: [], answer: { granted: false, exceeded } }, true, false],
      [{ type: "RESERVATION", path: ["c1"], answer: { granted: true } }, false, false],
      [{ type: "RESERVATION", path: ["c1", "g1"], answer: { granted: false, exceeded } }, false, false],
    ];
    for (const [event, own, granted] of rows) {
      expect(guards.ownReservation({ context }, event), JSON.stringify(event)).toBe(own);
      expect(guards.ownReservationGranted({ context }, event), JSON.stringify(event)).toBe(granted);
    }
  });

  it("budgetPaused and budgetNotPaused: the run's ledger holds a pause", () => {
    const paused = inRun({ ledger: ledgerOf({ maxTurns: 1 }, { turns: 1 }, { paused: pausedAtTurns }) });
    const going = inRun({ ledger: ledgerOf({ maxTurns: 1 }) });
    for (const [context, isPaused] of [
      [paused, true],
      [going, false],
      [inRun(), false],
      [idleContext(), false],
    ] as const) {
      expect(guards.budgetPaused({ context })).toBe(isPaused);
      expect(guards.budgetNotPaused({ context })).toBe(!isPaused);
    }
  });

  it("planStreams: the decision's plan calls the model", () => {
    const decide = (stop: boolean, followUp: AgentMessage[] = []): TurnDecision => ({
      stop,
      external: { steering: [], followUp },
    });
    const atStart = inRun();
    expect(guards.planStreams({ context: atStart }, decide(false))).toBe(true);
    expect(guards.planStreams({ context: atStart }, decide(true))).toBe(false);
    const afterTurn = inRun({ lastTurn: { message: assistant([text("done")], "stop"), toolResults: [] } });
    expect(guards.planStreams({ context: afterTurn }, decide(false))).toBe(false);
    expect(guards.planStreams({ context: afterTurn }, decide(false, [user("more")]))).toBe(true);
  });

  it("replyFailed: the reply ended in an error or an abort", () => {
    const rows: [AssistantMessage["stopReason"], boolean][] = [
      ["stop", false],
      ["length", false],
      ["toolUse", false],
      ["error", true],
      ["aborted", true],
    ];
    for (const [stopReason, failed] of rows)
      expect(guards.replyFailed({ context: inRun() }, streamed(assistant([], stopReason))), stopReason).toBe(
        failed,
      );
  });

  it("replyHasToolCalls: any block of the reply is a tool call", () => {
    const has = (content: AssistantMessage["content"]) =>
      guards.replyHasToolCalls({ context: inRun() }, streamed(assistant(content, "toolUse")));
    expect(has([])).toBe(false);
    expect(has([text("no tools")])).toBe(false);
    expect(has([call("a")])).toBe(true);
    expect(has([text("one tool"), call("a")])).toBe(true);
  });

  it("replyHeld and inputTripped: read from the streamed reply", () => {
    const reply = assistant([text("hi")], "stop");
    const context = inRun();
    expect(guards.replyHeld({ context }, streamed(reply, { held: true }))).toBe(true);
    expect(guards.replyHeld({ context }, streamed(reply))).toBe(false);
    const trip = { guardrail: "pii", kind: "input" as const, reason: "pii" };
    expect(guards.inputTripped({ context }, streamed(reply, { inputTrip: { trip } }))).toBe(true);
    expect(guards.inputTripped({ context }, streamed(reply))).toBe(false);
    expect(guards.tripped({ context }, { trip })).toBe(true);
    expect(guards.tripped({ context }, {})).toBe(false);
    expect(guards.tripped({ context }, { replacement: "kept" })).toBe(false);
  });

  it("replyCarriesOutput: the run expects an output and the reply offers a candidate", () => {
    const expecting = inRun({ output: expectedOutput() });
    const json = assistant([text('{"a":1}')], "stop");
    expect(guards.replyCarriesOutput({ context: expecting }, json)).toBe(true);
    expect(guards.replyCarriesOutput({ context: inRun() }, json)).toBe(false);
    expect(guards.replyCarriesOutput({ context: expecting }, assistant([call("a")], "toolUse"))).toBe(false);
    expect(guards.replyCarriesOutput({ context: expecting }, assistant([text("{")], "error"))).toBe(false);
  });

  it("outputFailsForGood: a failed verdict once the repairs are used up", () => {
    const rows: [string, Partial<RunState>, OutputVerdict, boolean][] = [
      ["failed, repairs left", { output: expectedOutput({ repairs: 1 }) }, failedVerdict, false],
      ["failed, no repair left", { output: expectedOutput({ repairs: 2 }) }, failedVerdict, true],
      ["failed, past the repairs", { output: expectedOutput({ repairs: 3 }) }, failedVerdict, true],
      ["failed, no repair allowed", { output: expectedOutput({ maxRepairs: 0 }) }, failedVerdict, true],
      ["passed, no repair left", { output: expectedOutput({ repairs: 2 }) }, passedVerdict, false],
      ["failed, no output expected", {}, failedVerdict, false],
    ];
    for (const [name, run, verdict, fails] of rows)
      expect(guards.outputFailsForGood({ context: inRun(run) }, verdict), name).toBe(fails);
    expect(guards.outputFailsForGood({ context: idleContext() }, failedVerdict)).toBe(false);
  });

  it("holdsReplies and isSubAgent: read from the agent's setup", () => {
    expect(guards.holdsReplies({ context: idleContext() })).toBe(false);
    expect(
      guards.holdsReplies({ context: idleContext({ guardrails: { input: [], output: ["tone"] } }) }),
    ).toBe(true);
    const input = { input: [{ name: "pii", mode: "blocking" as const }], output: [] };
    expect(guards.holdsReplies({ context: idleContext({ guardrails: input }) })).toBe(false);
    expect(guards.isSubAgent({ context: idleContext() })).toBe(false);
    expect(guards.isSubAgent({ context: idleContext({ parentToolCallId: "call-1" }) })).toBe(true);
  });

  it("hasToolBatch and batchSettled: the run has a batch, every call of which settled", () => {
    const outcome = (id: string) => ({
      toolCall: call(id),
      result: { content: [text("ok")], details: {} },
      isError: false,
    });
    const settledBatch = settle(settle(batchIn("executing", "executing"), outcome("a")), outcome("b"));
    const rows: [string, AgentMachineContext, { has: boolean; settled: boolean }][] = [
      ["idle", idleContext(), { has: false, settled: false }],
      ["a run without a batch", inRun(), { has: false, settled: false }],
      [
        "both calls running",
        inRun({ batch: batchIn("executing", "preparing") }),
        { has: true, settled: false },
      ],
      ["one call settled", inRun({ batch: batchIn("settled", "executing") }), { has: true, settled: false }],
      [
        "the other call settled",
        inRun({ batch: batchIn("executing", "settled") }),
        { has: true, settled: false },
      ],
      ["every call settled", inRun({ batch: settledBatch }), { has: true, settled: true }],
    ];
    for (const [name, context, expected] of rows)
      expect(
        { has: guards.hasToolBatch({ context }), settled: guards.batchSettled({ context }) },
        name,
      ).toEqual(expected);
  });

  it("callWaits and noCallWaits: a call of the batch waits for a person or the client", () => {
    const batch = batchIn("executing", "executing");
    const rows: [string, AgentMachineContext, boolean][] = [
      ["idle", idleContext(), false],
      ["a run without a batch", inRun(), false],
      ["a batch that never waited", inRun({ batch }), false],
      ["a call waits", inRun({ batch: withWaiting(batch, "a", true) }), true],
      ["its wait ended", inRun({ batch: withWaiting(withWaiting(batch, "a", true), "a", false) }), false],
    ];
    for (const [name, context, waits] of rows) {
      expect(guards.callWaits({ context }), name).toBe(waits);
      expect(guards.noCallWaits({ context }), name).toBe(!waits);
    }
  });

  it("toolCallRunning: the call has an actor (started, not settled)", () => {
    const phases: [ToolCallPhase, boolean][] = [
      ["pending", false],
      ["preparing", true],
      ["prepared", true],
      ["executing", true],
      ["settled", false],
    ];
    for (const [phase, running] of phases)
      expect(
        guards.toolCallRunning({ context: inRun({ batch: batchIn(phase, "pending") }) }, "a"),
        phase,
      ).toBe(running);
    expect(
      guards.toolCallRunning({ context: inRun({ batch: batchIn("executing", "executing") }) }, "c"),
    ).toBe(false);
    expect(guards.toolCallRunning({ context: inRun() }, "a")).toBe(false);
    expect(guards.toolCallRunning({ context: idleContext() }, "a")).toBe(false);
  });

  it("canContinue: a transcript to continue from, and after a reply a queued message", () => {
    const reply = assistant([text("done")], "stop");
    const rows: [string, Partial<AgentMachineContext>, boolean][] = [
      ["no transcript", {}, false],
      ["after a user message", { messages: [user("hi")] }, true],
      ["after a reply", { messages: [user("hi"), reply] }, false],
      ["after a reply, one steering", { messages: [user("hi"), reply], steering: [user("s")] }, true],
      ["after a reply, one follow-up", { messages: [user("hi"), reply], followUp: [user("f")] }, true],
      [
        "after a reply, one of each",
        { messages: [user("hi"), reply], steering: [user("s")], followUp: [user("f")] },
        true,
      ],
    ];
    for (const [name, patch, can] of rows)
      expect(guards.canContinue({ context: idleContext(patch) }), name).toBe(can);
  });
});

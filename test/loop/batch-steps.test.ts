import { describe, expect, it } from "vitest";
import { budgetStopText, openLedger } from "../../src/loop/budget-ledger.js";
import * as steps from "../../src/loop/run-steps.js";
import {
  ABORTED_CALL_TEXT,
  DUPLICATE_ID_CALL_TEXT,
  FAILED_REPLY_CALL_TEXT,
  INTERRUPTED_CALL_TEXT,
  phaseOf,
  SKIPPED_CALL_TEXT,
  TRUNCATED_CALL_TEXT,
} from "../../src/loop/tool-batch.js";
import type {
  AgentMachineContext,
  RunState,
  ToolCallOutcome,
} from "../../src/machines/agent/agent.context.js";
import type { AgentBudget, BudgetExceeded } from "../../src/types/budget.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "../../src/types/messages.js";
import { assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { user } from "../support/loop-harness.js";

// The tool batch steps of a run, without an actor: recording a reply's calls, moving the batch on
// (with its budget), recording outcomes, skipping, aborting and resuming calls.

const types = (events: AgentEvent[]) => events.map((event) => event.type);
const call = (id: string, name = `tool_${id}`): ToolCall => ({
  type: "toolCall",
  id,
  name,
  arguments: { id },
});
const [a, b, c] = [call("a"), call("b"), call("c")];
const ok = (toolCall: ToolCall, isError = false): ToolCallOutcome => ({
  toolCall,
  result: { content: [{ type: "text", text: `${toolCall.id} done` }] },
  isError,
});
const ends = (events: AgentEvent[]) =>
  events
    .filter((e): e is Extract<AgentEvent, { type: "tool_execution_end" }> => e.type === "tool_execution_end")
    .map((e) => [e.toolCallId, (e.result.content[0] as { text: string }).text, e.isError]);

/** A run (its budget, settings and run patched) that recorded a reply with `calls`. */
function withBatch(
  calls: ToolCall[],
  options: {
    stopReason?: AssistantMessage["stopReason"];
    sequential?: boolean;
    budget?: AgentBudget;
    run?: Partial<RunState>;
    patch?: Partial<AgentMachineContext>;
  } = {},
): AgentMachineContext {
  const begun = steps.beginRun(idleContext(options.patch), [], false, { budget: options.budget }).context;
  const recorded = steps.recordReply(
    deepFreeze({ ...begun, run: { ...begun.run!, turnOpen: true, ...options.run } }),
    {
      message: assistant(calls, options.stopReason ?? "toolUse"),
      started: true,
      sequential: options.sequential ?? false,
    },
  ).context;
  return deepFreeze(recorded);
}

/** `advanceToolBatch`, its context frozen for the next step. */
function advance(ctx: AgentMachineContext) {
  const advanced = steps.advanceToolBatch(ctx);
  return { ...advanced, context: deepFreeze(advanced.context) };
}

describe("recording a reply's tool calls", () => {
  it("a reply with calls opens a batch and answers none of them yet", () => {
    const ctx = withBatch([a, b]);
    expect(ctx.run!.batch!.calls).toEqual([a, b]);
    expect(ctx.run!.turns).toBe(1);
  });

  it.each([
    ["length", TRUNCATED_CALL_TEXT("tool_a"), TRUNCATED_CALL_TEXT("tool_b")],
    ["error", FAILED_REPLY_CALL_TEXT, FAILED_REPLY_CALL_TEXT],
    ["aborted", ABORTED_CALL_TEXT, ABORTED_CALL_TEXT],
  ] as const)(
    "a reply that ended with %s answers each call at once with why it did not run",
    (reason, first, second) => {
      const begun = steps.beginRun(idleContext(), [], false).context;
      const recorded = steps.recordReply(deepFreeze(begun), {
        message: assistant([a, b], reason),
        started: true,
        sequential: false,
      });
      expect(ends(recorded.events)).toEqual([
        ["a", first, true],
        ["b", second, true],
      ]);
      expect(types(recorded.events).filter((t) => t === "tool_execution_start")).toHaveLength(2);
    },
  );

  it("calls sharing an id are none of them run", () => {
    const twice = withBatch([a, call("a", "other"), b]);
    expect(twice.run!.batch!.calls.map((x) => phaseOf(twice.run!.batch!, x.id))).toEqual([
      "settled",
      "settled",
      "settled",
    ]);
    expect(twice.run!.batch!.outcomes.b!.result.content).toEqual([
      { type: "text", text: DUPLICATE_ID_CALL_TEXT("a") },
    ]);
  });

  it("a FAIL that arrived while the reply streamed turns it into that error, once", () => {
    const begun = steps.beginRun(idleContext(), [], false).context;
    const failing = deepFreeze({ ...begun, run: { ...begun.run!, failure: "stopped by the app" } });
    const recorded = steps.recordReply(failing, {
      message: assistant([a], "toolUse"),
      started: true,
      sequential: false,
    });
    const message = recorded.context.messages.at(-1) as AssistantMessage;
    expect(message).toMatchObject({ stopReason: "error", errorMessage: "stopped by the app" });
    expect(recorded.context.errorMessage).toBe("stopped by the app");
    expect(recorded.context.run!.failure).toBeUndefined();
    expect(ends(recorded.events)).toEqual([["a", FAILED_REPLY_CALL_TEXT, true]]);
  });

  it("a held reply that failed keeps none of its text, and is announced with message_start", () => {
    const begun = steps.beginRun(idleContext(), [], false).context;
    const failed = { ...assistant([{ type: "text", text: "secret" }, a], "error"), errorMessage: "cut" };
    const recorded = steps.recordReply(deepFreeze(begun), {
      message: failed,
      started: true,
      sequential: false,
      held: true,
    });
    expect((recorded.context.messages.at(-1) as AssistantMessage).content).toEqual([a]);
    expect(types(recorded.events).slice(0, 2)).toEqual(["message_start", "message_end"]);
    const released = steps.recordReply(deepFreeze(begun), {
      message: assistant([{ type: "text", text: "fine" }], "stop"),
      started: true,
      sequential: false,
      held: true,
    });
    expect(types(released.events)).toEqual(["message_end"]);
  });

  it("an aborted held reply keeps none of its text either, and records its error", () => {
    const begun = steps.beginRun(idleContext(), [], false).context;
    const aborted = {
      ...assistant([{ type: "text", text: "half" }], "aborted"),
      errorMessage: "Run was aborted",
    };
    const recorded = steps.recordReply(deepFreeze(begun), {
      message: aborted,
      started: true,
      sequential: false,
      held: true,
    });
    expect((recorded.context.messages.at(-1) as AssistantMessage).content).toEqual([]);
    expect(recorded.context.errorMessage).toBe("Run was aborted");
  });

  it("recording a reply ends the held reply and a parallel input check, but not a blocking one", () => {
    const begun = steps.beginRun(idleContext(), [], false).context;
    const reply = assistant([{ type: "text", text: "hi" }], "stop");
    const held = { message: reply, sequential: false, events: [] };
    const record = (run: Partial<RunState>) =>
      steps.recordReply(deepFreeze({ ...begun, run: { ...begun.run!, ...run } }), {
        message: reply,
        started: true,
        sequential: false,
      }).context.run!;
    expect(record({ heldReply: held, inputCheck: "blocking" })).toMatchObject({
      heldReply: undefined,
      inputCheck: undefined,
    });
    expect(record({ inputCheck: "parallel" }).inputCheck).toBeUndefined();
    expect(record({ inputCheck: "blocking" }).inputCheck).toBe("blocking");
  });

  it("a reply is settled in the run's ledger", () => {
    const ctx = withBatch([a], { budget: { maxTokens: 100 } });
    expect(ctx.run!.ledger!.lastReply).toContain("tool_a");
  });
});

describe("moving a batch on", () => {
  it("parallel: starts each preflight in turn, then executes the prepared calls together", () => {
    const first = advance(withBatch([a, b]));
    expect(first.command).toEqual({ kind: "spawn", call: a });
    expect(first.events).toEqual([
      { type: "tool_execution_start", toolCallId: "a", toolName: "tool_a", args: { id: "a" } },
    ]);
    expect(phaseOf(first.context.run!.batch!, "a")).toBe("preparing");
    expect(steps.advanceToolBatch(first.context).command).toBeUndefined();
    const second = advance(deepFreeze(steps.markPrepared(first.context, "a")));
    expect(second.command).toEqual({ kind: "spawn", call: b });
    const both = advance(deepFreeze(steps.markPrepared(second.context, "b")));
    expect(both.command).toEqual({ kind: "execute", ids: ["a", "b"] });
    expect(both.events).toEqual([]);
    expect(["a", "b"].map((id) => phaseOf(both.context.run!.batch!, id))).toEqual(["executing", "executing"]);
  });

  it("without a batch there is nothing to do", () => {
    const ctx = steps.beginRun(idleContext(), [], false).context;
    expect(steps.advanceToolBatch(ctx)).toEqual({ context: ctx, events: [] });
    const idle = idleContext();
    expect(steps.advanceToolBatch(idle)).toEqual({ context: idle, events: [] });
  });

  it("a call past a paused limit waits, announced once; the run's ledger pauses", () => {
    const ctx = withBatch([a, b], { budget: { maxToolCalls: 1 } });
    const first = advance(ctx);
    expect(first.command).toEqual({ kind: "spawn", call: a });
    const held = advance(deepFreeze(steps.markPrepared(first.context, "a")));
    expect(types(held.events)).toEqual(["budget_exceeded"]);
    expect(held.events[0]).toMatchObject({
      budget: "maxToolCalls",
      limit: 1,
      used: 1,
      action: "pause",
      toolName: "tool_b",
    });
    // The admitted call still executes.
    expect(held.command).toEqual({ kind: "execute", ids: ["a"] });
    expect(held.context.run!.ledger!.paused).toMatchObject({ budget: "maxToolCalls" });
    expect(phaseOf(held.context.run!.batch!, "b")).toBe("pending");
    const again = steps.advanceToolBatch(held.context);
    expect(again.events).toEqual([]);
    expect(again.command).toBeUndefined();
  });

  it("a sub-agent that shares its ancestors' ledgers reserves each call with them before it starts", () => {
    const ctx = withBatch([a, b], { budget: { maxToolCalls: 5 }, patch: { sharesLedger: true } });
    const reserving = advance(ctx);
    expect(reserving.command).toEqual({ kind: "reserve", call: a });
    expect(reserving.events).toEqual([]);
    expect(reserving.context.run!.batch!.reserving).toBe("a");
    expect(phaseOf(reserving.context.run!.batch!, "a")).toBe("pending");
    // Reserved in its own ledger already; nothing else starts while the answer is on its way.
    expect(reserving.context.run!.ledger!.usage.toolCalls).toBe(1);
    expect(steps.advanceToolBatch(reserving.context)).toEqual({ context: reserving.context, events: [] });

    const granted = steps.answerToolCallReservation(reserving.context, { granted: true });
    expect(granted.command).toEqual({ kind: "spawn", call: a });
    expect(types(granted.events)).toEqual(["tool_execution_start"]);
    expect(granted.context.run!.batch!.reserving).toBeUndefined();
    expect(phaseOf(granted.context.run!.batch!, "a")).toBe("preparing");
    // Nothing is reserving any more: a stray answer changes nothing.
    const stray = deepFreeze(granted.context);
    expect(steps.answerToolCallReservation(stray, { granted: true })).toEqual({ context: stray, events: [] });
    expect(steps.answerToolCallReservation(idleContext(), { granted: true }).command).toBeUndefined();
  });

  it("a call an ancestor refuses is answered with its limit; the batch goes on, its later calls refused here", () => {
    const exceeded = {
      budget: "maxToolCalls" as const,
      limit: 1,
      used: 1,
      action: "stop" as const,
      before: "toolCall" as const,
      toolName: "tool_a",
      subAgentPath: ["c1"],
    };
    const withOwnLedger = advance(withBatch([a, b], { budget: {}, patch: { sharesLedger: true } }));
    const refused = steps.answerToolCallReservation(withOwnLedger.context, { granted: false, exceeded });
    expect(ends(refused.events)).toEqual([
      ["a", budgetStopText(exceeded), true],
      ["b", budgetStopText(exceeded), true],
    ]);
    expect(refused.context.run!.stopReason).toBe("budget");
    expect(refused.context.run!.ledger!.stoppedBy).toEqual(exceeded);
    expect(refused.command).toBeUndefined();
    // Without a ledger of its own, the next call goes up to be reserved (and refused there).
    const noLedger = advance(withBatch([a, b], { patch: { sharesLedger: true } }));
    expect(noLedger.command).toEqual({ kind: "reserve", call: a });
    const next = steps.answerToolCallReservation(noLedger.context, { granted: false, exceeded });
    expect(ends(next.events)).toEqual([["a", budgetStopText(exceeded), true]]);
    expect(next.command).toEqual({ kind: "reserve", call: b });
    expect(next.context.run!.stopReason).toBe("budget");
  });

  it("a call past a stop limit is answered with the stop text; the run ends at its next model call", () => {
    const stopped = advance(
      withBatch([a, call("a2", "tool_a"), b], { budget: { maxToolCallsPerTool: 1, onExceeded: "stop" } }),
    );
    expect(stopped.command).toEqual({ kind: "spawn", call: a });
    const next = advance(deepFreeze(steps.markPrepared(stopped.context, "a")));
    const exceeded = next.context.run!.ledger!.stoppedBy!;
    expect(exceeded).toMatchObject({ budget: "maxToolCallsPerTool", action: "stop", toolName: "tool_a" });
    expect(next.context.run!.stopReason).toBe("budget");
    expect(ends(next.events)).toEqual([
      ["a2", budgetStopText(exceeded), true],
      ["b", budgetStopText(exceeded), true],
    ]);
    expect(types(next.events)[0]).toBe("budget_exceeded");
    expect(next.command).toEqual({ kind: "execute", ids: ["a"] });
  });

  it("a warned limit lets the call start and tells the model when it is a loop breaker", () => {
    const same = call("x1", "lookup");
    const again = { ...same, id: "x2" };
    const ctx = withBatch([same, again], { budget: { maxIdenticalCalls: 1, onExceeded: "warn" } });
    const first = advance(ctx);
    const second = advance(deepFreeze(steps.markPrepared(first.context, "x1")));
    expect(second.command).toEqual({ kind: "spawn", call: again });
    expect(types(second.events)).toEqual(["loop_detected", "tool_execution_start"]);
    expect((second.context.run!.inbox.at(-1)!.message as { content: string }).content).toMatch(
      /^\[loop breaker\]/,
    );

    const budget = withBatch([a, b], { budget: { maxToolCalls: 1, onExceeded: "warn" } });
    const warned = advance(deepFreeze(steps.markPrepared(advance(budget).context, "a")));
    expect(types(warned.events)).toEqual(["budget_exceeded", "tool_execution_start"]);
    expect(warned.context.run!.inbox).toEqual([]);
  });

  it("a stopped ledger answers every later call with its stop text", () => {
    const stoppedBy: BudgetExceeded = {
      budget: "maxToolCalls",
      limit: 0,
      used: 0,
      action: "stop",
      before: "toolCall",
    };
    const ctx = withBatch([a], { run: { ledger: { ...openLedger({}, Date.now()), stoppedBy } } });
    const refused = steps.advanceToolBatch(ctx);
    expect(ends(refused.events)).toEqual([["a", budgetStopText(stoppedBy), true]]);
    expect(refused.command).toBeUndefined();
  });
});

describe("call bookkeeping", () => {
  it("knows which calls have a child: spawned and not settled", () => {
    const spawned = advance(withBatch([a, b])).context;
    expect(steps.hasToolCallChild(spawned, "a")).toBe(true);
    expect(steps.hasToolCallChild(spawned, "b")).toBe(false);
    expect(steps.hasToolCallChild(spawned, "zzz")).toBe(false);
    const settled = steps.recordToolOutcome(spawned, ok(a)).context;
    expect(steps.hasToolCallChild(settled, "a")).toBe(false);
    expect(steps.hasToolCallChild(idleContext(), "a")).toBe(false);
  });

  it("marks only a preparing call prepared", () => {
    const ctx = withBatch([a, b]);
    expect(steps.markPrepared(ctx, "a")).toBe(ctx);
    const spawned = advance(ctx).context;
    expect(phaseOf(steps.markPrepared(spawned, "a").run!.batch!, "a")).toBe("prepared");
    expect(steps.markPrepared(idleContext(), "a")).toEqual(idleContext());
  });

  it("marks a call waiting or not, changing nothing when it already is", () => {
    const ctx = withBatch([a]);
    const waiting = steps.markWaiting(ctx, "a", true);
    expect(waiting.run!.batch!.waiting).toEqual(["a"]);
    expect(steps.markWaiting(waiting, "a", true)).toBe(waiting);
    expect(steps.markWaiting(waiting, "a", false).run!.batch!.waiting).toEqual([]);
    const noBatch = idleContext();
    expect(steps.markWaiting(noBatch, "a", true)).toBe(noBatch);
  });

  it("records an outcome once; a parallel batch keeps the results for the turn's end", () => {
    const ctx = withBatch([a, b]);
    const recorded = steps.recordToolOutcome(ctx, ok(b));
    expect(ends(recorded.events)).toEqual([["b", "b done", false]]);
    expect(recorded.context.messages).toEqual(ctx.messages);
    const again = steps.recordToolOutcome(deepFreeze(recorded.context), ok(b, true));
    expect(again.events).toEqual([]);
    expect(again.context).toBe(recorded.context);
    const unknown = steps.recordToolOutcome(ctx, ok(call("zzz")));
    expect(unknown).toEqual({ context: ctx, events: [] });
    const idle = idleContext();
    expect(steps.recordToolOutcome(idle, ok(a))).toEqual({ context: idle, events: [] });
  });

  it("a sequential batch appends each result as soon as the calls before it are answered", () => {
    const ctx = withBatch([a, b], { sequential: true });
    const second = steps.recordToolOutcome(ctx, ok(b));
    expect(types(second.events)).toEqual(["tool_execution_end"]);
    const first = steps.recordToolOutcome(deepFreeze(second.context), ok(a));
    expect(types(first.events)).toEqual([
      "tool_execution_end",
      "message_start",
      "message_end",
      "message_start",
      "message_end",
    ]);
    expect(first.context.messages.slice(-2).map((m) => (m as ToolResultMessage).toolCallId)).toEqual([
      "a",
      "b",
    ]);
  });

  it("a failed call is remembered for the loop breaker; a successful one is not", () => {
    const ctx = withBatch([a], { budget: { maxFailedRepeats: 1 } });
    const failed = steps.recordToolOutcome(ctx, ok(a, true)).context;
    expect(Object.values(failed.run!.ledger!.calls!)).toEqual([{ made: 0, failed: 1 }]);
    const fine = steps.recordToolOutcome(ctx, ok(a)).context;
    expect(fine.run!.ledger!.calls).toBeUndefined();
  });
});

describe("steering between tools", () => {
  it("polls steering only with policy betweenTools while calls are unsettled", () => {
    const between = { ...idleContext().settings, steering: "betweenTools" as const };
    const ctx = withBatch([a], { patch: { settings: between } });
    expect(steps.wantsSteeringPoll(ctx)).toBe(true);
    expect(steps.wantsSteeringPoll(deepFreeze(steps.recordToolOutcome(ctx, ok(a)).context))).toBe(false);
    expect(steps.wantsSteeringPoll(withBatch([a]))).toBe(false);
    expect(
      steps.wantsSteeringPoll(steps.beginRun(idleContext({ settings: between }), [], false).context),
    ).toBe(false);
    expect(steps.wantsSteeringPoll(idleContext({ settings: between }))).toBe(false);
  });

  it("marks a poll running or answered", () => {
    const ctx = withBatch([a]);
    expect(steps.setSteeringPoll(ctx, true).run!.batch!.pollingSteering).toBe(true);
    expect(
      steps.setSteeringPoll(deepFreeze(steps.setSteeringPoll(ctx, true)), false).run!.batch!.pollingSteering,
    ).toBe(false);
    const noBatch = steps.beginRun(idleContext(), [], false).context;
    expect(steps.setSteeringPoll(noBatch, true)).toBe(noBatch);
    const idle = idleContext();
    expect(steps.setSteeringPoll(idle, true)).toBe(idle);
  });

  it("steering that arrived skips every unsettled call and waits in the inbox; spawned calls are stopped", () => {
    const spawned = advance(withBatch([a, b, c])).context;
    const settledB = deepFreeze(steps.recordToolOutcome(steps.setSteeringPoll(spawned, true), ok(b)).context);
    const arrived = [{ message: user("stop that"), from: "steering" as const }];
    const skipped = steps.skipRemainingTools(settledB, arrived);
    expect(skipped.stop).toEqual(["a"]);
    expect(ends(skipped.events)).toEqual([
      ["a", SKIPPED_CALL_TEXT, true],
      ["c", SKIPPED_CALL_TEXT, true],
    ]);
    // Only the pending call is announced: the spawned one was started already.
    expect(
      skipped.events
        .filter((e) => e.type === "tool_execution_start")
        .map((e) => (e as { toolCallId: string }).toolCallId),
    ).toEqual(["c"]);
    expect(skipped.context.run!.inbox).toEqual(arrived);
    expect(skipped.context.run!.batch!.pollingSteering).toBe(false);
  });
});

describe("aborting a batch", () => {
  it("an abort answers every unsettled call and stops the spawned ones", () => {
    const spawned = advance(withBatch([a, b])).context;
    const aborted = steps.abortToolBatch(spawned);
    expect(aborted.stop).toEqual(["a"]);
    expect(ends(aborted.events)).toEqual([
      ["a", ABORTED_CALL_TEXT, true],
      ["b", ABORTED_CALL_TEXT, true],
    ]);
    expect(aborted.context.run!.stopReason).toBe("aborted");
  });

  it("a FAIL answers them with its text and ends the run as an error", () => {
    const failed = steps.abortToolBatch(withBatch([a]), "the app failed the run");
    expect(ends(failed.events)).toEqual([["a", "the app failed the run", true]]);
    expect(failed.context.run!.stopReason).toBe("error");
    expect(failed.stop).toEqual([]);
  });

  it("a run its budget stopped aborts its calls with the budget's text and reason", () => {
    const stoppedBy: BudgetExceeded = {
      budget: "maxWallMs",
      limit: 10,
      used: 11,
      action: "stop",
      before: "toolCall",
    };
    const ledger = { ...openLedger({ maxWallMs: 10 }, 0), stoppedBy };
    const ctx = withBatch([a], { run: { ledger, stopReason: "budget" } });
    const aborted = steps.abortToolBatch(ctx);
    expect(ends(aborted.events)).toEqual([["a", budgetStopText(stoppedBy), true]]);
    expect(aborted.context.run!.stopReason).toBe("budget");
    const notStopped = withBatch([a], { run: { ledger: openLedger({}, 0), stopReason: "budget" } });
    expect(ends(steps.abortToolBatch(notStopped).events)).toEqual([["a", ABORTED_CALL_TEXT, true]]);
    const failedText = steps.abortToolBatch(ctx, "failed");
    expect(ends(failedText.events)).toEqual([["a", "failed", true]]);
    expect(failedText.context.run!.stopReason).toBe("error");
  });

  it("nothing to answer without a batch", () => {
    const ctx = steps.beginRun(idleContext(), [], false).context;
    const aborted = steps.abortToolBatch(deepFreeze({ ...ctx, run: { ...ctx.run!, batch: undefined } }));
    expect(aborted.stop).toEqual([]);
    expect(aborted.events).toEqual([]);
  });
});

describe("resuming calls", () => {
  it("starts a run and a turn for the unanswered calls; interrupted ones are answered at once", () => {
    const reply = assistant([a, b, c, call("d")], "toolUse");
    const resumed = steps.resumeCalls(idleContext(), {
      message: reply,
      calls: { a: "pending", b: "approved", c: "interrupted" },
      sequential: true,
    });
    expect(types(resumed.events)).toEqual([
      "agent_start",
      "turn_start",
      "tool_execution_start",
      "tool_execution_end",
    ]);
    expect(ends(resumed.events)).toEqual([["c", INTERRUPTED_CALL_TEXT, true]]);
    const batch = resumed.context.run!.batch!;
    expect(batch.calls).toEqual([a, b, c]);
    expect(batch.approved).toEqual(["b"]);
    expect(batch.sequential).toBe(true);
    expect(batch.message).toBe(reply);
    expect(resumed.context.run!.turnOpen).toBe(true);
    expect(resumed.context.run).toMatchObject({ inbox: [], steeringSpent: false });
  });
});

import { describe, expect, it } from "vitest";
import {
  batchTerminates,
  createToolBatch,
  duplicateCallId,
  isBatchSettled,
  nextBatchStep,
  phaseOf,
  runningCalls,
  settle,
  takeResultMessages,
  unsettledCalls,
  withPhase,
  withWaiting,
} from "../../src/loop/tool-batch.js";
import { errorOutcome } from "../../src/loop/tool-outcome.js";
import type { ToolBatch, ToolCallOutcome, ToolCallPhase } from "../../src/machines/agent/agent.context.js";
import type { ToolCall } from "../../src/types/messages.js";
import { assistant, deepFreeze } from "../support/loop-context.js";

const call = (id: string): ToolCall => ({ type: "toolCall", id, name: `tool_${id}`, arguments: {} });
const [a, b, c] = [call("a"), call("b"), call("c")];

/** A frozen batch of `calls` in the given phases (the others pending). */
function batchOf(
  calls: ToolCall[],
  phases: Record<string, ToolCallPhase> = {},
  sequential = false,
): ToolBatch {
  const batch = createToolBatch(
    assistant([{ type: "text", text: "calling" }, ...calls], "toolUse"),
    sequential,
  );
  return deepFreeze({ ...batch, phases: { ...phases } });
}

const ok = (toolCall: ToolCall, text = "ok", terminate?: boolean): ToolCallOutcome => ({
  toolCall,
  result: { content: [{ type: "text", text }], ...(terminate === undefined ? {} : { terminate }) },
  isError: false,
});

describe("tool batches", () => {
  it("a new batch holds the reply's tool calls, all pending, nothing settled or waiting", () => {
    const reply = assistant([a, { type: "text", text: "and" }, b], "toolUse");
    const batch = createToolBatch(reply, true);
    expect(batch).toMatchObject({
      message: reply,
      calls: [a, b],
      sequential: true,
      results: [],
      approved: [],
    });
    expect(batch.pollingSteering).toBe(false);
    expect(Object.keys(batch.phases)).toEqual([]);
    expect(Object.keys(batch.outcomes)).toEqual([]);
    expect(phaseOf(batch, "a")).toBe("pending");
    expect(JSON.parse(JSON.stringify(batch.phases))).toEqual({});
  });

  it("finds the first call id used twice", () => {
    expect(duplicateCallId(batchOf([a, b, c]))).toBeUndefined();
    expect(duplicateCallId(batchOf([a, b, call("b"), call("a")]))).toBe("b");
  });

  it("changes the phase of one call or of several, in a copy", () => {
    const batch = batchOf([a, b, c]);
    const one = withPhase(batch, "a", "preparing");
    expect([phaseOf(one, "a"), phaseOf(one, "b")]).toEqual(["preparing", "pending"]);
    const two = withPhase(one, ["b", "c"], "executing");
    expect(["a", "b", "c"].map((id) => phaseOf(two, id))).toEqual(["preparing", "executing", "executing"]);
    expect(phaseOf(batch, "a")).toBe("pending");
  });

  it("parallel: spawns the first pending call (preflights one at a time), then executes every prepared call", () => {
    expect(nextBatchStep(batchOf([a, b]))).toEqual({ kind: "spawn", call: a });
    expect(nextBatchStep(batchOf([a, b], { a: "prepared" }))).toEqual({ kind: "spawn", call: b });
    expect(nextBatchStep(batchOf([a, b], { a: "preparing" }))).toEqual({ kind: "wait" });
    expect(nextBatchStep(batchOf([a, b, c], { a: "prepared", b: "settled", c: "prepared" }))).toEqual({
      kind: "execute",
      ids: ["a", "c"],
    });
    expect(nextBatchStep(batchOf([a, b], { a: "executing", b: "pending" }))).toEqual({
      kind: "spawn",
      call: b,
    });
    expect(nextBatchStep(batchOf([a, b], { a: "executing", b: "settled" }))).toEqual({ kind: "wait" });
  });

  it("sequential: one call at a time, the prepared one first, nothing while one executes", () => {
    expect(nextBatchStep(batchOf([a, b], {}, true))).toEqual({ kind: "spawn", call: a });
    expect(nextBatchStep(batchOf([a, b], { a: "prepared" }, true))).toEqual({ kind: "execute", ids: ["a"] });
    expect(nextBatchStep(batchOf([a, b, c], { a: "settled", b: "prepared", c: "prepared" }, true))).toEqual({
      kind: "execute",
      ids: ["b"],
    });
    expect(nextBatchStep(batchOf([a, b], { a: "executing" }, true))).toEqual({ kind: "wait" });
    expect(nextBatchStep(batchOf([a, b], { a: "settled", b: "settled" }, true))).toEqual({ kind: "wait" });
  });

  it("holds pending calls when asked (the budget), still executing the prepared ones", () => {
    expect(nextBatchStep(batchOf([a, b]), true)).toEqual({ kind: "wait" });
    expect(nextBatchStep(batchOf([a, b], { a: "prepared" }), true)).toEqual({ kind: "execute", ids: ["a"] });
    expect(nextBatchStep(batchOf([a, b], {}, true), true)).toEqual({ kind: "wait" });
  });

  it("waits while a steering poll is on its way", () => {
    const polling = deepFreeze({ ...batchOf([a], { a: "prepared" }), pollingSteering: true });
    expect(nextBatchStep(polling)).toEqual({ kind: "wait" });
  });

  it("knows which calls are settled, unsettled, and running (started, not settled)", () => {
    const batch = batchOf([a, b, c], { a: "settled", b: "executing" });
    expect(isBatchSettled(batch)).toBe(false);
    expect(unsettledCalls(batch)).toEqual([b, c]);
    expect(runningCalls(batch)).toEqual(["b"]);
    expect(runningCalls(batchOf([a, b, c], { a: "preparing", b: "prepared", c: "pending" }))).toEqual([
      "a",
      "b",
    ]);
    expect(isBatchSettled(batchOf([a, b], { a: "settled", b: "settled" }))).toBe(true);
    expect(isBatchSettled(batchOf([]))).toBe(true);
  });

  it("settling records the outcome, marks the call settled and no longer waiting", () => {
    const batch = deepFreeze(
      withWaiting(withWaiting(batchOf([a, b], { a: "executing" }), "a", true), "b", true),
    );
    expect(batch.waiting).toEqual(["a", "b"]);
    const settled = settle(batch, ok(a));
    expect(phaseOf(settled, "a")).toBe("settled");
    expect(settled.outcomes.a).toEqual(ok(a));
    expect(settled.waiting).toEqual(["b"]);
    expect(batch.outcomes.a).toBeUndefined();
    const notWaiting = settle(batchOf([a, b]), ok(b));
    expect(notWaiting.waiting).toBeUndefined();
    expect(settle(settle(batchOf([a, b]), ok(a)), ok(b)).outcomes.a).toEqual(ok(a));
  });

  it("a call waits once however often it is marked, and stops waiting when unmarked", () => {
    const twice = withWaiting(withWaiting(batchOf([a]), "a", true), "a", true);
    expect(twice.waiting).toEqual(["a"]);
    expect(withWaiting(twice, "a", false).waiting).toEqual([]);
    expect(withWaiting(batchOf([a]), "a", false).waiting).toEqual([]);
  });

  it("takes the result messages of the settled prefix, in source order, each once", () => {
    const onlySecond = settle(batchOf([a, b, c]), ok(b, "second"));
    // Nothing taken: the same batch, not a copy.
    const none = takeResultMessages(onlySecond);
    expect(none.taken).toEqual([]);
    expect(none.batch).toBe(onlySecond);
    const firstTwo = settle(onlySecond, errorOutcome(a, "first failed"));
    const { batch, taken } = takeResultMessages(firstTwo);
    expect(taken.map((m) => [m.toolCallId, m.toolName, m.isError, m.content])).toEqual([
      ["a", "tool_a", true, [{ type: "text", text: "first failed" }]],
      ["b", "tool_b", false, [{ type: "text", text: "second" }]],
    ]);
    expect(batch.results).toEqual(taken);
    expect(takeResultMessages(batch).taken).toEqual([]);
    const last = takeResultMessages(settle(batch, ok(c, "third")));
    expect(last.taken.map((m) => m.toolCallId)).toEqual(["c"]);
    expect(last.batch.results.map((m) => m.toolCallId)).toEqual(["a", "b", "c"]);
  });

  it("terminates only when it ran calls and every result asks to", () => {
    expect(batchTerminates(batchOf([]))).toBe(false);
    const both = settle(settle(batchOf([a, b]), ok(a, "x", true)), ok(b, "y", true));
    expect(batchTerminates(both)).toBe(true);
    expect(batchTerminates(settle(batchOf([a, b]), ok(a, "x", true)))).toBe(false);
    expect(batchTerminates(settle(settle(batchOf([a, b]), ok(a, "x", true)), ok(b, "y")))).toBe(false);
    expect(batchTerminates(settle(settle(batchOf([a, b]), ok(a, "x", true)), ok(b, "y", false)))).toBe(false);
  });
});

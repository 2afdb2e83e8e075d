import { describe, expect, it } from "vitest";
import { z } from "zod";
import { outputStateOf } from "../../src/loop/output-schema.js";
import {
  applyOutputVerdict,
  decideOutput,
  FINAL_ANSWER_ACCEPTED_TEXT,
  notJsonIssue,
  OUTPUT_FAILED_CALL_TEXT,
  type OutputCandidate,
  outputCandidate,
  outputViaTool,
  pendingOutput,
  repairText,
  validatedReply,
} from "../../src/loop/output-steps.js";
import * as steps from "../../src/loop/run-steps.js";
import type { AgentMachineContext } from "../../src/machines/agent/agent.context.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "../../src/types/messages.js";
import { FINAL_ANSWER_TOOL, type OutputIssue, type RunOutputState } from "../../src/types/output.js";
import { assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { user } from "../support/loop-harness.js";

const City = z.object({ city: z.string() });
const types = (events: AgentEvent[]) => events.map((event) => event.type);
const text = (value: string) => assistant([{ type: "text", text: value }], "stop");
const finalCall = (args: unknown, id = "f1"): ToolCall => ({
  type: "toolCall",
  id,
  name: FINAL_ANSWER_TOOL,
  arguments: args as Record<string, unknown>,
});
const otherCall = (id = "o1"): ToolCall => ({ type: "toolCall", id, name: "lookup", arguments: { q: "x" } });
const issues: OutputIssue[] = [{ path: ["city"], message: "expected string" }];

/** A run that expects `output`, the agent with `toolNames` active. */
function running(output: RunOutputState | undefined, toolNames: string[] = []): AgentMachineContext {
  return deepFreeze(
    steps.beginRun(idleContext({ toolNames }), [{ message: user("hi") }], false, { output }).context,
  );
}

/** The run after `reply` was recorded (its tool calls in a batch). */
function replied(ctx: AgentMachineContext, reply: AssistantMessage): AgentMachineContext {
  return deepFreeze(steps.recordReply(ctx, { message: reply, started: true, sequential: false }).context);
}

describe("typed output steps", () => {
  it("the output is pending until it is accepted or has failed", () => {
    const output = outputStateOf(City);
    expect(pendingOutput(running(output))).toBe(output);
    expect(pendingOutput(running(undefined))).toBeUndefined();
    expect(pendingOutput(idleContext())).toBeUndefined();
    expect(pendingOutput(running({ ...output, accepted: true }))).toBeUndefined();
    expect(pendingOutput(running({ ...output, failure: { issues, raw: "" } }))).toBeUndefined();
  });

  it("the final-answer tool is offered when tools are active", () => {
    expect(outputViaTool(running(undefined, ["lookup"]))).toBe(true);
    expect(outputViaTool(running(undefined))).toBe(false);
  });

  it("a reply's text is the candidate: its JSON, fenced or not, or why it is not JSON", () => {
    const ctx = running(outputStateOf(City));
    expect(outputCandidate(ctx, text('{"city":"Oslo"}'))).toEqual({
      via: "text",
      value: { city: "Oslo" },
      raw: '{"city":"Oslo"}',
    });
    const fenced = '  ```json\n{"city":"Oslo"}\n```  ';
    expect(outputCandidate(ctx, text(fenced))).toEqual({ via: "text", value: { city: "Oslo" }, raw: fenced });
    expect(outputCandidate(ctx, text('```\n"plain"```'))?.value).toBe("plain");
    expect(outputCandidate(ctx, text('  {"city":"Bergen"}\n '))?.value).toEqual({ city: "Bergen" });
    const prose = outputCandidate(ctx, text("The city is Oslo."));
    expect(prose).toMatchObject({ via: "text", value: undefined, raw: "The city is Oslo." });
    expect((prose as { parseError?: string }).parseError).toMatch(/JSON/);
    // Spaces after the language tag, a multi-line value, Unicode spaces around it.
    expect(outputCandidate(ctx, text('```json  \n{\n  "city": "Oslo"\n}\n```'))?.value).toEqual({
      city: "Oslo",
    });
    expect(outputCandidate(ctx, text('\u00a0{"city":"Oslo"}\u00a0'))?.value).toEqual({ city: "Oslo" });
    // A fence followed by prose is not unwrapped.
    expect(
      outputCandidate(ctx, text('```json\n{"city":"Oslo"}\n```\nHope this helps.'))?.value,
    ).toBeUndefined();
    // A fence inside prose is not unwrapped: the whole text is what the model answered.
    expect(outputCandidate(ctx, text('Here:\n```json\n{"city":"Oslo"}\n```'))?.value).toBeUndefined();
  });

  it("a final-answer call is the candidate, unwrapped for a non-object schema; other calls carry none", () => {
    const object = running(outputStateOf(City), ["lookup"]);
    const call = finalCall({ city: "Oslo" });
    expect(outputCandidate(object, assistant([otherCall(), call], "toolUse"))).toEqual({
      via: "tool",
      call,
      value: { city: "Oslo" },
      raw: '{"city":"Oslo"}',
    });
    const wrapped = running(outputStateOf(z.number()), ["lookup"]);
    expect(outputCandidate(wrapped, assistant([finalCall({ value: 4 })], "toolUse"))).toMatchObject({
      value: 4,
      raw: '{"value":4}',
    });
    expect(
      outputCandidate(object, assistant([{ type: "text", text: "{}" }, otherCall()], "toolUse")),
    ).toBeUndefined();
  });

  it("no candidate when no output is pending or the reply failed", () => {
    expect(outputCandidate(running(undefined), text("{}"))).toBeUndefined();
    const ctx = running(outputStateOf(City));
    expect(outputCandidate(ctx, { ...text("{}"), stopReason: "error" })).toBeUndefined();
    expect(outputCandidate(ctx, { ...text("{}"), stopReason: "aborted" })).toBeUndefined();
    expect(outputCandidate(ctx, { ...text("{}"), stopReason: "length" })).toMatchObject({ value: {} });
  });

  it("the repair text says what failed and what to do on each road", () => {
    const what = "The output did not match its schema: city: expected string.";
    expect(repairText(issues, "tool", true)).toBe(
      `${what} Call the final_answer tool again with corrected arguments.`,
    );
    expect(repairText(issues, "text", true)).toBe(
      `${what} When you are done, call the final_answer tool with the answer as its arguments.`,
    );
    expect(repairText(issues, "text", false)).toBe(`${what} Reply again with only the corrected JSON value.`);
    expect(notJsonIssue("Unexpected token")).toEqual({
      path: [],
      message: "the reply is not a JSON value (Unexpected token)",
    });
  });

  it("an accepted output keeps its value; on the tool road the call is answered", () => {
    const ctx = running(outputStateOf(City));
    const viaText: OutputCandidate = { via: "text", value: { city: "Oslo" }, raw: "{}" };
    expect(decideOutput(ctx, viaText, { ok: true, value: { city: "Oslo" } })).toEqual({
      output: { ...ctx.run!.output, accepted: true, value: { city: "Oslo" } },
    });
    const call = finalCall({ city: "Oslo" });
    expect(decideOutput(ctx, { via: "tool", call, value: {}, raw: "{}" }, { ok: true, value: 1 })).toEqual({
      output: { ...ctx.run!.output, accepted: true, value: 1 },
      callResult: { call, text: FINAL_ANSWER_ACCEPTED_TEXT, isError: false },
    });
  });

  it("a rejected output is repaired up to maxRepairs times, then fails with the issues and the raw text", () => {
    const output = outputStateOf(City, 1);
    const viaText: OutputCandidate = { via: "text", value: 1, raw: "1" };
    const first = decideOutput(running(output), viaText, { ok: false, issues });
    expect(first.output).toEqual({ ...output, repairs: 1 });
    expect(first.repair).toMatchObject({ role: "user", content: repairText(issues, "text", false) });
    expect(first.callResult).toBeUndefined();
    const last = decideOutput(running(first.output), viaText, { ok: false, issues });
    expect(last).toEqual({ output: { ...output, repairs: 1, failure: { issues, raw: "1" } } });

    const call = finalCall({ city: 1 });
    const viaTool: OutputCandidate = { via: "tool", call, value: { city: 1 }, raw: '{"city":1}' };
    const tool = running(output, ["lookup"]);
    expect(decideOutput(tool, viaTool, { ok: false, issues })).toEqual({
      output: { ...output, repairs: 1 },
      callResult: { call, text: repairText(issues, "tool", true), isError: true },
    });
    expect(
      decideOutput(running({ ...output, repairs: 1 }, ["lookup"]), viaTool, { ok: false, issues }),
    ).toEqual({
      output: { ...output, repairs: 1, failure: { issues, raw: '{"city":1}' } },
      callResult: { call, text: repairText(issues, "tool", true), isError: true },
    });
  });

  it("the reply validated is the batch's, else the run's last reply", () => {
    const ctx = running(outputStateOf(City), ["lookup"]);
    expect(validatedReply(ctx)).toBeUndefined();
    expect(validatedReply(idleContext())).toBeUndefined();
    const first = text("first");
    const second = text("second");
    const afterTwo = deepFreeze({
      ...ctx,
      run: { ...ctx.run!, newMessages: [user("hi"), first, user("again"), second, user("later")] },
    });
    expect(validatedReply(afterTwo)).toBe(second);
    const withCalls = assistant([otherCall()], "toolUse");
    expect(validatedReply(replied(afterTwo, withCalls))).toBe(withCalls);
  });

  it("applying a verdict with no candidate changes nothing", () => {
    const ctx = replied(running(undefined), text("{}"));
    const applied = applyOutputVerdict(ctx, { ok: true, value: {} });
    expect(applied.events).toEqual([]);
    expect(applied.context).toEqual(ctx);
  });

  it("an accepted final-answer call is answered in the batch", () => {
    const call = finalCall({ city: "Oslo" });
    const ctx = replied(running(outputStateOf(City), ["lookup"]), assistant([call], "toolUse"));
    const applied = applyOutputVerdict(ctx, { ok: true, value: { city: "Oslo" } });
    expect(types(applied.events)).toEqual(["tool_execution_start", "tool_execution_end"]);
    expect(applied.events[1]).toMatchObject({ toolCallId: "f1", isError: false });
    expect(applied.context.run!.output).toMatchObject({ accepted: true, value: { city: "Oslo" } });
    expect(applied.context.run!.batch!.outcomes.f1!.result.content).toEqual([
      { type: "text", text: FINAL_ANSWER_ACCEPTED_TEXT },
    ]);
    expect(applied.context.errorMessage).toBeUndefined();
  });

  it("a text to repair leaves a repair message in the inbox", () => {
    const ctx = replied(running(outputStateOf(City)), text("not json"));
    const applied = applyOutputVerdict(ctx, { ok: false, issues: [notJsonIssue("bad")] });
    expect(applied.events).toEqual([]);
    expect(applied.context.run!.output!.repairs).toBe(1);
    expect(applied.context.run!.inbox.map((entry) => (entry.message as { content: string }).content)).toEqual(
      ["hi", repairText([notJsonIssue("bad")], "text", false)],
    );
  });

  it("an output that failed for good answers every other call without running it and records the error", () => {
    const call = finalCall({ city: 1 });
    const ctx = replied(
      running(outputStateOf(City, 0), ["lookup"]),
      assistant([otherCall(), call], "toolUse"),
    );
    const applied = applyOutputVerdict(ctx, { ok: false, issues });
    const ends = applied.events.filter(
      (e): e is Extract<AgentEvent, { type: "tool_execution_end" }> => e.type === "tool_execution_end",
    );
    expect(ends.map((e) => [e.toolCallId, e.isError])).toEqual([
      ["f1", true],
      ["o1", true],
    ]);
    const outcome = (id: string) =>
      (applied.context.run!.batch!.outcomes[id]!.result.content[0] as { text: string }).text;
    expect(outcome("f1")).toBe(repairText(issues, "tool", true));
    expect(outcome("o1")).toBe(OUTPUT_FAILED_CALL_TEXT);
    expect(applied.context.errorMessage).toBe("The output did not match its schema: city: expected string");
    expect(applied.context.run!.output!.failure).toEqual({ issues, raw: '{"city":1}' });
  });

  it("a text that failed for good records the error and adds no repair", () => {
    const ctx = replied(running(outputStateOf(City, 0)), text("1"));
    const applied = applyOutputVerdict(ctx, { ok: false, issues });
    expect(applied.context.run!.inbox).toEqual(ctx.run!.inbox);
    expect(applied.context.errorMessage).toBe("The output did not match its schema: city: expected string");
    expect((applied.context.messages.at(-1) as ToolResultMessage | AssistantMessage).role).toBe("assistant");
  });
});

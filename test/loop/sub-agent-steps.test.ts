import { describe, expect, it } from "vitest";
import {
  defaultSubAgentResult,
  isSubAgentProgress,
  runUsage,
  textResult,
} from "../../src/loop/sub-agent-steps.js";
import type { AgentEvent } from "../../src/types/events.js";
import {
  type AgentMessage,
  type AssistantMessage,
  emptyUsage,
  type ToolResultMessage,
  type Usage,
} from "../../src/types/messages.js";
import type { RunResult } from "../../src/types/output.js";
import { testModel, user } from "../support/loop-harness.js";

/** A usage whose every count and cost is a distinct multiple of `unit`, so a field summed into another shows. */
function usageOf(unit: number): Usage {
  return {
    input: unit,
    output: 2 * unit,
    cacheRead: 3 * unit,
    cacheWrite: 4 * unit,
    totalTokens: 5 * unit,
    cost: { input: 6 * unit, output: 7 * unit, cacheRead: 8 * unit, cacheWrite: 9 * unit, total: 10 * unit },
  };
}

function reply(text: string, usage = emptyUsage()): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: testModel.api,
    provider: testModel.provider,
    model: testModel.id,
    usage,
    stopReason: "stop",
    timestamp: 1,
  };
}

function toolResult(usage?: Usage): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: "c1",
    toolName: "child",
    content: [{ type: "text", text: "done" }],
    isError: false,
    ...(usage ? { usage } : {}),
    timestamp: 1,
  };
}

function run(patch: Partial<RunResult>): RunResult {
  return { output: undefined, messages: [], stopReason: "stop", ...patch };
}

describe("sub-agent steps", () => {
  it("a text result is one text block", () => {
    expect(textResult("done")).toEqual({ content: [{ type: "text", text: "done" }] });
  });

  it("a child's finished replies and tool executions are its call's progress; nothing else is", () => {
    const progress = (event: Partial<AgentEvent> & { type: string }) =>
      isSubAgentProgress(event as AgentEvent);
    expect(progress({ type: "message_end", message: reply("hi") })).toBe(true);
    expect(progress({ type: "message_end", message: user("hi") })).toBe(false);
    expect(progress({ type: "message_end", message: toolResult() })).toBe(false);
    expect(progress({ type: "tool_execution_start" })).toBe(true);
    expect(progress({ type: "tool_execution_end" })).toBe(true);
    for (const type of [
      "message_start",
      "message_update",
      "turn_start",
      "turn_end",
      "agent_start",
      "agent_end",
    ])
      expect(progress({ type, message: reply("hi") } as never), type).toBe(false);
  });

  it("a run's usage sums every reply and every tool result that carries one, field by field", () => {
    const messages: AgentMessage[] = [
      user("hi"),
      reply("a", usageOf(1)),
      toolResult(usageOf(10)),
      toolResult(),
      reply("b", usageOf(100)),
    ];
    expect(runUsage(messages)).toEqual(usageOf(111));
    expect(runUsage([])).toEqual(emptyUsage());
    expect(runUsage([user("only a prompt")])).toEqual(emptyUsage());
  });

  it("a usage on a message that is neither a reply nor a tool result does not count", () => {
    const odd = { ...user("hi"), usage: usageOf(1000) } as AgentMessage;
    expect(runUsage([odd, reply("a", usageOf(1))])).toEqual(usageOf(1));
  });

  it("a child that ended normally answers with its typed output as JSON, else its last reply's text", () => {
    expect(defaultSubAgentResult("child", run({ output: { city: "Oslo" } }))).toEqual({
      result: textResult('{"city":"Oslo"}'),
      isError: false,
    });
    expect(defaultSubAgentResult("child", run({ output: 0 })).result).toEqual(textResult("0"));
    const thinking = { ...reply(""), content: [{ type: "thinking", thinking: "hmm" }] } as AssistantMessage;
    const split = {
      ...reply(""),
      content: [...reply("the ").content, ...thinking.content, ...reply("end").content],
    };
    expect(
      defaultSubAgentResult(
        "child",
        run({ messages: [reply("first"), toolResult(), split as AssistantMessage] }),
      ),
    ).toEqual({ result: textResult("the end"), isError: false });
    expect(defaultSubAgentResult("child", run({ messages: [reply("only"), toolResult()] })).result).toEqual(
      textResult("only"),
    );
    expect(defaultSubAgentResult("child", run({ messages: [] }))).toEqual({
      result: textResult(""),
      isError: false,
    });
    expect(
      defaultSubAgentResult("child", run({ stopReason: "length", messages: [reply("cut")] })).isError,
    ).toBe(false);
  });

  it("a child that failed, was aborted or tripped a guardrail answers with an error saying how it ended", () => {
    const ended = (patch: Partial<RunResult>) => defaultSubAgentResult("child", run(patch));
    expect(ended({ stopReason: "error", error: new Error("model down") })).toEqual({
      result: textResult('Sub-agent "child" ended with error: model down'),
      isError: true,
    });
    expect(ended({ stopReason: "aborted" })).toEqual({
      result: textResult('Sub-agent "child" ended with aborted: aborted'),
      isError: true,
    });
    expect(
      ended({
        stopReason: "guardrail",
        guardrail: { guardrail: "pii", kind: "output", reason: "an address" },
      }),
    ).toEqual({ result: textResult('Sub-agent "child" ended with guardrail: an address'), isError: true });
    // A budget's stop names the limit, from the text its last reply ended with.
    const stopped = {
      ...reply(""),
      stopReason: "aborted" as const,
      errorMessage: "Run stopped: the budget maxTurns (2) was reached (used: 2)",
    };
    expect(ended({ stopReason: "budget", messages: [reply("partial"), stopped] })).toEqual({
      result: textResult(
        'Sub-agent "child" ended with budget: Run stopped: the budget maxTurns (2) was reached (used: 2)',
      ),
      isError: true,
    });
    expect(ended({ stopReason: "budget" }).result).toEqual(
      textResult('Sub-agent "child" ended with budget: budget'),
    );
    // A failed run's output or text is not its answer.
    expect(
      ended({ stopReason: "error", output: { city: "Oslo" }, messages: [reply("partial")] }).result,
    ).toEqual(textResult('Sub-agent "child" ended with error: error'));
  });
});

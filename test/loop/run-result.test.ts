import { describe, expect, it } from "vitest";
import { continueRefusal } from "../../src/loop/continue-refusal.js";
import { idempotencyKeyOf } from "../../src/loop/idempotency-key.js";
import { runResultOf } from "../../src/loop/run-result.js";
import type { AgentEvent } from "../../src/types/events.js";
import { OutputValidationError } from "../../src/types/output.js";
import { assistant } from "../support/loop-context.js";
import { user } from "../support/loop-harness.js";

type AgentEnd = Extract<AgentEvent, { type: "agent_end" }>;
const end = (patch: Partial<AgentEnd>): AgentEnd => ({
  type: "agent_end",
  messages: [],
  stopReason: "stop",
  ...patch,
});

describe("a run's result", () => {
  it("carries the output, messages and stop reason of agent_end", () => {
    const messages = [user("hi"), assistant([{ type: "text", text: "{}" }], "stop")];
    expect(runResultOf(end({ output: { a: 1 }, messages }))).toEqual({
      output: { a: 1 },
      messages,
      stopReason: "stop",
    });
    const result = runResultOf(end({ stopReason: "length" }), "ignored");
    expect(result).toEqual({ output: undefined, messages: [], stopReason: "length" });
    expect("error" in result || "guardrail" in result).toBe(false);
  });

  it("an output that never validated is an OutputValidationError with its issues and raw text", () => {
    const issues = [{ path: ["a"], message: "expected number" }];
    const result = runResultOf(
      end({ stopReason: "error", outputFailure: { issues, raw: '{"a":"x"}' } }),
      "other",
    );
    expect(result.error).toBeInstanceOf(OutputValidationError);
    expect(result.error).toMatchObject({
      issues,
      raw: '{"a":"x"}',
      message: "The output did not match its schema: a: expected number",
    });
  });

  it("a failed run's error is its last error text, or says the run failed", () => {
    expect(runResultOf(end({ stopReason: "error" }), "rate limited").error).toEqual(
      new Error("rate limited"),
    );
    expect(runResultOf(end({ stopReason: "error" })).error).toEqual(new Error("The run failed"));
    expect(runResultOf(end({ stopReason: "aborted" }), "aborted").error).toBeUndefined();
  });

  it("carries the guardrail that tripped", () => {
    const guardrail = { guardrail: "pii", kind: "input" as const, reason: "an address" };
    expect(runResultOf(end({ stopReason: "guardrail", guardrail })).guardrail).toEqual(guardrail);
  });
});

describe("continuing a run", () => {
  it("needs a transcript, and after a reply a queued message", () => {
    const reply = assistant([{ type: "text", text: "done" }], "stop");
    expect(continueRefusal([], 3)).toBe("Cannot continue: no messages in context");
    expect(continueRefusal([user("hi"), reply], 0)).toBe("Cannot continue from message role: assistant");
    expect(continueRefusal([user("hi"), reply], 1)).toBeUndefined();
    expect(continueRefusal([user("hi")], 0)).toBeUndefined();
  });
});

describe("idempotency keys", () => {
  it("joins the agent id and the call id", () => {
    expect(idempotencyKeyOf("session-1", "call_1")).toBe("session-1:call_1");
  });
});

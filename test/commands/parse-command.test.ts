import { describe, expect, it } from "vitest";
import { callKey, callOfKey } from "../../src/commands/addressed-command.js";
import { CommandError } from "../../src/commands/command-error.js";
import { parseAgentCommand } from "../../src/commands/parse-command.js";

const refusal = (json: unknown): CommandError => {
  try {
    parseAgentCommand(json);
  } catch (error) {
    if (error instanceof CommandError) return error;
    throw error;
  }
  throw new Error("accepted");
};

describe("parseAgentCommand", () => {
  it.each([
    [
      { type: "APPROVE_TOOL", toolCallId: "c1" },
      { type: "APPROVE_TOOL", toolCallId: "c1" },
    ],
    [
      { type: "DENY_TOOL", toolCallId: "c1", reason: "no", agentPath: ["s1"] },
      { type: "DENY_TOOL", toolCallId: "c1", reason: "no", agentPath: ["s1"] },
    ],
    [{ type: "ABORT", agentPath: [] }, { type: "ABORT" }],
    [{ type: "CONTINUE_ONCE", extra: 1 }, { type: "CONTINUE_ONCE" }],
    [
      { type: "RAISE_BUDGET", limits: { maxTurns: 4 } },
      { type: "RAISE_BUDGET", limits: { maxTurns: 4 } },
    ],
    [
      {
        type: "ANSWER_TOOL",
        toolCallId: "c2",
        result: { content: [{ type: "text", text: "42" }] },
        isError: false,
      },
      {
        type: "ANSWER_TOOL",
        toolCallId: "c2",
        result: { content: [{ type: "text", text: "42" }] },
        isError: false,
      },
    ],
    [
      { type: "STEER", message: { role: "user", content: "hi", timestamp: 5 } },
      { type: "STEER", message: { role: "user", content: "hi", timestamp: 5 } },
    ],
    // 0.2's spellings: the AG-UI endpoint's and PostgreSQL's rows.
    [
      { type: "approve", toolCallId: "c1", agentPath: ["s1"] },
      { type: "APPROVE_TOOL", toolCallId: "c1", agentPath: ["s1"] },
    ],
    [
      { kind: "deny", toolCallId: "c1", reason: "x", requestId: "7" },
      { type: "DENY_TOOL", toolCallId: "c1", reason: "x" },
    ],
    [{ type: "continuePastBudget" }, { type: "CONTINUE_ONCE" }],
    [
      { type: "raiseBudget", limits: { maxModelCalls: 3 } },
      { type: "RAISE_BUDGET", limits: { maxModelCalls: 3 } },
    ],
    [{ kind: "abort" }, { type: "ABORT" }],
  ])("reads %j", (json, command) => {
    expect(parseAgentCommand(json)).toEqual(command);
  });

  it("gives a message without a timestamp one, and reads 0.2's text commands as user messages", () => {
    const prompt = parseAgentCommand({ kind: "prompt", text: "hello" });
    expect(prompt).toMatchObject({ type: "PROMPT", messages: [{ role: "user", content: "hello" }] });
    expect(typeof (prompt as { messages: { timestamp: number }[] }).messages[0]!.timestamp).toBe("number");
    expect(parseAgentCommand({ type: "followUp", text: "later" })).toMatchObject({
      type: "FOLLOW_UP",
      message: { role: "user", content: "later" },
    });
  });

  it("reads 0.2's steer, takes type over kind, stamps a steering message, and names the refused command", () => {
    expect(parseAgentCommand({ type: "steer", text: "shorter" })).toMatchObject({
      type: "STEER",
      message: { role: "user", content: "shorter" },
    });
    expect(parseAgentCommand({ kind: "abort", type: "DENY_TOOL", toolCallId: "c1" })).toEqual({
      type: "DENY_TOOL",
      toolCallId: "c1",
    });
    const steer = parseAgentCommand({ type: "STEER", message: { role: "user", content: "x" } });
    expect(typeof (steer as { message: { timestamp?: number } }).message.timestamp).toBe("number");
    expect(refusal({ type: "SET_MODEL", model: {} })).toMatchObject({
      command: "SET_MODEL",
      message:
        'Command "SET_MODEL" is not taken from outside the process (these are: PROMPT, STEER, FOLLOW_UP, APPROVE_TOOL, DENY_TOOL, ANSWER_TOOL, RAISE_BUDGET, CONTINUE_ONCE, ABORT)',
    });
    expect(refusal({ type: "RAISE_BUDGET", limits: { maxTurns: -1 } }).message).toMatch(
      /^RAISE_BUDGET: maxTurns/,
    );
    expect(refusal({ type: "APPROVE_TOOL" }).command).toBe("APPROVE_TOOL");
    expect(refusal({ type: "RAISE_BUDGET", limits: { maxTurns: -1 } }).command).toBe("RAISE_BUDGET");
    expect(refusal({ toolCallId: "c1" }).command).toBeUndefined();
    expect(refusal({ toolCallId: "c1" }).message).toMatch(/^Command without a type: type: /);
    expect(refusal(42).message).toMatch(/^Command without a type: the command: /);
  });

  it.each([
    [null, /without a type: the command/],
    [{}, /without a type/],
    [{ type: "APPROVE_TOOL" }, /"APPROVE_TOOL": toolCallId/],
    [{ type: "APPROVE_TOOL", toolCallId: "" }, /"APPROVE_TOOL": toolCallId/],
    [{ type: "DENY_TOOL", toolCallId: "c", agentPath: ["s1", ""] }, /agentPath\.1/],
    [{ type: "STEER", message: { role: "assistant", content: "x" } }, /message\.role/],
    [{ type: "RAISE_BUDGET", limits: { maxTurns: -1 } }, /maxTurns must be a finite number/],
    [{ type: "RAISE_BUDGET", limits: { maxWidgets: 1 } }, /"maxWidgets" is not a budget limit/],
    [{ type: "SET_MODEL", model: {} }, /"SET_MODEL" is not taken from outside/],
    [{ type: "RESET" }, /"RESET" is not taken from outside/],
  ])("refuses %j, naming what is wrong", (json, message) => {
    const error = refusal(json);
    expect(error.code).toBe("invalid_command");
    expect(error.message).toMatch(message);
  });
});

describe("callKey", () => {
  it("is one text key per call, and callOfKey reads it back", () => {
    expect(callKey({ toolCallId: "r1", agentPath: ["s1", "b1"] })).toBe("s1/b1/r1");
    expect(callKey({ toolCallId: "r1" })).toBe("r1");
    expect(callOfKey("s1/b1/r1")).toEqual({ toolCallId: "r1", agentPath: ["s1", "b1"] });
    expect(callOfKey("r1")).toEqual({ toolCallId: "r1" });
  });
});

import { describe, expect, it } from "vitest";
import { CommandError } from "../../src/commands/command-error.js";
import { userMessage } from "../../src/loop/messages.js";
import { type CommandDecision, decideCommand, type RunView } from "../../src/postgres/command-decision.js";
import type { StoredCommand } from "../../src/postgres/run-store.js";

const idle: RunView = {
  phase: "idle",
  requests: new Map(),
  awaitingApproval: [],
  awaitingClient: [],
  awaitingBudget: [],
};
/** A live run whose root call `call-1` and grandchild call `s1/b1/r1` wait for approval (request ids q1, q2). */
const running: RunView = {
  phase: "running",
  requests: new Map([
    ["call-1", "q1"],
    ["s1/b1/r1", "q2"],
    ["call-9", "q9"], // asked, not (yet) waiting in the live run: its request is recorded first
  ]),
  awaitingApproval: ["call-1", "s1/b1/r1"],
  awaitingClient: ["pick-1"],
  awaitingBudget: [],
};
const parked: RunView = { ...running, phase: "parked", awaitingApproval: [], awaitingClient: [] };
const pause = { budget: "maxModelCalls", limit: 1, used: 1, action: "pause", before: "modelCall" } as const;
const pausedRun: RunView = { ...running, requests: new Map(), awaitingApproval: [], awaitingBudget: [pause] };
const parkedAtBudget: RunView = { ...pausedRun, phase: "parked", awaitingClient: [] };
/** A live run whose sub-agent at s1 (not the root) waits at a limit. */
const childPaused: RunView = { ...pausedRun, awaitingBudget: [{ ...pause, agentPath: ["s1"] }] };
const childParked: RunView = { ...childPaused, phase: "parked", awaitingClient: [] };

const row = (command: StoredCommand["command"], requestId?: string): StoredCommand => ({
  id: "7",
  command: command!,
  ...(requestId === undefined ? {} : { requestId }),
});
const prompt = row({ type: "PROMPT", messages: [userMessage("hi")] });
const steer = row({ type: "STEER", message: userMessage("faster") });
const followUp = row({ type: "FOLLOW_UP", message: userMessage("then this") });
const abort = row({ type: "ABORT" });
const approve = row({ type: "APPROVE_TOOL", toolCallId: "call-1" }, "q1");
const approveNested = row({ type: "DENY_TOOL", toolCallId: "r1", agentPath: ["s1", "b1"] }, "q2");
const approveOld = row({ type: "APPROVE_TOOL", toolCallId: "call-1" }, "q0"); // bound to an earlier request
const approveUnbound = row({ type: "APPROVE_TOOL", toolCallId: "call-1" }); // a row stored without a binding
const approveLater = row({ type: "APPROVE_TOOL", toolCallId: "call-9" }, "q9");
const approveUnknown = row({ type: "APPROVE_TOOL", toolCallId: "nope", agentPath: ["ghost"] }, "q1");
const answer = row({ type: "ANSWER_TOOL", toolCallId: "pick-1", result: { content: [] } });
const answerUnknown = row({ type: "ANSWER_TOOL", toolCallId: "nope", result: { content: [] } });
const raise = row({ type: "RAISE_BUDGET", limits: { maxModelCalls: 9 } });
const once = row({ type: "CONTINUE_ONCE" });
const onceNested = row({ type: "CONTINUE_ONCE", agentPath: ["s1"] });
const raiseDeeper = row({ type: "RAISE_BUDGET", limits: { maxModelCalls: 9 }, agentPath: ["s1", "b1"] });
const steerNested = row({ type: "STEER", message: userMessage("psst"), agentPath: ["s1"] });
const unreadable: StoredCommand = {
  id: "8",
  error: new CommandError("invalid_command", 'Command "SET_MODEL" is not taken from outside the process', {
    command: "SET_MODEL",
  }),
};

/** The decision without the error object: its action, and the error's code and what it names. */
function summary(decision: CommandDecision) {
  if (decision.action !== "refuse") return decision;
  const { code, command, agentPath, toolCallId, message } = decision.error;
  return { action: "refuse", code, command, agentPath, toolCallId, message };
}

describe("what a worker does with a stored command (decideCommand)", () => {
  const table: [string, RunView, StoredCommand, unknown][] = [
    ["a prompt while idle starts a run", idle, prompt, { action: "start" }],
    ["a prompt while a run is on waits for it to end", running, prompt, { action: "keep" }],
    ["a prompt while a run is parked waits for it", parked, prompt, { action: "keep" }],
    ["a steer while idle is taken as a prompt", idle, steer, { action: "start" }],
    ["a follow-up while idle is taken as a prompt", idle, followUp, { action: "start" }],
    ["a steer goes to the running run", running, steer, { action: "apply" }],
    ["a follow-up goes to the running run", running, followUp, { action: "apply" }],
    ["a steer waits while the run is parked", parked, steer, { action: "keep" }],
    ["an abort goes to the running run", running, abort, { action: "apply" }],
    ["an abort ends a parked run", parked, abort, { action: "abort_parked" }],
    ["an abort with nothing running is stale", idle, abort, { action: "stale", reason: "nothing runs" }],
    ["an approval of a call waiting in the live run applies", running, approve, { action: "apply" }],
    ["a decision on a grandchild's call applies by its path", running, approveNested, { action: "apply" }],
    ["an unbound approval binds to the call's request now", running, approveUnbound, { action: "apply" }],
    [
      "a decision for a call that asked but does not wait yet is kept",
      running,
      approveLater,
      { action: "keep" },
    ],
    ["a decision on a parked run's call resumes it", parked, approve, { action: "resume" }],
    [
      "a decision bound to an earlier request is stale",
      running,
      approveOld,
      { action: "stale", reason: "the approval request of call call-1 was answered" },
    ],
    [
      "a decision for a call that never asked is stale",
      parked,
      approveUnknown,
      { action: "stale", reason: "the approval request of call ghost/nope was answered" },
    ],
    [
      "a decision with no run is stale",
      { ...idle, requests: running.requests },
      approve,
      { action: "stale", reason: "no run waits for call call-1" },
    ],
    ["a client's result for a waiting client call applies", running, answer, { action: "apply" }],
    [
      "a client's result for a call that does not wait is refused, naming the call",
      running,
      answerUnknown,
      {
        action: "refuse",
        code: "not_waiting",
        command: "ANSWER_TOOL",
        agentPath: [],
        toolCallId: "nope",
        message: "ANSWER_TOOL: tool call nope does not wait for a client's result",
      },
    ],
    ["a raise goes to a live run paused at a limit", pausedRun, raise, { action: "apply" }],
    ["continue-once goes to a live run paused at a limit", pausedRun, once, { action: "apply" }],
    ["a raise resumes a run parked at a limit", parkedAtBudget, raise, { action: "resume" }],
    ["continue-once resumes a run parked at a limit", parkedAtBudget, once, { action: "resume" }],
    [
      "a raise for a run that does not wait at a limit is stale",
      running,
      raise,
      { action: "stale", reason: "no run waits at a budget limit" },
    ],
    [
      "a sub-agent's continue-once resumes a run parked with it at a limit",
      childParked,
      onceNested,
      { action: "resume" },
    ],
    [
      "a sub-agent's continue-once goes to a live run where it waits",
      childPaused,
      onceNested,
      { action: "apply" },
    ],
    [
      "a root's raise while only a sub-agent waits at a limit is stale",
      childParked,
      raise,
      { action: "stale", reason: "no run waits at a budget limit" },
    ],
    [
      "a budget command for an agent below the paused one is stale, naming its path",
      childParked,
      raiseDeeper,
      { action: "stale", reason: "no run waits at a budget limit at agent path s1/b1" },
    ],
    [
      "a sub-agent's budget command while only the root waits is stale, naming its path",
      parkedAtBudget,
      onceNested,
      { action: "stale", reason: "no run waits at a budget limit at agent path s1" },
    ],
    [
      "a steer for a sub-agent is refused, naming its path",
      running,
      steerNested,
      {
        action: "refuse",
        code: "refused",
        command: "STEER",
        agentPath: ["s1"],
        toolCallId: undefined,
        message: "STEER: a worker takes STEER for the root agent only, not at agent path s1",
      },
    ],
    [
      "a row that holds no command is refused with its CommandError",
      running,
      unreadable,
      {
        action: "refuse",
        code: "invalid_command",
        command: "SET_MODEL",
        agentPath: [],
        toolCallId: undefined,
        message: 'Command "SET_MODEL" is not taken from outside the process',
      },
    ],
  ];

  it.each(table)("%s", (_name, run, stored, expected) => {
    expect(summary(decideCommand(run, stored))).toEqual(expected);
  });

  it("every command a row may hold, in every phase, gets a decision (never a throw)", () => {
    const views = [idle, running, parked, pausedRun, parkedAtBudget, childPaused, childParked];
    const rows = [
      prompt,
      steer,
      followUp,
      abort,
      approve,
      approveNested,
      answer,
      raise,
      once,
      onceNested,
      unreadable,
    ];
    const actions = new Set<string>();
    for (const view of views) for (const stored of rows) actions.add(decideCommand(view, stored).action);
    expect([...actions].sort()).toEqual([
      "abort_parked",
      "apply",
      "keep",
      "refuse",
      "resume",
      "stale",
      "start",
    ]);
  });
});

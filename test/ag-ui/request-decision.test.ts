/**
 * The AG-UI endpoint's decisions as data: `decideRunRequest` from (the thread's state, the request) to
 * what the handler does — one row per branch — and `resumeCommands`, the machine's commands a run
 * input's `resume` entries give.
 */
import { describe, expect, it } from "vitest";
import type { ClientAnswer } from "../../src/ag-ui/client-answers.js";
import {
  decideRunRequest,
  type RunDecision,
  type RunRequestView,
  resumeCommands,
  type ThreadView,
} from "../../src/ag-ui/request-decision.js";

const idle: ThreadView = {
  threadId: "t1",
  requestedRunExists: false,
  liveRunId: undefined,
  agentRunning: false,
  awaitingClient: [],
};
/** The agent's run waits for the client's answer to call_c (no AG-UI run goes on: it ended, parked). */
const parked: ThreadView = {
  ...idle,
  agentRunning: true,
  awaitingClient: [{ toolCallId: "call_c", toolName: "pick_colour", args: {} }],
};
const streaming: ThreadView = { ...idle, liveRunId: "r1", agentRunning: true };

const answer = (toolCallId: string): ClientAnswer => ({
  type: "ANSWER_TOOL",
  toolCallId,
  result: { content: [{ type: "text", text: "teal" }] },
  isError: false,
});
const request = (fields: Partial<RunRequestView> = {}): RunRequestView => ({
  runId: "r2",
  prompt: undefined,
  answers: [],
  resumes: false,
  ...fields,
});
const refusal = (decision: RunDecision) =>
  decision.type === "refuse"
    ? { type: "refuse", code: decision.error.code, name: decision.error.name }
    : decision;

describe("decideRunRequest", () => {
  const rows: [string, ThreadView, RunRequestView, unknown][] = [
    [
      "a run that exists is joined, never started twice",
      { ...streaming, requestedRunExists: true },
      request({ runId: "r1", prompt: "Hello" }),
      { type: "join", runId: "r1", commands: [] },
    ],
    [
      "answers without new text join the AG-UI run going on",
      streaming,
      request({ answers: [answer("call_c")] }),
      { type: "join", runId: "r1", commands: [answer("call_c")] },
    ],
    [
      "resume entries without new text join the AG-UI run going on",
      streaming,
      request({ resumes: true }),
      { type: "join", runId: "r1", commands: [] },
    ],
    [
      "new text while an AG-UI run goes on is thread_busy",
      streaming,
      request({ prompt: "Hello" }),
      { type: "refuse", code: "thread_busy", name: "AgUiError" },
    ],
    [
      "new text while calls wait for the client unanswered is awaiting_client",
      parked,
      request({ prompt: "Never mind" }),
      { type: "refuse", code: "awaiting_client", name: "AgUiError" },
    ],
    [
      "no answer to an agent's run going on without an AG-UI run is thread_busy",
      parked,
      request(),
      { type: "refuse", code: "thread_busy", name: "AgUiError" },
    ],
    [
      "answers continue the agent's run waiting for the client; new text with them is steered first",
      parked,
      request({ prompt: "And then blue", answers: [answer("call_c")] }),
      {
        type: "continue",
        commands: [
          { type: "STEER", message: expect.objectContaining({ role: "user", content: "And then blue" }) },
          answer("call_c"),
        ],
      },
    ],
    [
      "answers to an idle agent are the CommandError not_waiting",
      idle,
      request({ prompt: "Hello", answers: [answer("call_c")] }),
      { type: "refuse", code: "not_waiting", name: "CommandError" },
    ],
    [
      "no new text for an idle agent is no_new_message",
      idle,
      request(),
      { type: "refuse", code: "no_new_message", name: "AgUiError" },
    ],
    [
      "new text for an idle agent starts a run",
      idle,
      request({ prompt: "Hello" }),
      { type: "start", prompt: "Hello" },
    ],
  ];
  it.each(rows)("%s", (_name, thread, runRequest, expected) => {
    expect(refusal(decideRunRequest(thread, runRequest))).toEqual(expected);
  });

  it("names the call of a stray answer in its CommandError", () => {
    const decision = decideRunRequest(
      idle,
      request({ answers: [{ ...answer("call_z"), agentPath: ["s1"] }] }),
    );
    expect(decision.type === "refuse" && decision.error).toMatchObject({
      code: "not_waiting",
      command: "ANSWER_TOOL",
      agentPath: ["s1"],
      toolCallId: "call_z",
    });
  });
});

describe("resumeCommands", () => {
  const waiting = [
    { toolCallId: "call_a", toolName: "reverse", args: {} },
    { toolCallId: "call_r", toolName: "refund", args: {}, agentPath: ["s1"] },
  ];
  const rows: [string, NonNullable<Parameters<typeof resumeCommands>[0]>, unknown[]][] = [
    [
      "resolved approves",
      [{ interruptId: "call_a", status: "resolved" }],
      [{ type: "APPROVE_TOOL", toolCallId: "call_a" }],
    ],
    [
      "approved: false denies, with the reason",
      [{ interruptId: "call_a", status: "resolved", payload: { approved: false, reason: "No" } }],
      [{ type: "DENY_TOOL", toolCallId: "call_a", reason: "No" }],
    ],
    [
      "cancelled denies",
      [{ interruptId: "call_a", status: "cancelled" }],
      [{ type: "DENY_TOOL", toolCallId: "call_a" }],
    ],
    [
      "a sub-agent's call is found by its id alone",
      [{ interruptId: "call_r", status: "resolved" }],
      [{ type: "APPROVE_TOOL", toolCallId: "call_r", agentPath: ["s1"] }],
    ],
    [
      "a payload's agentPath that names no waiting call gives nothing (answered already)",
      [{ interruptId: "call_r", status: "resolved", payload: { agentPath: ["s2"] } }],
      [],
    ],
    ["a call that does not wait gives nothing", [{ interruptId: "call_gone", status: "resolved" }], []],
    [
      "a budget answer with limits raises them",
      [
        {
          interruptId: "budget",
          status: "resolved",
          payload: { limits: { maxModelCalls: 5 }, agentPath: ["s1"] },
        },
      ],
      [{ type: "RAISE_BUDGET", limits: { maxModelCalls: 5 }, agentPath: ["s1"] }],
    ],
    [
      "a budget answer without limits continues once",
      [{ interruptId: "budget", status: "resolved" }],
      [{ type: "CONTINUE_ONCE" }],
    ],
    [
      "a cancelled budget answer aborts",
      [{ interruptId: "budget", status: "cancelled" }],
      [{ type: "ABORT" }],
    ],
  ];
  it.each(rows)("%s", (_name, resume, expected) => {
    expect(resumeCommands(resume, waiting)).toEqual(expected);
  });

  it("refuses a budget answer's bad limits with CommandError invalid_command", () => {
    expect(() =>
      resumeCommands(
        [{ interruptId: "budget", status: "resolved", payload: { limits: { maxModelCalls: -1 } } }],
        [],
      ),
    ).toThrow(
      expect.objectContaining({ name: "CommandError", code: "invalid_command", command: "RAISE_BUDGET" }),
    );
  });
});

/**
 * The CLI at a budget pause: it writes the status line (usage against the limits it set) and asks —
 * raise (twice the limit, or a number), continue once, or stop — sending RAISE_BUDGET, CONTINUE_ONCE or
 * ABORT, a sub-agent's pause with its agentPath; `--budget` is parsed and checked, naming what is wrong.
 */
import { Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import { budgetStatusLine, parseBudgetOption, watchBudget } from "../../src/cli/budget-watch.js";
import type { AddressedCommand } from "../../src/commands/addressed-command.js";
import type { AgentSurface } from "../../src/harness/agent-surface.js";
import type { HarnessEvent } from "../../src/harness/hooks.js";
import type { BudgetUsage } from "../../src/types/budget.js";

/** The events a harness would emit, and the commands the watcher sends it. */
function surfaceRecordingCommands() {
  const events$ = new Subject<HarnessEvent>();
  const calls: AddressedCommand[] = [];
  const surface = {
    events$,
    send: (command: AddressedCommand) => calls.push(command),
  } as unknown as AgentSurface;
  return { surface, events$, calls };
}

const usage: BudgetUsage = {
  tokens: 1234,
  costUsd: 0.0123,
  modelCalls: 3,
  toolCalls: 2,
  toolCallsByTool: { bash: 2 },
  turns: 3,
  wallMs: 2100,
};

const pause = (extra: object = {}) =>
  ({
    type: "budget_exceeded",
    budget: "maxModelCalls",
    limit: 3,
    used: 3,
    action: "pause",
    before: "modelCall",
    ...extra,
  }) as HarnessEvent;

/** Answers each question with the next answer, recording the questions. */
function answering(...answers: (string | undefined)[]) {
  const questions: string[] = [];
  let answered!: () => void;
  const done = new Promise<void>((resolve) => {
    answered = resolve;
  });
  const ask = async (question: string) => {
    questions.push(question);
    const answer = answers.shift();
    if (answers.length === 0) queueMicrotask(answered);
    return answer;
  };
  return { ask, questions, done };
}

describe("budgetStatusLine", () => {
  it("shows every count, against the limits that are set", () => {
    expect(budgetStatusLine(usage, { maxModelCalls: 20, maxCostUsd: 0.5, maxWallMs: 60_000 })).toBe(
      "budget: model calls 3/20 · turns 3 · tool calls 2 · tokens 1,234 · cost $0.0123/$0.5000 · wall 2.1 s/60.0 s",
    );
  });
});

describe("watchBudget", () => {
  it("raise: doubles the limit that was reached, and the status line shows the new limit", async () => {
    const { surface, events$, calls } = surfaceRecordingCommands();
    const { ask, questions, done } = answering("r");
    const lines: string[] = [];
    const watching = watchBudget(surface, {
      ask,
      write: (line) => lines.push(line),
      limits: { maxModelCalls: 3 },
    });
    events$.next(pause());
    await done;
    expect(questions).toEqual(["maxModelCalls reached (3 of 3): [r]aise to 6 / [c]ontinue once / [s]top? "]);
    await Promise.resolve();
    expect(calls).toEqual([{ type: "RAISE_BUDGET", limits: { maxModelCalls: 6 } }]);
    events$.next({ type: "agent_end", messages: [], stopReason: "stop", budgetUsage: usage } as HarnessEvent);
    expect(lines.at(-1)).toContain("model calls 3/6");
    watching.unsubscribe();
  });

  it("raise to a number, continue once, and stop — a sub-agent's with its agentPath", async () => {
    const { surface, events$, calls } = surfaceRecordingCommands();
    const { ask, done } = answering("raise 50", "c", "s");
    const watching = watchBudget(surface, { ask, write: () => {}, limits: {} });
    events$.next(pause());
    events$.next(
      pause({ type: "loop_detected", budget: "maxIdenticalCalls", toolName: "bash", agentPath: ["t1"] }),
    );
    events$.next(pause());
    await done;
    for (let tick = 0; tick < 5; tick++) await Promise.resolve();
    expect(calls).toEqual([
      { type: "RAISE_BUDGET", limits: { maxModelCalls: 50 } },
      { type: "CONTINUE_ONCE", agentPath: ["t1"] },
      { type: "ABORT" },
    ]);
    watching.unsubscribe();
  });

  it("stops the run when nobody answers (input ended), and asks nothing for warn", async () => {
    const { surface, events$, calls } = surfaceRecordingCommands();
    const { ask, questions, done } = answering(undefined);
    const watching = watchBudget(surface, { ask, write: () => {}, limits: {} });
    events$.next(pause({ action: "warn" }));
    events$.next(pause());
    await done;
    await Promise.resolve();
    expect(questions).toHaveLength(1);
    expect(calls).toEqual([{ type: "ABORT" }]);
    watching.unsubscribe();
  });
});

describe("watchBudget, a raise that is not a limit", () => {
  it("says why and asks again; nothing is sent until an answer is one", async () => {
    const { surface, events$, calls } = surfaceRecordingCommands();
    const { ask, questions, done } = answering("r lots", "r -3", "r 9");
    const lines: string[] = [];
    const watching = watchBudget(surface, { ask, write: (line) => lines.push(line), limits: {} });
    events$.next(pause());
    await done;
    await Promise.resolve();
    expect(questions).toHaveLength(3);
    expect(lines).toEqual(["not a limit: lots (a number, e.g. r 6)", "not a limit: -3 (a number, e.g. r 6)"]);
    expect(calls).toEqual([{ type: "RAISE_BUDGET", limits: { maxModelCalls: 9 } }]);
    watching.unsubscribe();
  });
});

describe("--budget", () => {
  it("parses a JSON object of limits", () => {
    expect(parseBudgetOption('{"maxModelCalls":20,"onExceeded":"stop"}')).toEqual({
      maxModelCalls: 20,
      onExceeded: "stop",
    });
  });

  it("refuses what is not JSON, not an object, or not a budget, naming it", () => {
    expect(() => parseBudgetOption("maxModelCalls=3")).toThrow(/--budget: not JSON/);
    expect(() => parseBudgetOption("[1]")).toThrow(/a JSON object of limits/);
    expect(() => parseBudgetOption('{"maxTurns":-1}')).toThrow(/--budget: maxTurns must be a finite number/);
    expect(() => parseBudgetOption('{"maxCalls":1}')).toThrow(/"maxCalls" is not a budget limit/);
  });
});

/**
 * `harnessMachine` on its own, provided with actors the test drives (`harnessMachine.provide(…)`) and
 * run with `createActor`: the operation each phase carries, the input of each phase's actor, what its
 * outcome makes of the operation (`result`, `error`, `aborted`) when `settle` hands it over, and the
 * commands and events the harness passes to its agent and its session. The phases a real
 * `AgentHarness` goes through are tested in test/harness/harness-machine.test.ts.
 */
import { describe, expect, it } from "vitest";
import { type AnyEventObject, createActor, fromCallback, fromPromise, waitFor } from "xstate";
import {
  type HarnessMachineEvent,
  type HarnessMachineInput,
  type HarnessOperation,
  harnessMachine,
  promptOperationOf,
  type TurnInput,
} from "../../src/machines/harness/harness.machine.js";
import type { AgentMessage, ImageContent } from "../../src/types/messages.js";
import { assistant } from "../support/loop-context.js";
import { user } from "../support/loop-harness.js";

/** A promise actor's run the test settles by hand. */
interface PendingStep {
  input: unknown;
  resolve(output: unknown): void;
  reject(error: unknown): void;
}

function pending(steps: PendingStep[]) {
  return fromPromise<never, unknown>(
    ({ input }) => new Promise((resolve, reject) => steps.push({ input, resolve, reject } as PendingStep)),
  );
}

/** A harness machine whose actors record what they get; `settle` records each operation handed over. */
function startHarness(input?: HarnessMachineInput) {
  const seen = {
    settled: [] as (HarnessOperation | undefined)[],
    turns: [] as { input: TurnInput; sendBack(event: AnyEventObject): void; received: AnyEventObject[] }[],
    toAgent: [] as AnyEventObject[],
    toSession: [] as AnyEventObject[],
    backoffs: [] as PendingStep[],
    compactions: [] as PendingStep[],
    navigations: [] as PendingStep[],
  };
  const machine = harnessMachine.provide({
    actions: { settle: (_, { operation }) => void seen.settled.push(operation) },
    actors: {
      agent: fromCallback(({ receive }) => receive((event) => seen.toAgent.push(event))) as never,
      session: fromCallback(({ receive }) => receive((event) => seen.toSession.push(event))),
      turn: fromCallback(({ input, sendBack, receive }) => {
        const turn = { input, sendBack, received: [] as AnyEventObject[] };
        seen.turns.push(turn);
        receive((event) => turn.received.push(event));
      }),
      backoff: pending(seen.backoffs) as never,
      compact: pending(seen.compactions) as never,
      navigate: pending(seen.navigations) as never,
    },
  });
  const actor = createActor(machine, { input }).start();
  const send = (event: HarnessMachineEvent) => actor.send(event);
  const phase = () => actor.getSnapshot().value;
  /** Settles the last pending step and waits until the machine left `from`. */
  const settleStep = async (
    steps: PendingStep[],
    from: string,
    outcome: { output?: unknown; error?: unknown },
  ) => {
    const step = steps.at(-1)!;
    if ("error" in outcome) step.reject(outcome.error);
    else step.resolve(outcome.output);
    await waitFor(actor, (snapshot) => snapshot.value !== from);
  };
  return { actor, seen, send, phase, settleStep };
}

const reply = assistant([{ type: "text", text: "Done." }], "stop");
const turnDone = (verdict: "done" | "retryable" | "overflow", compactionDue = false) => ({
  type: "TURN_DONE" as const,
  outcome: { verdict, compactionDue },
  reply,
});
const prompt = (text: string) => ({
  type: "PROMPT" as const,
  messages: [{ role: "user" as const, content: text, timestamp: 1 }],
});

describe("harnessMachine, provided", () => {
  it("starts idle, with no operation, no retries and no overflow recovery unless its input says so", () => {
    const { actor, seen } = startHarness();
    expect(actor.getSnapshot().value).toBe("idle");
    expect(actor.getSnapshot().context).toEqual({
      maxRetries: 0,
      overflowRecovery: false,
      operation: undefined,
      attempt: 0,
      overflowRecovered: false,
      turnMode: "start",
      compactionReason: "manual",
    });
    expect(seen.settled).toEqual([undefined]);
    const configured = startHarness({ maxRetries: 3, overflowRecovery: true });
    expect(configured.actor.getSnapshot().context).toMatchObject({ maxRetries: 3, overflowRecovery: true });
  });

  it("PROMPT: the turn starts with the prompt's operation; its reply is the operation's result", () => {
    const { actor, seen, send, phase } = startHarness();
    const messages = [user("earlier"), user("hello")];
    send({ type: "PROMPT", messages });
    expect(phase()).toBe("turn");
    const operation = { kind: "prompt", messages, prompt: "hello", images: [] };
    expect(actor.getSnapshot().context).toMatchObject({ operation, attempt: 0, turnMode: "start" });
    expect(seen.turns.map((turn) => turn.input)).toEqual([{ mode: "start", operation }]);
    seen.turns[0]!.sendBack(turnDone("done"));
    expect(phase()).toBe("idle");
    expect(seen.settled.at(-1)).toEqual({ ...operation, result: reply });
    expect(actor.getSnapshot().context.operation).toBeUndefined();
  });

  it("a turn without a reply settles its operation without a result", () => {
    const { seen, send } = startHarness();
    send(prompt("hi"));
    seen.turns[0]!.sendBack({
      type: "TURN_DONE",
      outcome: { verdict: "done", compactionDue: false },
      reply: undefined,
    });
    expect(seen.settled.at(-1)).not.toHaveProperty("result");
  });

  it("a failed turn settles its operation with the error", () => {
    const { seen, send, phase } = startHarness();
    send(prompt("hi"));
    const error = new Error("entries not persisted");
    seen.turns[0]!.sendBack({ type: "TURN_FAILED", error });
    expect(phase()).toBe("idle");
    expect(seen.settled.at(-1)).toMatchObject({ kind: "prompt", error });
  });

  it("RESUME: the turn starts with the resume operation", () => {
    const { seen, send } = startHarness();
    send({ type: "RESUME", operation: { kind: "resume" } });
    expect(seen.turns.map((turn) => turn.input)).toEqual([{ mode: "start", operation: { kind: "resume" } }]);
  });

  it("a retryable turn waits out a backoff per attempt and continues, until the retries are used up", async () => {
    const { actor, seen, send, phase, settleStep } = startHarness({ maxRetries: 2, overflowRecovery: false });
    send(prompt("hi"));
    seen.turns[0]!.sendBack(turnDone("retryable"));
    expect(phase()).toBe("retry");
    expect(seen.backoffs.map((step) => step.input)).toEqual([{ attempt: 1 }]);
    await settleStep(seen.backoffs, "retry", { output: undefined });
    expect(phase()).toBe("turn");
    expect(seen.turns[1]!.input.mode).toBe("continue");
    seen.turns[1]!.sendBack(turnDone("retryable"));
    expect(seen.backoffs.map((step) => step.input)).toEqual([{ attempt: 1 }, { attempt: 2 }]);
    await settleStep(seen.backoffs, "retry", { output: undefined });
    seen.turns[2]!.sendBack(turnDone("retryable"));
    expect(phase()).toBe("idle");
    expect(seen.settled.at(-1)).toMatchObject({ kind: "prompt", result: reply });
    expect(actor.getSnapshot().context.attempt).toBe(2);
  });

  it("a new operation starts with its attempts, overflow recovery and turn mode reset", async () => {
    const { actor, seen, send, settleStep } = startHarness({ maxRetries: 1, overflowRecovery: true });
    send(prompt("one"));
    seen.turns[0]!.sendBack(turnDone("overflow"));
    await settleStep(seen.compactions, "compaction", { output: { compacted: true } });
    seen.turns[1]!.sendBack(turnDone("retryable"));
    await settleStep(seen.backoffs, "retry", { output: undefined });
    seen.turns[2]!.sendBack(turnDone("done"));
    expect(actor.getSnapshot().context).toMatchObject({
      attempt: 1,
      overflowRecovered: true,
      turnMode: "continue",
    });
    send(prompt("two"));
    expect(actor.getSnapshot().context).toMatchObject({
      attempt: 0,
      overflowRecovered: false,
      turnMode: "start",
    });
    expect(seen.turns[3]!.input.mode).toBe("start");
  });

  it("a backoff that fails settles the operation with its error", async () => {
    const { seen, send, phase, settleStep } = startHarness({ maxRetries: 1, overflowRecovery: false });
    send(prompt("hi"));
    seen.turns[0]!.sendBack(turnDone("retryable"));
    const error = new Error("backoff failed");
    await settleStep(seen.backoffs, "retry", { error });
    expect(phase()).toBe("idle");
    expect(seen.settled.at(-1)).toMatchObject({ result: reply, error });
  });

  it("an overflow compacts once and continues the turn; a second overflow ends the operation", async () => {
    const { actor, seen, send, phase, settleStep } = startHarness({ maxRetries: 0, overflowRecovery: true });
    send(prompt("hi"));
    seen.turns[0]!.sendBack(turnDone("overflow"));
    expect(phase()).toBe("compaction");
    expect(actor.getSnapshot().context).toMatchObject({
      compactionReason: "overflow",
      overflowRecovered: true,
    });
    expect(seen.compactions.map((step) => step.input)).toEqual([
      { reason: "overflow", instructions: undefined },
    ]);
    await settleStep(seen.compactions, "compaction", { output: { compacted: true } });
    expect(phase()).toBe("turn");
    expect(seen.turns[1]!.input.mode).toBe("continue");
    seen.turns[1]!.sendBack(turnDone("overflow"));
    expect(phase()).toBe("idle");
    expect(seen.settled.at(-1)).toMatchObject({ result: reply });
  });

  it("an overflow that could not be compacted ends the operation with the turn's reply", async () => {
    const { seen, send, phase, settleStep } = startHarness({ maxRetries: 0, overflowRecovery: true });
    send(prompt("hi"));
    seen.turns[0]!.sendBack(turnDone("overflow"));
    await settleStep(seen.compactions, "compaction", { output: { compacted: false } });
    expect(phase()).toBe("idle");
    expect(seen.turns).toHaveLength(1);
    expect(seen.settled.at(-1)).toEqual({ ...promptOperationOf(prompt("hi").messages), result: reply });
  });

  it("without overflow recovery an overflow ends the operation", () => {
    const { seen, send, phase } = startHarness({ maxRetries: 1, overflowRecovery: false });
    send(prompt("hi"));
    seen.turns[0]!.sendBack(turnDone("overflow"));
    expect(phase()).toBe("idle");
    expect(seen.compactions).toEqual([]);
  });

  it("a failed turn past the threshold does not compact: only a turn that is done does", () => {
    const { seen, send, phase } = startHarness({ maxRetries: 0, overflowRecovery: false });
    send(prompt("hi"));
    seen.turns[0]!.sendBack(turnDone("retryable", true));
    expect(phase()).toBe("idle");
    send(prompt("again"));
    seen.turns[1]!.sendBack(turnDone("overflow", true));
    expect(phase()).toBe("idle");
    expect(seen.compactions).toEqual([]);
  });

  it("a turn that leaves the context past the threshold compacts, then the operation ends with the turn's reply", async () => {
    const { actor, seen, send, phase, settleStep } = startHarness();
    send(prompt("hi"));
    seen.turns[0]!.sendBack(turnDone("done", true));
    expect(phase()).toBe("compaction");
    expect(actor.getSnapshot().context).toMatchObject({
      compactionReason: "threshold",
      overflowRecovered: false,
    });
    expect(seen.compactions.map((step) => step.input)).toEqual([
      { reason: "threshold", instructions: undefined },
    ]);
    await settleStep(seen.compactions, "compaction", { output: { compacted: true } });
    expect(phase()).toBe("idle");
    expect(seen.turns).toHaveLength(1);
    expect(seen.settled.at(-1)).toEqual({ ...promptOperationOf(prompt("hi").messages), result: reply });
  });

  it("COMPACT: the compaction gets the instructions; its outcome is the operation's result, or its error", async () => {
    const { seen, send, phase, settleStep } = startHarness();
    send({ type: "COMPACT", operation: { kind: "compact", instructions: "keep the names" } });
    expect(phase()).toBe("compaction");
    expect(seen.compactions.map((step) => step.input)).toEqual([
      { reason: "manual", instructions: "keep the names" },
    ]);
    await settleStep(seen.compactions, "compaction", { output: { compacted: true } });
    expect(seen.settled.at(-1)).toEqual({
      kind: "compact",
      instructions: "keep the names",
      result: { compacted: true },
    });
    send({ type: "COMPACT", operation: { kind: "compact" } });
    const error = new Error("no summary");
    await settleStep(seen.compactions, "compaction", { error });
    expect(seen.settled.at(-1)).toEqual({ kind: "compact", error });
  });

  it("a manual compaction after an overflow's compaction does not continue a turn", async () => {
    const { seen, send, phase, settleStep } = startHarness({ maxRetries: 0, overflowRecovery: true });
    send(prompt("hi"));
    seen.turns[0]!.sendBack(turnDone("overflow"));
    await settleStep(seen.compactions, "compaction", { output: { compacted: true } });
    seen.turns[1]!.sendBack(turnDone("done"));
    send({ type: "COMPACT", operation: { kind: "compact" } });
    await settleStep(seen.compactions, "compaction", { output: { compacted: true } });
    expect(phase()).toBe("idle");
    expect(seen.turns).toHaveLength(2);
  });

  it("NAVIGATE: the navigation gets the operation; its output is the result, or its error", async () => {
    const { seen, send, phase, settleStep } = startHarness();
    const operation = { kind: "navigate" as const, targetId: "e1", options: { summarize: true } };
    send({ type: "NAVIGATE", operation });
    expect(phase()).toBe("branchSummary");
    expect(seen.navigations.map((step) => step.input)).toEqual([operation]);
    await settleStep(seen.navigations, "branchSummary", { output: { editorText: "x" } });
    expect(seen.settled.at(-1)).toEqual({ ...operation, result: { editorText: "x" } });
    send({ type: "NAVIGATE", operation });
    const error = new Error("no such entry");
    await settleStep(seen.navigations, "branchSummary", { error });
    expect(seen.settled.at(-1)).toEqual({ ...operation, error });
  });

  it("a navigation without an output settles without a result", async () => {
    const { seen, send, settleStep } = startHarness();
    const operation = { kind: "navigate" as const, targetId: "e1", options: {} };
    send({ type: "NAVIGATE", operation });
    await settleStep(seen.navigations, "branchSummary", { output: undefined });
    expect(seen.settled.at(-1)).toEqual(operation);
  });

  it("ABORT ends a backoff, a compaction and a navigation at once, the operation marked aborted", () => {
    for (const [start, phaseName] of [
      [{ type: "COMPACT", operation: { kind: "compact" } }, "compaction"],
      [{ type: "NAVIGATE", operation: { kind: "navigate", targetId: "e1", options: {} } }, "branchSummary"],
    ] as const) {
      const { seen, send, phase } = startHarness();
      send(start);
      expect(phase()).toBe(phaseName);
      send({ type: "ABORT" });
      expect(phase()).toBe("idle");
      expect(seen.settled.at(-1)).toEqual({ ...start.operation, aborted: true });
    }
    const { seen, send, phase } = startHarness({ maxRetries: 1, overflowRecovery: false });
    send(prompt("hi"));
    seen.turns[0]!.sendBack(turnDone("retryable"));
    send({ type: "ABORT" });
    expect(phase()).toBe("idle");
    expect(seen.settled.at(-1)).toMatchObject({ result: reply, aborted: true });
  });

  it("ABORT during a turn goes to the turn actor, which ends the turn", () => {
    const { seen, send, phase } = startHarness();
    send(prompt("hi"));
    send({ type: "ABORT" });
    expect(phase()).toBe("turn");
    expect(seen.turns[0]!.received).toEqual([{ type: "ABORT" }]);
  });

  it("ABORT while idle changes nothing", () => {
    const { actor, seen, send } = startHarness();
    send({ type: "ABORT" });
    expect(actor.getSnapshot().value).toBe("idle");
    expect(seen.settled).toEqual([undefined]);
  });

  it("passes the agent's commands to its agent in any phase, and session commands to its session", () => {
    const { seen, send } = startHarness();
    const commands: HarnessMachineEvent[] = [
      { type: "APPROVE_TOOL", toolCallId: "t1" },
      { type: "DENY_TOOL", toolCallId: "t1", reason: "no" },
      { type: "ANSWER_TOOL", toolCallId: "t1", result: { content: [] } },
      { type: "STEER", message: user("steer") },
      { type: "FOLLOW_UP", message: user("later") },
    ];
    send(prompt("hi"));
    for (const command of commands) send(command);
    expect(seen.toAgent).toEqual(commands);
    const sessionCommands: HarnessMachineEvent[] = [
      { type: "session.append", entry: { type: "custom", customType: "note" } },
      { type: "session.label", targetId: "e1", label: "start" },
      { type: "session.branch", targetId: null },
      { type: "session.compact", summary: "s", firstKeptEntryId: "e2", tokensBefore: 10 },
      { type: "session.flush" },
    ];
    for (const command of sessionCommands) send(command);
    expect(seen.toSession).toEqual(sessionCommands);
  });

  it("records the agent's run events in its session", () => {
    const { seen, send } = startHarness();
    const events = [
      { type: "agent_start" },
      { type: "message_end", message: reply },
      { type: "turn_end", message: reply, toolResults: [] },
      { type: "agent_end", messages: [reply], stopReason: "stop" },
    ] as const;
    for (const event of events)
      send({ type: `agent.${event.type}`, agentId: "a1", event } as HarnessMachineEvent);
    expect(seen.toSession).toEqual(events.map((event) => ({ type: "session.record", event })));
  });
});

describe("harnessMachine without its implementations", () => {
  /** The harness machine with only `provided`; the error it failed with, if it did. */
  function startWith(provided: Parameters<typeof harnessMachine.provide>[0]) {
    const errors: unknown[] = [];
    const settled: (HarnessOperation | undefined)[] = [];
    const actor = createActor(
      harnessMachine.provide({
        ...provided,
        actions: { settle: (_, { operation }) => void settled.push(operation) },
      }),
    );
    actor.subscribe({ error: (error) => errors.push(error) });
    actor.start();
    return { actor, errors, settled };
  }
  const quietAgent = fromCallback(() => {}) as never;

  it("fails at once without its session actor, naming it", () => {
    const { actor, errors } = startWith({ actors: { agent: quietAgent } });
    expect(actor.getSnapshot().status).toBe("error");
    expect(errors).toEqual([new Error('harnessMachine: actor "session" not provided')]);
  });

  it("fails at the first prompt without its turn actor, naming it", () => {
    const { actor, errors } = startWith({ actors: { agent: quietAgent, session: fromCallback(() => {}) } });
    expect(actor.getSnapshot().status).toBe("active");
    actor.send(prompt("hi"));
    expect(actor.getSnapshot().status).toBe("error");
    expect(errors).toEqual([new Error('harnessMachine: actor "turn" not provided')]);
  });

  it("a compaction or a navigation without its actor settles with an error naming the actor", async () => {
    const { actor, settled } = startWith({ actors: { agent: quietAgent, session: fromCallback(() => {}) } });
    actor.send({ type: "COMPACT", operation: { kind: "compact" } });
    await waitFor(actor, (snapshot) => snapshot.value === "idle");
    expect(settled.at(-1)).toEqual({
      kind: "compact",
      error: new Error('harnessMachine: actor "compact" not provided'),
    });
    const operation = { kind: "navigate" as const, targetId: "e1", options: {} };
    actor.send({ type: "NAVIGATE", operation });
    await waitFor(actor, (snapshot) => snapshot.value === "idle");
    expect(settled.at(-1)).toEqual({
      ...operation,
      error: new Error('harnessMachine: actor "navigate" not provided'),
    });
  });
});

describe("promptOperationOf", () => {
  const image: ImageContent = { type: "image", data: "aGk=", mimeType: "image/png" };

  it("the last message is the prompt: its text, and its images", () => {
    const texts = [user("first"), user("second")];
    expect(promptOperationOf(texts)).toEqual({
      kind: "prompt",
      messages: texts,
      prompt: "second",
      images: [],
    });
    const parts: AgentMessage = {
      role: "user",
      content: [{ type: "text", text: "What is " }, image, { type: "text", text: "this?" }],
      timestamp: 1,
    };
    expect(promptOperationOf([parts])).toEqual({
      kind: "prompt",
      messages: [parts],
      prompt: "What is this?",
      images: [image],
    });
  });

  it("no user message last: an empty prompt", () => {
    expect(promptOperationOf([])).toEqual({ kind: "prompt", messages: [], prompt: "", images: [] });
    const after = [user("hi"), reply];
    expect(promptOperationOf(after)).toEqual({ kind: "prompt", messages: after, prompt: "", images: [] });
  });
});

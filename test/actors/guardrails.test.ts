/**
 * The guardrails actor on its own (`createActor(guardrailsActor(implementations), { input })`), as the
 * agent machine invokes it in `preparingTurn.checkingInput` and `streaming.checking`, and the
 * `runGuardrails` race it is built on: the first trip wins, a guardrail fails closed, an abort ends
 * the check with no trip.
 */
import { describe, expect, it, vi } from "vitest";
import { createActor, toPromise } from "xstate";
import { z } from "zod";
import {
  type GuardrailCheck,
  guardrailsActor,
  inputCheckContext,
  runGuardrails,
} from "../../src/actors/guardrails.actor.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { Guardrail, GuardrailContext, GuardrailVerdict } from "../../src/types/guardrail.js";
import type { AssistantMessage } from "../../src/types/messages.js";
import { flushJobs, implementationsOf, isPending, settledValue } from "../support/actor-harness-a.js";
import { assistant } from "../support/loop-context.js";
import { user } from "../support/loop-harness.js";

const context: GuardrailContext = {
  kind: "output",
  messages: [],
  text: "the reply",
  agent: { systemPrompt: "", messages: [], tools: [] },
};

/** A guardrail whose verdict the test gives later; it records the signal and context it was given. */
function pendingGuardrail(name: string) {
  let answer!: (verdict: GuardrailVerdict) => void;
  let fail!: (error: unknown) => void;
  const seen: { signal?: AbortSignal; context?: GuardrailContext } = {};
  const guardrail: Guardrail = {
    name,
    check: (checked, signal) => {
      seen.signal = signal;
      seen.context = checked;
      return new Promise<GuardrailVerdict>((resolve, reject) => {
        answer = resolve;
        fail = reject;
      });
    },
  };
  return {
    guardrail,
    seen,
    answer: (verdict: GuardrailVerdict) => answer(verdict),
    fail: (e: unknown) => fail(e),
  };
}

const answering = (name: string, verdict: unknown): Guardrail => ({
  name,
  check: () => verdict as GuardrailVerdict,
});

/** `runGuardrails`, its outcome read once the pending jobs ran. */
const guard = (...args: Parameters<typeof runGuardrails>) => settledValue(runGuardrails(...args));

describe("runGuardrails", () => {
  it("answers no trip at once when there are no guardrails", async () => {
    expect(await settledValue(runGuardrails([], context, new AbortController().signal))).toStrictEqual({});
  });

  it("answers no trip only once every guardrail passed", async () => {
    const slow = pendingGuardrail("slow");
    const outcome = runGuardrails(
      [answering("quick", { tripwire: false }), slow.guardrail],
      context,
      new AbortController().signal,
    );
    expect(await isPending(outcome)).toBe(true);
    slow.answer({ tripwire: false });
    expect(await settledValue(outcome)).toStrictEqual({});
  });

  it("a trip after other guardrails passed is the outcome", async () => {
    const late = pendingGuardrail("late");
    const outcome = runGuardrails(
      [answering("a", { tripwire: false }), answering("b", { tripwire: false }), late.guardrail],
      context,
      new AbortController().signal,
    );
    expect(await isPending(outcome)).toBe(true);
    late.answer({ tripwire: true, reason: "rude" });
    expect(await settledValue(outcome)).toStrictEqual({
      trip: { guardrail: "late", kind: "output", reason: "rude" },
    });
  });

  it("resolves with the first trip, its replacement, and tells the others to stop", async () => {
    const other = pendingGuardrail("other");
    const outcome = await guard(
      [other.guardrail, answering("tone", { tripwire: true, reason: "rude", replacement: "[removed]" })],
      { ...context, kind: "input" },
      new AbortController().signal,
    );
    expect(outcome).toStrictEqual({
      trip: { guardrail: "tone", kind: "input", reason: "rude" },
      replacement: "[removed]",
    });
    expect(other.seen.signal?.aborted).toBe(true);
  });

  it("keeps the first of two trips", async () => {
    const outcome = await guard(
      [
        answering("first", { tripwire: true, reason: "one" }),
        answering("second", { tripwire: true, reason: "two" }),
      ],
      context,
      new AbortController().signal,
    );
    expect(outcome.trip?.guardrail).toBe("first");
  });

  it("a trip without a reason says it tripped", async () => {
    const outcome = await guard(
      [answering("bare", { tripwire: true })],
      context,
      new AbortController().signal,
    );
    expect(outcome).toStrictEqual({ trip: { guardrail: "bare", kind: "output", reason: "tripped" } });
  });

  it("gives every guardrail the context and a signal that is not aborted while it runs", async () => {
    const first = pendingGuardrail("first");
    const second = pendingGuardrail("second");
    const outcome = runGuardrails([first.guardrail, second.guardrail], context, new AbortController().signal);
    await flushJobs();
    expect(first.seen.context).toBe(context);
    expect(second.seen.context).toBe(context);
    expect(first.seen.signal?.aborted).toBe(false);
    first.answer({ tripwire: false });
    second.answer({ tripwire: false });
    await settledValue(outcome);
    expect(first.seen.signal?.aborted).toBe(true);
  });

  it.each([
    [
      "throws",
      {
        name: "boom",
        check: () => {
          throw new Error("no network");
        },
      } as Guardrail,
    ],
    ["rejects", { name: "boom", check: () => Promise.reject(new Error("no network")) } as Guardrail],
  ])("a guardrail that %s trips with the error as its reason (fail closed)", async (_, guardrail) => {
    const outcome = await guard(
      [answering("fine", { tripwire: false }), guardrail],
      context,
      new AbortController().signal,
    );
    expect(outcome).toStrictEqual({
      trip: { guardrail: "boom", kind: "output", reason: 'Guardrail "boom" failed: no network', threw: true },
    });
  });

  it.each([
    ["undefined", undefined],
    ["null", null],
    ["a string", "fine"],
    ["a verdict whose tripwire is not a boolean", { tripwire: "false" }],
  ])("an answer that is %s trips as a failure", async (_, answer) => {
    const outcome = await guard([answering("odd", answer)], context, new AbortController().signal);
    expect(outcome).toStrictEqual({
      trip: {
        guardrail: "odd",
        kind: "output",
        reason: 'Guardrail "odd" answered something other than a verdict',
        threw: true,
      },
    });
  });

  it("runs no guardrail and trips nothing when the run is already aborted", async () => {
    const check = vi.fn(() => ({ tripwire: true }));
    const controller = new AbortController();
    controller.abort();
    expect(
      await settledValue(runGuardrails([{ name: "g", check }], context, controller.signal)),
    ).toStrictEqual({});
    expect(check).not.toHaveBeenCalled();
  });

  it("an abort while guardrails run resolves with no trip at once and aborts their signal", async () => {
    const pending = pendingGuardrail("slow");
    const controller = new AbortController();
    const outcome = runGuardrails([pending.guardrail], context, controller.signal);
    expect(await isPending(outcome)).toBe(true);
    controller.abort();
    expect(await settledValue(outcome)).toStrictEqual({});
    expect(pending.seen.signal?.aborted).toBe(true);
    pending.answer({ tripwire: true });
    expect(await settledValue(outcome)).toStrictEqual({});
  });

  it("lets go of the run's signal once it answered", async () => {
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, "removeEventListener");
    await guard([answering("g", { tripwire: false })], context, controller.signal);
    expect(removed).toHaveBeenCalledWith("abort", expect.any(Function));
  });
});

const reply: AssistantMessage = assistant([{ type: "text", text: "The answer is 42." }], "stop");
const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up",
  parameters: z.object({ word: z.string() }),
  execute: async () => ({ content: [] }),
});
const agent = { systemPrompt: "Be brief.", messages: [user("earlier")], toolNames: ["lookup", "gone"] };

/** Runs the guardrails actor on `check` and returns its output. */
function runActor(implementations: ReturnType<typeof implementationsOf>, check: GuardrailCheck) {
  return toPromise(createActor(guardrailsActor(implementations), { input: check }).start());
}

describe("the guardrails actor", () => {
  it("checks a run's input with its blocking guardrails only", async () => {
    const blocking = pendingGuardrail("blocking");
    const byDefault = pendingGuardrail("default");
    const parallel = vi.fn(() => ({ tripwire: true }));
    const implementations = implementationsOf({
      tools: [lookup],
      guardrails: {
        input: [
          { ...blocking.guardrail, mode: "blocking" },
          byDefault.guardrail,
          { name: "parallel", mode: "parallel", check: parallel },
        ],
        output: [answering("output", { tripwire: true })],
      },
    });
    const messages = [user("first"), user("second")];
    const outcome = runActor(implementations, { kind: "input", messages, agent });
    await flushJobs();
    blocking.answer({ tripwire: false });
    byDefault.answer({ tripwire: false });
    expect(await settledValue(outcome)).toStrictEqual({});
    expect(parallel).not.toHaveBeenCalled();
    expect(blocking.seen.context).toStrictEqual({
      kind: "input",
      messages,
      text: "first\n\nsecond",
      agent: { systemPrompt: "Be brief.", messages: agent.messages, tools: [lookup] },
    });
    expect(byDefault.seen.context).toStrictEqual(blocking.seen.context);
  });

  it("a tripped input guardrail is the actor's output", async () => {
    const implementations = implementationsOf({
      guardrails: { input: [answering("pii", { tripwire: true, reason: "an address" })] },
    });
    expect(
      await settledValue(runActor(implementations, { kind: "input", messages: [user("hi")], agent })),
    ).toStrictEqual({
      trip: { guardrail: "pii", kind: "input", reason: "an address" },
    });
  });

  it("checks a held reply with every output guardrail, without an output when the run expects none", async () => {
    const tone = pendingGuardrail("tone");
    const implementations = implementationsOf({
      tools: [lookup],
      guardrails: { input: [answering("input", { tripwire: true })], output: [tone.guardrail] },
    });
    const outcome = runActor(implementations, { kind: "output", reply, agent });
    await flushJobs();
    tone.answer({ tripwire: true, reason: "rude" });
    expect(await settledValue(outcome)).toStrictEqual({
      trip: { guardrail: "tone", kind: "output", reason: "rude" },
    });
    expect(tone.seen.context).toStrictEqual({
      kind: "output",
      messages: [reply],
      text: "The answer is 42.",
      reply,
      agent: { systemPrompt: "Be brief.", messages: agent.messages, tools: [lookup] },
    });
  });

  it("gives the output guardrails the value a typed run's reply carries", async () => {
    const tone = pendingGuardrail("tone");
    const implementations = implementationsOf({ guardrails: { output: [tone.guardrail] } });
    const outcome = runActor(implementations, { kind: "output", reply, output: { answer: 42 }, agent });
    await flushJobs();
    tone.answer({ tripwire: false });
    expect(await settledValue(outcome)).toStrictEqual({});
    expect(tone.seen.context?.output).toStrictEqual({ answer: 42 });
  });

  it("stopping the actor aborts the guardrails it runs", async () => {
    const slow = pendingGuardrail("slow");
    const implementations = implementationsOf({ guardrails: { output: [slow.guardrail] } });
    const actor = createActor(guardrailsActor(implementations), {
      input: { kind: "output", reply, agent },
    }).start();
    await flushJobs();
    expect(slow.seen.signal?.aborted).toBe(false);
    actor.stop();
    expect(slow.seen.signal?.aborted).toBe(true);
  });
});

describe("inputCheckContext", () => {
  it("is the input kind with the messages' text and the agent", () => {
    const agentContext = { systemPrompt: "s", messages: [], tools: [] };
    const messages = [user("a"), user("b")];
    expect(inputCheckContext(agentContext, messages)).toStrictEqual({
      kind: "input",
      messages,
      text: "a\n\nb",
      agent: agentContext,
    });
  });
});

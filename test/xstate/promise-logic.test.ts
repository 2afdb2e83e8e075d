import { describe, expect, it } from "vitest";
import { assign, createActor, setup, waitFor } from "xstate";
import { fromPromiseUntilStopped } from "../../src/xstate/promise-logic.js";
import { deferred } from "../support/loop-harness.js";

/** A machine that invokes `logic` in `running` and records how it ended. */
function harness(logic: ReturnType<typeof fromPromiseUntilStopped<string, string>>) {
  return setup({
    types: { context: {} as { result?: string; error?: unknown } },
    actors: { work: logic },
  }).createMachine({
    context: {},
    initial: "running",
    states: {
      running: {
        invoke: {
          src: "work",
          input: "in",
          onDone: { target: "done", actions: assign({ result: ({ event }) => event.output }) },
          onError: { target: "failed", actions: assign({ error: ({ event }) => event.error }) },
        },
        on: { LEAVE: "left" },
      },
      done: {},
      failed: {},
      left: {},
    },
  });
}

describe("fromPromiseUntilStopped", () => {
  it("ends with the promise's value as onDone output, its input given to the creator", async () => {
    const stopped: unknown[] = [];
    const logic = fromPromiseUntilStopped<string, string>(
      async ({ input }) => `${input}-out`,
      (self) => stopped.push(self),
    );
    const actor = createActor(harness(logic)).start();
    await waitFor(actor, (snapshot) => snapshot.value !== "running");
    expect(actor.getSnapshot().value).toBe("done");
    expect(actor.getSnapshot().context.result).toBe("in-out");
    expect(stopped).toEqual([]);
  });

  it("ends with the rejection as onError error", async () => {
    const logic = fromPromiseUntilStopped<string, string>(
      async () => {
        throw new Error("boom");
      },
      () => {},
    );
    const actor = createActor(harness(logic)).start();
    await waitFor(actor, (snapshot) => snapshot.value !== "running");
    expect(actor.getSnapshot().value).toBe("failed");
    expect((actor.getSnapshot().context.error as Error).message).toBe("boom");
  });

  it("calls stopped once when stopped while pending, and ignores a late settlement", async () => {
    const gate = deferred<string>();
    const stopped: string[] = [];
    const logic = fromPromiseUntilStopped<string, string>(
      () => gate.promise,
      (self) => stopped.push(self.id),
    );
    const actor = createActor(harness(logic)).start();
    const childId = Object.keys(actor.getSnapshot().children)[0]!;
    actor.send({ type: "LEAVE" });
    expect(stopped).toEqual([childId]);
    gate.resolve("late");
    await gate.promise;
    await Promise.resolve(); // the logic's own continuation after the promise settled
    expect(actor.getSnapshot().value).toBe("left");
    expect(actor.getSnapshot().context.result).toBeUndefined();
  });

  it("does not call stopped when the actor is stopped after its promise settled", async () => {
    const stopped: string[] = [];
    const logic = fromPromiseUntilStopped<string, string>(
      async () => "v",
      (self) => stopped.push(self.id),
    );
    const actor = createActor(harness(logic)).start();
    await waitFor(actor, (snapshot) => snapshot.value === "done");
    actor.stop();
    expect(stopped).toEqual([]);
  });

  it("makes the stop signal when asked: fired by a stop after that, already fired when asked after a stop", async () => {
    const gate = deferred<void>();
    const early: AbortSignal[] = [];
    let late: (() => AbortSignal) | undefined;
    const logic = fromPromiseUntilStopped<string, string>(async ({ stopSignal }) => {
      early.push(stopSignal());
      late = stopSignal;
      await gate.promise;
      return "v";
    });
    const actor = createActor(harness(logic)).start();
    expect(early[0]!.aborted).toBe(false);
    actor.send({ type: "LEAVE" });
    expect(early[0]!.aborted).toBe(true);
    expect(late!()).toBe(early[0]);

    const askedLate: (() => AbortSignal)[] = [];
    const lazy = fromPromiseUntilStopped<string, string>(({ stopSignal }) => {
      askedLate.push(stopSignal);
      return new Promise<string>(() => {});
    });
    const other = createActor(harness(lazy)).start();
    other.send({ type: "LEAVE" });
    expect(askedLate[0]!().aborted).toBe(true);
    gate.resolve();
  });
});

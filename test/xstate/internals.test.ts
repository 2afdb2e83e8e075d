import { describe, expect, it } from "vitest";
import { createActor, emit, enqueueActions, fromPromise, setup } from "xstate";
import { emitAfterMacrostep, emitterOf, parentOf } from "../../src/xstate/internals.js";

// The private XState API agentchart relies on (src/xstate/internals.ts). If an XState upgrade moves
// it, these fail before anything subtler does.
const child = fromPromise(() => new Promise<void>(() => {}));
const machine = setup({
  types: { emitted: {} as { type: "ping"; n: number } },
  actors: { child },
}).createMachine({
  invoke: { id: "kid", src: "child" },
  on: { PING: { actions: emit({ type: "ping", n: 0 }) } },
});

describe("XState's private API used by agentchart", () => {
  it("parentOf: an invoked child knows its parent; a root actor has none", () => {
    const actor = createActor(machine).start();
    const kid = actor.getSnapshot().children.kid!;
    expect(parentOf(kid)).toBe(actor);
    expect(parentOf(actor)).toBeUndefined();
    actor.stop();
  });

  it("emitterOf: delivers to actor.on listeners synchronously, outside any transition", () => {
    const actor = createActor(machine).start();
    const seen: number[] = [];
    actor.on("ping", (event) => seen.push(event.n));
    const emitPing = emitterOf<{ type: "ping"; n: number }>(actor);
    emitPing({ type: "ping", n: 1 });
    emitPing({ type: "ping", n: 2 });
    expect(seen).toEqual([1, 2]);
    actor.send({ type: "PING" });
    expect(seen).toEqual([1, 2, 0]);
    actor.stop();
  });

  it("emitterOf: says so clearly when the emitter is gone", () => {
    expect(() => emitterOf({} as never)).toThrow(/no actor emitter/);
  });

  it("emitAfterMacrostep: delivers after the snapshot is updated, where emit actions in its place would", () => {
    type Ping = { type: "ping"; n: number };
    const batched = setup({ types: { emitted: {} as Ping } }).createMachine({
      initial: "a",
      states: {
        a: {
          on: {
            GO: {
              target: "b",
              actions: enqueueActions(({ enqueue }) => {
                enqueue.emit({ type: "ping", n: 1 });
                enqueue(({ self }) =>
                  emitAfterMacrostep<Ping>(self, [
                    { type: "ping", n: 2 },
                    { type: "ping", n: 3 },
                  ]),
                );
                enqueue.emit({ type: "ping", n: 4 });
              }),
            },
          },
        },
        b: {},
      },
    });
    const actor = createActor(batched).start();
    const seen: [number, unknown][] = [];
    actor.on("ping", (event) => seen.push([event.n, actor.getSnapshot().value]));
    actor.send({ type: "GO" });
    expect(seen).toEqual([
      [1, "b"],
      [2, "b"],
      [3, "b"],
      [4, "b"],
    ]);
    actor.stop();
  });

  it("emitAfterMacrostep: says so clearly when the deferral is gone", () => {
    expect(() => emitAfterMacrostep({} as never, [])).toThrow(/no actor deferral/);
  });
});

import { describe, expect, it } from "vitest";
import { createActor, fromPromise, setup, toPromise, transition } from "xstate";
import { provideImplementations } from "../../src/xstate/provide-implementations.js";

// A machine whose action, guard and actor are stand-ins, as the agent machine's are.
const definition = setup({
  types: { context: {} as { said: string[] }, output: {} as string[] },
  actors: { fetchWord: fromPromise<string>(async () => "base") },
  actions: { say: (_, _word: string) => {} },
  guards: { allowed: () => false },
}).createMachine({
  context: { said: [] },
  initial: "asking",
  states: {
    asking: {
      invoke: {
        id: "fetch",
        src: "fetchWord",
        onDone: [
          { guard: "allowed", target: "done", actions: { type: "say", params: ({ event }) => event.output } },
          { target: "refused" },
        ],
      },
    },
    done: { type: "final" },
    refused: { type: "final" },
  },
  output: ({ context }) => context.said,
});

describe("provideImplementations", () => {
  it("runs with the given actions, guards and actors, as .provide() would, and leaves the definition alone", async () => {
    const said: string[] = [];
    const provided = provideImplementations(definition, {
      actors: { fetchWord: fromPromise(async () => "provided") },
      actions: { say: (_: unknown, word: unknown) => void said.push(String(word)) },
      guards: { allowed: () => true },
    });
    const actor = createActor(provided).start();
    await toPromise(actor);
    expect(said).toEqual(["provided"]);
    expect(actor.getSnapshot().value).toBe("done");
    // The snapshots are the provided machine's: XState resolves implementations through it.
    expect(actor.getSnapshot().machine).toBe(provided);
    const plain = createActor(definition).start();
    await toPromise(plain);
    expect(plain.getSnapshot().value).toBe("refused");
  });

  it("gives the same transitions as XState's .provide(), and .provide() on it keeps what it had", () => {
    const allowed = provideImplementations(definition, { guards: { allowed: () => true } });
    const done = { type: "xstate.done.actor.fetch", output: "w", actorId: "fetch" } as const;
    const viaXState = definition.provide({ guards: { allowed: () => true } });
    const [ours] = transition(
      allowed,
      allowed.resolveState({ value: "asking", context: { said: [] } }),
      done,
    );
    const [theirs] = transition(
      viaXState,
      viaXState.resolveState({ value: "asking", context: { said: [] } }),
      done,
    );
    expect(ours.value).toBe(theirs.value);
    const again = allowed.provide({ actions: { say: () => {} } });
    expect(again.implementations.guards.allowed).toBe(allowed.implementations.guards.allowed);
    expect(definition.implementations.guards.allowed).not.toBe(allowed.implementations.guards.allowed);
  });
});

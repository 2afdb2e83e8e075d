import { type AnyActorLogic, assign, createActor, type EventObject, type InputFrom, setup } from "xstate";
import {
  type AgentImplementations,
  type AgentMachineOptions,
  agentImplementations,
} from "../../src/machines/agent/agent.implementations.js";
import type { StreamFn } from "../../src/types/stream.js";

// Drives one actor of the agent machine on its own: the implementations it is built from, and a tiny
// parent that invokes it and records what it sends back (a callback actor's `sendBack` reaches only a
// parent).

const unusedStreamFn: StreamFn = () => {
  throw new Error("these actors never call the model");
};

/** The implementations `createAgentMachine(options)` would provide (a model that is never called). */
export function implementationsOf(options: Partial<AgentMachineOptions> = {}): AgentImplementations {
  return agentImplementations({ streamFn: unusedStreamFn, ...options });
}

/** A parent of `logic` started with `input`: what its child sent back, and a way to stop the child. */
export interface RecordingParent {
  /** The events the child sent back, in order. */
  received(): EventObject[];
  /** The first event the child sends back (already sent: at once). */
  nextEvent(): Promise<EventObject>;
  /** Leaves the state that invokes the child: XState stops it (its cleanup runs). */
  stopChild(): void;
}

/** Starts a parent that invokes `logic` with `input` and records every event the child sends back. */
export function recordingParent<TLogic extends AnyActorLogic>(
  logic: TLogic,
  input: InputFrom<TLogic>,
): RecordingParent {
  const parent = setup({
    types: { context: {} as { received: EventObject[] } },
    actors: { child: logic as AnyActorLogic },
  }).createMachine({
    context: { received: [] },
    initial: "invoking",
    states: {
      invoking: {
        invoke: { src: "child", input },
        on: { STOP_CHILD: "stopped" },
      },
      stopped: {},
    },
    on: {
      "*": { actions: assign({ received: ({ context, event }) => [...context.received, event] }) },
    },
  });
  const actor = createActor(parent).start();
  return {
    received: () => actor.getSnapshot().context.received,
    nextEvent: () =>
      new Promise((resolve) => {
        const first = () => actor.getSnapshot().context.received[0];
        const already = first();
        if (already) return resolve(already);
        const subscription = actor.subscribe(() => {
          const event = first();
          if (!event) return;
          subscription.unsubscribe();
          resolve(event);
        });
      }),
    stopChild: () => actor.send({ type: "STOP_CHILD" }),
  };
}

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
  /**
   * The one event the child sent back once the pending jobs ran; fails at once (instead of waiting)
   * when it sent none or more than one.
   */
  answer(): Promise<EventObject>;
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
    answer: async () => {
      await flushJobs();
      const received = actor.getSnapshot().context.received;
      if (received.length !== 1) throw new Error(`the child sent ${received.length} events, not one`);
      return received[0]!;
    },
    stopChild: () => actor.send({ type: "STOP_CHILD" }),
  };
}

/** Lets every pending promise job run: one turn of the event loop (nothing here waits on a timer). */
export function flushJobs(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Whether `promise` is still pending once the pending jobs ran. */
export async function isPending(promise: Promise<unknown>): Promise<boolean> {
  let pending = true;
  promise.then(
    () => (pending = false),
    () => (pending = false),
  );
  await flushJobs();
  return pending;
}

/**
 * What `promise` settled with once the pending jobs ran: its value, or its rejection thrown. Fails at
 * once, instead of waiting, when it is still pending (so a mutant that never answers fails fast).
 */
export async function settledValue<T>(promise: Promise<T>): Promise<T> {
  let settled: { value: T } | { error: unknown } | undefined;
  promise.then(
    (value) => (settled = { value }),
    (error: unknown) => (settled = { error }),
  );
  await flushJobs();
  if (!settled) throw new Error("still pending once the pending jobs ran");
  if ("error" in settled) throw settled.error;
  return settled.value;
}

import { assign, type DoneActorEvent, enqueueActions, setup, stopChild } from "xstate";

/**
 * Stand-ins with the shape of `agentLoopMachine` and `toolCallMachine` (same state names, one child
 * per tool call with the call id as actor id), driven only by events so tests control every step.
 * The context deliberately holds values that are not JSON: an AbortSignal and a function.
 */

/** Events of the fake tool call: each one moves it to the next state. */
export type FakeToolCallEvent =
  | { type: "PREPARED"; needsApproval: boolean }
  | { type: "APPROVE" }
  | { type: "EXECUTED"; result: string }
  | { type: "FINALIZED" };

export interface FakeToolCallInput {
  callId: string;
  name: string;
}

/** Fake `toolCallMachine`: `preparing → (awaitingApproval) → executing → finalizing → settled`. */
export const fakeToolCallMachine = setup({
  types: {
    context: {} as { callId: string; name: string; result?: string },
    events: {} as FakeToolCallEvent,
    input: {} as FakeToolCallInput,
    output: {} as { callId: string; result: string },
  },
}).createMachine({
  id: "toolCall",
  context: ({ input }) => ({ callId: input.callId, name: input.name }),
  initial: "preparing",
  states: {
    preparing: {
      on: {
        PREPARED: [
          { guard: ({ event }) => event.needsApproval, target: "awaitingApproval" },
          { target: "executing" },
        ],
      },
    },
    awaitingApproval: { on: { APPROVE: "executing" } },
    executing: {
      on: { EXECUTED: { target: "finalizing", actions: assign({ result: ({ event }) => event.result }) } },
    },
    finalizing: { on: { FINALIZED: "settled" } },
    settled: { type: "final" },
  },
  output: ({ context }) => ({ callId: context.callId, result: context.result ?? "" }),
});

/** Events of the fake loop. */
export type FakeLoopEvent =
  | { type: "PROMPT"; text: string }
  | { type: "TOKEN"; text: string }
  | { type: "TOOL_CALLS"; calls: FakeToolCallInput[] }
  | { type: "STREAM_END" }
  | { type: "NEXT_TURN" }
  | DoneActorEvent<{ callId: string; result: string }, string>;

export interface FakeLoopContext {
  messages: Array<{ role: string; text: string }>;
  pendingCalls: string[];
  results: Record<string, string>;
  signal: AbortSignal;
  streamFn: (prompt: string) => string;
}

/** Fake `agentLoopMachine`: `idle → streaming → executingTools → preparingTurn → streaming … → done`. */
export const fakeLoopMachine = setup({
  types: { context: {} as FakeLoopContext, events: {} as FakeLoopEvent },
  actors: { toolCall: fakeToolCallMachine },
  guards: { allSettled: ({ context }) => context.pendingCalls.length === 0 },
}).createMachine({
  id: "agentLoop",
  context: () => ({
    messages: [],
    pendingCalls: [],
    results: {},
    signal: new AbortController().signal,
    streamFn: (prompt) => prompt,
  }),
  initial: "idle",
  states: {
    idle: {
      on: {
        PROMPT: {
          target: "streaming",
          actions: assign({
            messages: ({ context, event }) => [...context.messages, { role: "user", text: event.text }],
          }),
        },
      },
    },
    streaming: {
      on: {
        TOKEN: {
          actions: assign({
            messages: ({ context, event }) => [...context.messages, { role: "assistant", text: event.text }],
          }),
        },
        TOOL_CALLS: {
          target: "executingTools",
          actions: [
            assign({ pendingCalls: ({ event }) => event.calls.map((call) => call.callId) }),
            enqueueActions(({ event, enqueue }) => {
              for (const call of event.calls)
                enqueue.spawnChild("toolCall", { id: call.callId, input: call });
            }),
          ],
        },
        STREAM_END: "done",
      },
    },
    executingTools: {
      always: { guard: "allSettled", target: "preparingTurn" },
      on: {
        "xstate.done.actor.*": {
          actions: [
            assign({
              pendingCalls: ({ context, event }) =>
                context.pendingCalls.filter((id) => id !== event.output.callId),
              results: ({ context, event }) => ({
                ...context.results,
                [event.output.callId]: event.output.result,
              }),
            }),
            stopChild(({ event }) => event.output.callId),
          ],
        },
      },
    },
    preparingTurn: { on: { NEXT_TURN: "streaming" } },
    done: { type: "final" },
  },
});

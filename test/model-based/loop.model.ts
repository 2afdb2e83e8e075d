import { assign, setup } from "xstate";
import type { SteeringPolicy } from "../../src/types/loop.js";

/**
 * An abstract model of `agentMachine` for one run: its run states, no actors (`done`: the run ended and
 * the agent is back in `idle`). What
 * the real actors do on their own (stream a reply, run a tool, decide between turns) happens here only
 * when the test says so, through an explicit event with a payload variant.
 *
 * The real run it stands for (see `real-loop.ts`): a scripted model whose replies the test releases,
 * a steering poll between turns that the test answers, steering / follow-up queues the test fills, and
 * a batch of two tool calls "a" and "b" (parallel or sequential), or of one call "a" that needs
 * approval, whose completion the test controls. The context stays small and bounded (flags, no
 * counters), so the graph is finite: 44–56 states and 284–384 edges per variant.
 */

/**
 * A tool call of the current batch: waiting for its turn (sequential execution), running, waiting
 * for approval, or settled (ok / terminate).
 */
export type ModelCall = "queued" | "running" | "approval" | "ok" | "terminate";

export interface LoopModelContext {
  policy: SteeringPolicy;
  execution: "parallel" | "sequential";
  /** A turn has ended: between turns the loop asks `shouldStopAfterTurn` (not at run start). */
  afterTurn: boolean;
  /** preparingTurn: the model must be called again (run start, or tools that did not terminate). */
  wantsReply: boolean;
  /** A steering message waits in its queue (not yet drained by the loop). */
  steerQueued: boolean;
  /**
   * preparingTurn: steering the between-tools poll drained (it skipped the rest of the batch) waits in
   * the run for the next turn. If the run ends instead, it goes back to its queue.
   */
  steerPending: boolean;
  /** A follow-up message waits in its queue. */
  followQueued: boolean;
  /** streaming: the reply streamed a tool call and now hangs until aborted. */
  partial: boolean;
  /** executingTools: the batch (`b` absent for the one-call approval batch). */
  batch: { a?: ModelCall; b?: ModelCall };
}

export type ReplyKind = "text" | "tools" | "approval" | "length" | "error" | "aborted" | "throws" | "partial";

export type LoopModelEvent =
  | { type: "START" }
  /** Ends the run: `ABORT` (event), the run's signal, or `FAIL` (an error outcome, e.g. a throwing hook). */
  | { type: "ABORT"; via: "event" | "signal" | "fail" }
  | { type: "STEER" }
  | { type: "FOLLOW_UP" }
  /** The between-turns callback the test holds answers: go on, stop (after a turn only), or throw. */
  | { type: "DECIDE"; outcome: "answer" | "stop" | "throw" }
  | { type: "REPLY"; kind: ReplyKind }
  | { type: "TOOL_SETTLED"; call: "a" | "b"; result: "ok" | "terminate" }
  /** A decision for call a or b, waiting for approval or not (then the loop ignores it). */
  | { type: "APPROVE"; call: "a" | "b" }
  | { type: "DENY"; call: "a" | "b" };

/** Every event with every payload variant, as xstate/graph needs them listed. */
export const loopModelEvents: LoopModelEvent[] = [
  { type: "START" },
  { type: "ABORT", via: "event" },
  { type: "ABORT", via: "signal" },
  { type: "ABORT", via: "fail" },
  { type: "STEER" },
  { type: "FOLLOW_UP" },
  ...(["answer", "stop", "throw"] as const).map((outcome): LoopModelEvent => ({ type: "DECIDE", outcome })),
  ...(["text", "tools", "approval", "length", "error", "aborted", "throws", "partial"] as const).map(
    (kind): LoopModelEvent => ({ type: "REPLY", kind }),
  ),
  ...(["a", "b"] as const).flatMap((call) =>
    (["ok", "terminate"] as const).map((result): LoopModelEvent => ({ type: "TOOL_SETTLED", call, result })),
  ),
  ...(["a", "b"] as const).flatMap((call): LoopModelEvent[] => [
    { type: "APPROVE", call },
    { type: "DENY", call },
  ]),
];

const settledCall = (call: ModelCall | undefined) =>
  call === undefined || call === "ok" || call === "terminate";
const otherCall = (call: "a" | "b") => (call === "a" ? "b" : "a");

/** The batch after the call settles with `result`; a sequential batch then starts its next call. */
function settleCall(
  batch: LoopModelContext["batch"],
  event: Extract<LoopModelEvent, { type: "TOOL_SETTLED" }>,
): LoopModelContext["batch"] {
  const next = { ...batch, [event.call]: event.result };
  return next.b === "queued" ? { ...next, b: "running" } : next;
}

const queueEvents = {
  STEER: {
    guard: ({ context }: { context: LoopModelContext }) => !context.steerQueued,
    actions: "queueSteer",
  },
  FOLLOW_UP: {
    guard: ({ context }: { context: LoopModelContext }) => !context.followQueued,
    actions: "queueFollowUp",
  },
} as const;

const reply =
  (...kinds: ReplyKind[]) =>
  ({ context, event }: { context: LoopModelContext; event: LoopModelEvent }) =>
    !context.partial && event.type === "REPLY" && kinds.includes(event.kind);

const abort = { ABORT: { target: "done" } } as const;

export function createLoopModel(policy: SteeringPolicy, execution: LoopModelContext["execution"]) {
  return setup({
    types: { context: {} as LoopModelContext, events: {} as LoopModelEvent },
    actions: {
      queueSteer: assign({ steerQueued: true }),
      queueFollowUp: assign({ followQueued: true }),
      restorePending: assign({
        steerQueued: ({ context }) => context.steerQueued || context.steerPending,
        steerPending: false,
      }),
      // The real loop ignores a decision for a call that is not waiting (unknown or settled).
      ignoreDecision: () => {},
      // Leaving a state resets what only that state uses, so equivalent vertices are merged.
      resetTransient: assign({ partial: false, batch: {}, wantsReply: false }),
    },
    guards: {
      // The between-tools poll finds the queued steering while the other call still runs.
      steeringSkipsRest: ({ context, event }) =>
        event.type === "TOOL_SETTLED" &&
        context.batch[event.call] === "running" &&
        context.policy === "betweenTools" &&
        context.steerQueued &&
        !settledCall(context.batch[otherCall(event.call)]),
      batchSettles: ({ context, event }) =>
        event.type === "TOOL_SETTLED" &&
        settledCall(context.batch[otherCall(event.call)]) &&
        context.batch[event.call] === "running",
    },
  }).createMachine({
    id: "loopModel",
    context: {
      policy,
      execution,
      afterTurn: false,
      wantsReply: false,
      steerQueued: false,
      steerPending: false,
      followQueued: false,
      partial: false,
      batch: {},
    },
    initial: "idle",
    states: {
      idle: {
        on: {
          ...queueEvents,
          START: { target: "preparingTurn", actions: assign({ wantsReply: true }) },
        },
      },
      preparingTurn: {
        exit: "resetTransient",
        on: {
          ...queueEvents,
          ABORT: { target: "done", actions: "restorePending" },
          DECIDE: [
            { guard: ({ event }) => event.outcome === "throw", target: "done", actions: "restorePending" },
            {
              guard: ({ context, event }) => event.outcome === "stop" && context.afterTurn,
              target: "done",
              actions: "restorePending",
            },
            {
              guard: ({ context, event }) =>
                event.outcome === "answer" &&
                (context.wantsReply || context.steerQueued || context.steerPending),
              target: "streaming",
              actions: assign({ steerQueued: false, steerPending: false }),
            },
            {
              guard: ({ context, event }) => event.outcome === "answer" && context.followQueued,
              target: "streaming",
              actions: assign({ followQueued: false }),
            },
            { guard: ({ event }) => event.outcome === "answer", target: "done" },
          ],
        },
      },
      streaming: {
        exit: ["resetTransient", assign({ afterTurn: true })],
        on: {
          ...queueEvents,
          ...abort,
          // A partial reply already took the model call: only ABORT can end it.
          REPLY: [
            { guard: reply("text"), target: "preparingTurn" },
            {
              guard: reply("tools"),
              target: "executingTools",
              actions: assign({
                batch: ({ context }) => ({
                  a: "running",
                  b: context.execution === "sequential" ? "queued" : "running",
                }),
              }),
            },
            {
              guard: reply("approval"),
              target: "executingTools",
              actions: assign({ batch: { a: "approval" } }),
            },
            { guard: reply("length"), target: "preparingTurn", actions: assign({ wantsReply: true }) },
            { guard: reply("partial"), actions: assign({ partial: true }) },
            { guard: reply("error", "aborted", "throws"), target: "done" },
          ],
        },
      },
      executingTools: {
        exit: "resetTransient",
        on: {
          ...queueEvents,
          ...abort,
          TOOL_SETTLED: [
            {
              guard: "steeringSkipsRest",
              target: "preparingTurn",
              actions: assign({ steerQueued: false, steerPending: true, wantsReply: true }),
            },
            {
              guard: "batchSettles",
              target: "preparingTurn",
              actions: assign({
                wantsReply: ({ context, event }) =>
                  Object.values(settleCall(context.batch, event)).some((call) => call !== "terminate"),
              }),
            },
            {
              guard: ({ context, event }) => context.batch[event.call] === "running",
              actions: assign({ batch: ({ context, event }) => settleCall(context.batch, event) }),
            },
          ],
          APPROVE: [
            {
              guard: ({ context, event }) => context.batch[event.call] === "approval",
              actions: assign({ batch: { a: "running" } }),
            },
            { actions: "ignoreDecision" },
          ],
          DENY: [
            {
              guard: ({ context, event }) => context.batch[event.call] === "approval",
              target: "preparingTurn",
              actions: assign({ wantsReply: true }),
            },
            { actions: "ignoreDecision" },
          ],
        },
      },
      done: { type: "final", entry: "resetTransient" },
    },
  });
}

export type LoopModel = ReturnType<typeof createLoopModel>;

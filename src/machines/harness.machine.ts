import { assign, type DoneActorEvent, type ErrorActorEvent, fromPromise, setup } from "xstate";
import type { CompactionReason } from "../types/harness-messages.js";

/** The phases of an AgentHarness: the top-level states of `harnessMachine`. */
export type HarnessPhase = "idle" | "turn" | "compaction" | "branchSummary" | "retry";

/**
 * How a turn (one Agent run) ended: `done` (success, abort or a final error), `retryable` (a transient
 * provider error), `overflow` (the context did not fit). `compactionDue`: the context now exceeds the
 * compaction threshold.
 */
export interface TurnOutcome {
  verdict: "done" | "retryable" | "overflow";
  compactionDue: boolean;
}
export interface TurnInput {
  /** `prompt` starts a run with the operation's messages; `continue` re-asks after a retry or compaction. */
  mode: "prompt" | "continue";
}
export interface BackoffInput {
  attempt: number;
}
export interface CompactionInput {
  reason: CompactionReason;
}
/** Whether a compaction happened (automatic compactions report failures as `compacted: false`). */
export interface CompactionOutcome {
  compacted: boolean;
}

export interface HarnessMachineInput {
  maxRetries: number;
  /** A context overflow may be answered by compacting and retrying the turn once. */
  overflowRecovery: boolean;
}

export interface HarnessMachineContext extends HarnessMachineInput {
  attempt: number;
  overflowRecovered: boolean;
  turnMode: TurnInput["mode"];
  compactionReason: CompactionReason;
}

export type HarnessMachineEvent =
  | { type: "PROMPT" }
  | { type: "COMPACT" }
  | { type: "NAVIGATE" }
  | { type: "ABORT" }
  /** The turn started by `runTurn` ended (sent by the harness). */
  | { type: "TURN_DONE"; outcome: TurnOutcome }
  /** The turn started by `runTurn` failed, e.g. its entries could not be persisted (sent by the harness). */
  | { type: "TURN_FAILED"; error: unknown }
  | DoneActorEvent<void, "backoff">
  | DoneActorEvent<CompactionOutcome, "compaction">
  | DoneActorEvent<void, "navigation">
  | ErrorActorEvent<unknown, "backoff">
  | ErrorActorEvent<unknown, "compaction">
  | ErrorActorEvent<unknown, "navigation">;

const notProvided = (name: string) => () =>
  Promise.reject(new Error(`harnessMachine: actor "${name}" not provided`));

/**
 * The harness's phases as a statechart. `idle` —PROMPT→ `turn` (an Agent run) → `idle`, or → `retry`
 * (abortable backoff, then the turn continues) on a transient error while retries remain, or →
 * `compaction` on a context overflow (once per operation; the turn then continues) or when the context
 * passed the threshold (then idle). `idle` —COMPACT→ `compaction`, —NAVIGATE→ `branchSummary` (tree
 * navigation, summarising or not). `ABORT` ends `retry`, `compaction` and `branchSummary` at once
 * (their invoked actor's signal aborts); a turn ends through the Agent's own abort.
 * A turn is an Agent run, which has its own loop actor: entering `turn` calls the action `runTurn`,
 * which starts the run, and the harness reports its end with `TURN_DONE {outcome}` or `TURN_FAILED`
 * (no actor per turn). The other phases invoke the actors `backoff`, `compact` and `navigate`. The
 * harness provides `runTurn` and the actors (`harnessMachine.provide(...)`); failures are recorded by
 * `recordFailure`.
 */
export const harnessMachine = setup({
  types: {
    context: {} as HarnessMachineContext,
    events: {} as HarnessMachineEvent,
    input: {} as HarnessMachineInput,
  },
  actors: {
    backoff: fromPromise<void, BackoffInput>(notProvided("backoff")),
    compact: fromPromise<CompactionOutcome, CompactionInput>(notProvided("compact")),
    navigate: fromPromise<void, Record<string, never>>(notProvided("navigate")),
  },
  actions: {
    runTurn: (_, _params: TurnInput) => {
      throw new Error('harnessMachine: action "runTurn" not provided');
    },
    recordFailure: (_, _params: { error: unknown }) => {},
    startOperation: assign({ attempt: 0, overflowRecovered: false, turnMode: "prompt" as const }),
    continueTurn: assign({ turnMode: "continue" as const }),
    countRetry: assign({ attempt: ({ context }) => context.attempt + 1 }),
    compactFor: assign((_, reason: CompactionReason) => ({
      compactionReason: reason,
      ...(reason === "overflow" ? { overflowRecovered: true } : {}),
    })),
  },
  guards: {
    canRetry: ({ context }, outcome: TurnOutcome) =>
      outcome.verdict === "retryable" && context.attempt < context.maxRetries,
    canRecoverOverflow: ({ context }, outcome: TurnOutcome) =>
      outcome.verdict === "overflow" && context.overflowRecovery && !context.overflowRecovered,
    compactionDue: (_, outcome: TurnOutcome) => outcome.verdict === "done" && outcome.compactionDue,
    resumesTurn: ({ context }, outcome: CompactionOutcome) =>
      context.compactionReason === "overflow" && outcome.compacted,
  },
}).createMachine({
  id: "harness",
  context: ({ input }) => ({
    ...input,
    attempt: 0,
    overflowRecovered: false,
    turnMode: "prompt",
    compactionReason: "manual",
  }),
  initial: "idle",
  states: {
    idle: {
      on: {
        PROMPT: { target: "turn", actions: "startOperation" },
        COMPACT: { target: "compaction", actions: { type: "compactFor", params: "manual" } },
        NAVIGATE: { target: "branchSummary" },
      },
    },
    turn: {
      entry: { type: "runTurn", params: ({ context }) => ({ mode: context.turnMode }) },
      on: {
        TURN_DONE: [
          {
            guard: { type: "canRetry", params: ({ event }) => event.outcome },
            target: "retry",
            actions: "countRetry",
          },
          {
            guard: { type: "canRecoverOverflow", params: ({ event }) => event.outcome },
            target: "compaction",
            actions: { type: "compactFor", params: "overflow" },
          },
          {
            guard: { type: "compactionDue", params: ({ event }) => event.outcome },
            target: "compaction",
            actions: { type: "compactFor", params: "threshold" },
          },
          { target: "idle" },
        ],
        TURN_FAILED: {
          target: "idle",
          actions: { type: "recordFailure", params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    retry: {
      invoke: {
        id: "backoff",
        src: "backoff",
        input: ({ context }) => ({ attempt: context.attempt }),
        onDone: { target: "turn", actions: "continueTurn" },
        onError: {
          target: "idle",
          actions: { type: "recordFailure", params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { ABORT: { target: "idle" } },
    },
    compaction: {
      invoke: {
        id: "compaction",
        src: "compact",
        input: ({ context }) => ({ reason: context.compactionReason }),
        onDone: [
          {
            guard: { type: "resumesTurn", params: ({ event }) => event.output },
            target: "turn",
            actions: "continueTurn",
          },
          { target: "idle" },
        ],
        onError: {
          target: "idle",
          actions: { type: "recordFailure", params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { ABORT: { target: "idle" } },
    },
    branchSummary: {
      invoke: {
        id: "navigation",
        src: "navigate",
        input: () => ({}),
        onDone: { target: "idle" },
        onError: {
          target: "idle",
          actions: { type: "recordFailure", params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { ABORT: { target: "idle" } },
    },
  },
});

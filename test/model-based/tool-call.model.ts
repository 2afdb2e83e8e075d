import { assign, setup } from "xstate";

/**
 * An abstract model of `toolCallMachine` (same state names and transitions, no actors), for the tool
 * call "t1" of a two-call parallel batch [t1, t2] in a real loop run. The preflight (`beforeToolCall`),
 * the tool's `execute` and `afterToolCall` of t1 finish when the test says so. The loop sends `EXECUTE`
 * once every call of the batch is prepared, so the model's `EXECUTE` is the test letting t2's preflight
 * pass. `stopped` is model-only: the loop stops the child on ABORT (the machine itself has no ABORT).
 */

/** How t1 ended, as read from its `tool_execution_end` result. */
export type ToolCallResult =
  | "blocked"
  | "beforeError"
  | "denied"
  | "ok"
  | "toolError"
  | "afterError"
  | "aborted";

export interface ToolCallModelContext {
  needsApproval: boolean;
  /** What `execute` produced (finalizing keeps it unless afterToolCall fails). */
  executed: "ok" | "toolError" | undefined;
  result: ToolCallResult | undefined;
}

export type ToolCallModelEvent =
  | { type: "PREFLIGHT"; verdict: "allow" | "approval" | "block" | "throw" }
  | { type: "EXECUTE" }
  | { type: "APPROVE" }
  | { type: "DENY" }
  | { type: "EXECUTED"; outcome: "ok" | "throw" }
  | { type: "FINALIZED"; outcome: "keep" | "throw" }
  | { type: "ABORT" };

export const toolCallModelEvents: ToolCallModelEvent[] = [
  ...(["allow", "approval", "block", "throw"] as const).map(
    (verdict): ToolCallModelEvent => ({ type: "PREFLIGHT", verdict }),
  ),
  { type: "EXECUTE" },
  { type: "APPROVE" },
  { type: "DENY" },
  { type: "EXECUTED", outcome: "ok" },
  { type: "EXECUTED", outcome: "throw" },
  { type: "FINALIZED", outcome: "keep" },
  { type: "FINALIZED", outcome: "throw" },
  { type: "ABORT" },
];

const abort = { ABORT: { target: "#toolCallModel.stopped", actions: "markAborted" } } as const;

export const toolCallModel = setup({
  types: { context: {} as ToolCallModelContext, events: {} as ToolCallModelEvent },
  actions: { markAborted: assign({ result: "aborted" as const }) },
}).createMachine({
  id: "toolCallModel",
  context: { needsApproval: false, executed: undefined, result: undefined },
  initial: "preparing",
  states: {
    preparing: {
      initial: "checkingHook",
      states: {
        checkingHook: {
          on: {
            ...abort,
            PREFLIGHT: [
              {
                guard: ({ event }) => event.verdict === "block" || event.verdict === "throw",
                target: "#toolCallModel.settled",
                actions: assign({
                  result: ({ event }) => (event.verdict === "block" ? "blocked" : "beforeError"),
                }),
              },
              {
                target: "ready",
                actions: assign({ needsApproval: ({ event }) => event.verdict === "approval" }),
              },
            ],
          },
        },
        ready: {
          on: {
            ...abort,
            EXECUTE: [
              { guard: ({ context }) => context.needsApproval, target: "#toolCallModel.awaitingApproval" },
              { target: "#toolCallModel.executing" },
            ],
          },
        },
      },
    },
    awaitingApproval: {
      on: {
        ...abort,
        APPROVE: { target: "executing" },
        DENY: { target: "settled", actions: assign({ result: "denied" }) },
      },
    },
    executing: {
      on: {
        ...abort,
        EXECUTED: {
          target: "finalizing",
          actions: assign({ executed: ({ event }) => (event.outcome === "ok" ? "ok" : "toolError") }),
        },
      },
    },
    finalizing: {
      on: {
        ...abort,
        FINALIZED: {
          target: "settled",
          actions: assign({
            result: ({ context, event }) => (event.outcome === "throw" ? "afterError" : context.executed),
          }),
        },
      },
    },
    settled: { type: "final" },
    stopped: { type: "final" },
  },
});
export type ToolCallModel = typeof toolCallModel;

import { type ActorRef, assign, enqueueActions, type Snapshot, sendParent, setup } from "xstate";
import {
  errorOutcome,
  executeToolCall,
  finalizeToolCall,
  type PreflightOutput,
  preflightToolCall,
  type ToolCallInput,
  type ToolCallOutcome,
} from "../loop/tool-call-steps.js";

export interface ToolCallContext {
  input: ToolCallInput;
  args: unknown;
  needsApproval: boolean;
  outcome: ToolCallOutcome | undefined;
}

export type ToolCallEvent =
  | { type: "EXECUTE" }
  | { type: "APPROVE" }
  | { type: "DENY"; reason?: string }
  | { type: "PREFLIGHT.DONE"; output: PreflightOutput }
  | { type: "EXECUTED"; outcome: ToolCallOutcome }
  | { type: "FINALIZED"; outcome: ToolCallOutcome };

/** Sent to the parent loop when the preflight passed and the call waits for `EXECUTE`. */
export interface ToolPreparedEvent {
  type: "TOOL.PREPARED";
  toolCallId: string;
}

/** Sent to the parent loop once the call waits in `awaitingApproval` (the parent announces it). */
export interface ToolAwaitingApprovalEvent {
  type: "TOOL.AWAITING_APPROVAL";
  toolCallId: string;
  toolName: string;
  args: unknown;
}

type Self = ActorRef<Snapshot<unknown>, ToolCallEvent>;

/**
 * Delivers a step's result as an event: at once (raised within this macrostep) when the step answered
 * synchronously, else when its promise settles — unless the call was stopped meanwhile.
 */
function deliver<TValue>(
  result: TValue | Promise<TValue>,
  toEvent: (value: TValue) => ToolCallEvent,
  raise: (event: ToolCallEvent) => void,
  self: Self,
): void {
  if (!(result instanceof Promise)) {
    raise(toEvent(result));
    return;
  }
  void result.then((value) => {
    if (self.getSnapshot().status === "active") self.send(toEvent(value));
  });
}

/**
 * One tool call, spawned by the loop with the tool call id as actor id:
 * `preparing` (preflight, then wait for the loop's `EXECUTE`) → `awaitingApproval` (tools that require
 * it) → `executing` → `finalizing` (`afterToolCall`) → `settled` (output: the outcome). Steps that
 * answer synchronously (validation, absent hooks) move on within the same macrostep; nothing here can
 * throw, so the call always settles with an outcome.
 */
export const toolCallMachine = setup({
  types: {
    context: {} as ToolCallContext,
    events: {} as ToolCallEvent,
    input: {} as ToolCallInput,
    output: {} as ToolCallOutcome,
  },
  actions: {
    runPreflight: enqueueActions(({ context: { input }, enqueue, self }) =>
      deliver(
        preflightToolCall(input, input.signal),
        (output) => ({ type: "PREFLIGHT.DONE", output }),
        enqueue.raise,
        self,
      ),
    ),
    runExecution: ({ context: { input, args }, self }) =>
      deliver(
        executeToolCall({ ...input, args }, input.signal),
        (outcome) => ({ type: "EXECUTED", outcome }),
        () => {},
        self,
      ),
    runFinalizer: enqueueActions(({ context: { input, args, outcome }, enqueue, self }) =>
      deliver(
        finalizeToolCall({ ...input, args, outcome: outcome! }, input.signal),
        (finalOutcome) => ({ type: "FINALIZED", outcome: finalOutcome }),
        enqueue.raise,
        self,
      ),
    ),
    requestApproval: sendParent(
      ({ context: { input, args } }): ToolAwaitingApprovalEvent => ({
        type: "TOOL.AWAITING_APPROVAL",
        toolCallId: input.toolCall.id,
        toolName: input.toolCall.name,
        args,
      }),
    ),
  },
  guards: {
    preflightFailed: (_, output: PreflightOutput) => !output.ok,
    needsApproval: ({ context }) => context.needsApproval,
  },
}).createMachine({
  id: "toolCall",
  context: ({ input }) => ({ input, args: undefined, needsApproval: false, outcome: undefined }),
  initial: "preparing",
  states: {
    preparing: {
      initial: "checking",
      states: {
        checking: {
          entry: "runPreflight",
          on: {
            "PREFLIGHT.DONE": [
              {
                guard: { type: "preflightFailed", params: ({ event }) => event.output },
                target: "#toolCall.settled",
                actions: assign({
                  outcome: ({ event }) => (event.output.ok ? undefined : event.output.outcome),
                }),
              },
              {
                target: "ready",
                actions: [
                  assign(({ event }) =>
                    event.output.ok
                      ? { args: event.output.args, needsApproval: event.output.needsApproval }
                      : {},
                  ),
                  sendParent(
                    ({ context }): ToolPreparedEvent => ({
                      type: "TOOL.PREPARED",
                      toolCallId: context.input.toolCall.id,
                    }),
                  ),
                ],
              },
            ],
          },
        },
        ready: {
          on: {
            EXECUTE: [
              { guard: "needsApproval", target: "#toolCall.awaitingApproval" },
              { target: "#toolCall.executing" },
            ],
          },
        },
      },
    },
    awaitingApproval: {
      entry: "requestApproval",
      on: {
        APPROVE: { target: "executing" },
        DENY: {
          target: "settled",
          actions: assign({
            outcome: ({ context, event }) =>
              errorOutcome(
                context.input.toolCall,
                `Tool call denied${event.reason ? `: ${event.reason}` : ""}`,
              ),
          }),
        },
      },
    },
    executing: {
      entry: "runExecution",
      on: { EXECUTED: { target: "finalizing", actions: assign({ outcome: ({ event }) => event.outcome }) } },
    },
    finalizing: {
      entry: "runFinalizer",
      on: { FINALIZED: { target: "settled", actions: assign({ outcome: ({ event }) => event.outcome }) } },
    },
    settled: { type: "final" },
  },
  output: ({ context }) => context.outcome!,
});

import { assign, sendParent, setup } from "xstate";
import {
  executeActor,
  finalizeActor,
  type PreflightOutput,
  preflightActor,
  type ToolCallInput,
  type ToolCallOutcome,
} from "../actors/tool-call.actors.js";
import { errorText, errorToolResult } from "../loop/messages.js";

export interface ToolCallContext {
  input: ToolCallInput;
  args: unknown;
  needsApproval: boolean;
  outcome: ToolCallOutcome | undefined;
}

export type ToolCallEvent = { type: "EXECUTE" } | { type: "APPROVE" } | { type: "DENY"; reason?: string };

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

const errorOutcome = (input: ToolCallInput, text: string): ToolCallOutcome => ({
  toolCall: input.toolCall,
  result: errorToolResult(text),
  isError: true,
});

/**
 * One tool call, spawned by the loop with the tool call id as actor id:
 * `preparing` (preflight, then wait for the loop's `EXECUTE`) → `awaitingApproval` (tools that require
 * it) → `executing` → `finalizing` (`afterToolCall`) → `settled` (output: the outcome).
 */
export const toolCallMachine = setup({
  types: {
    context: {} as ToolCallContext,
    events: {} as ToolCallEvent,
    input: {} as ToolCallInput,
    output: {} as ToolCallOutcome,
  },
  actors: { preflight: preflightActor, execute: executeActor, finalize: finalizeActor },
  actions: {
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
          invoke: {
            src: "preflight",
            input: ({ context }) => context.input,
            onDone: [
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
            onError: {
              target: "#toolCall.settled",
              actions: assign({
                outcome: ({ context, event }) => errorOutcome(context.input, errorText(event.error)),
              }),
            },
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
              errorOutcome(context.input, `Tool call denied${event.reason ? `: ${event.reason}` : ""}`),
          }),
        },
      },
    },
    executing: {
      invoke: {
        src: "execute",
        input: ({ context }) => ({ ...context.input, args: context.args }),
        onDone: { target: "finalizing", actions: assign({ outcome: ({ event }) => event.output }) },
        onError: {
          target: "finalizing",
          actions: assign({
            outcome: ({ context, event }) => errorOutcome(context.input, errorText(event.error)),
          }),
        },
      },
    },
    finalizing: {
      invoke: {
        src: "finalize",
        input: ({ context }) => ({ ...context.input, args: context.args, outcome: context.outcome! }),
        onDone: { target: "settled", actions: assign({ outcome: ({ event }) => event.output }) },
        onError: {
          target: "settled",
          actions: assign({
            outcome: ({ context, event }) => errorOutcome(context.input, errorText(event.error)),
          }),
        },
      },
    },
    settled: { type: "final" },
  },
  output: ({ context }) => context.outcome ?? errorOutcome(context.input, "Tool call ended without a result"),
});

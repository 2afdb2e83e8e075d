import { assign, enqueueActions, sendParent, setup } from "xstate";
import { runtimeOf } from "../actors/agent-runtime.js";
import {
  afterToolCallActor,
  beforeToolCallActor,
  executeToolActor,
  type ToolStepInput,
} from "../actors/tool-step.actors.js";
import type { ToolCallOutcome } from "../loop/agent-context.js";
import { validateToolCall } from "../loop/tool-call-steps.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import type { AssistantMessage, ToolCall } from "../types/messages.js";

/** Input of a tool call actor: plain data. */
export interface ToolCallInput {
  toolCall: ToolCall;
  assistantMessage: AssistantMessage;
  idempotencyKey: string;
}

/** The context of a tool call actor: plain data, persisted with the agent. */
export interface ToolCallContext extends ToolCallInput {
  args: unknown;
  needsApproval: boolean;
  outcome: ToolCallOutcome | undefined;
}

export type ToolCallEvent =
  | { type: "EXECUTE" }
  | { type: "APPROVE" }
  | { type: "DENY"; reason?: string }
  | { type: "RESUME" }
  | { type: "VALIDATED"; args: unknown; hook: boolean }
  | { type: "FINALIZE"; hook: boolean }
  | { type: "REJECTED"; outcome: ToolCallOutcome };

/** Sent to the parent agent when the preflight passed and the call waits for `EXECUTE`. */
export interface ToolPreparedEvent {
  type: "TOOL.PREPARED";
  toolCallId: string;
}

/** Sent to the parent agent once the call waits in `awaitingApproval` (the parent announces it). */
export interface ToolAwaitingApprovalEvent {
  type: "TOOL.AWAITING_APPROVAL";
  toolCallId: string;
  toolName: string;
  args: unknown;
}

const stepInput = ({ context }: { context: ToolCallContext }): ToolStepInput => ({
  toolCall: context.toolCall,
  assistantMessage: context.assistantMessage,
  args: context.args,
  idempotencyKey: context.idempotencyKey,
});

/**
 * One tool call, spawned by the agent with the tool call id as actor id:
 * `preparing` (`validating` → `checkingHook` when `beforeToolCall` is set → `ready`, waiting for the
 * agent's `EXECUTE`) → `awaitingApproval` (tools that require it) → `executing` (the tool, an invoked
 * actor) → `finalizing` (`afterToolCall`, when set) → `settled` (output: the outcome). Validation runs
 * synchronously; hooks and the tool run in invoked actors the inspector shows. Nothing here throws, so a
 * call always settles with an outcome. `RESUME` (sent after a restore) re-enters the current state.
 */
export const toolCallMachine = setup({
  types: {
    context: {} as ToolCallContext,
    events: {} as ToolCallEvent,
    input: {} as ToolCallInput,
    output: {} as ToolCallOutcome,
  },
  actors: {
    beforeToolCall: beforeToolCallActor,
    executeTool: executeToolActor,
    afterToolCall: afterToolCallActor,
  },
  actions: {
    validate: enqueueActions(({ context, enqueue, self }) => {
      const runtime = runtimeOf(self);
      const result = validateToolCall(context.toolCall, runtime.tools.get(context.toolCall.name));
      enqueue.raise(
        result.ok
          ? { type: "VALIDATED", args: result.args, hook: runtime.callbacks.beforeToolCall !== undefined }
          : { type: "REJECTED", outcome: result.outcome },
      );
    }),
    // After `beforeToolCall`, which may have changed the arguments.
    checkApproval: enqueueActions(({ context, enqueue, self }) => {
      const requiresApproval = runtimeOf(self).tools.get(context.toolCall.name)?.requiresApproval;
      const needsApproval =
        typeof requiresApproval === "function" ? requiresApproval(context.args) : requiresApproval === true;
      enqueue.assign({ needsApproval });
    }),
    checkAfterHook: enqueueActions(({ enqueue, self }) =>
      enqueue.raise({ type: "FINALIZE", hook: runtimeOf(self).callbacks.afterToolCall !== undefined }),
    ),
    announcePrepared: sendParent(
      ({ context }): ToolPreparedEvent => ({ type: "TOOL.PREPARED", toolCallId: context.toolCall.id }),
    ),
    requestApproval: sendParent(
      ({ context }): ToolAwaitingApprovalEvent => ({
        type: "TOOL.AWAITING_APPROVAL",
        toolCallId: context.toolCall.id,
        toolName: context.toolCall.name,
        args: context.args,
      }),
    ),
  },
  guards: {
    hookSet: (_, hook: boolean) => hook,
    needsApproval: ({ context }) => context.needsApproval,
  },
}).createMachine({
  id: "toolCall",
  context: ({ input }) => ({ ...input, args: undefined, needsApproval: false, outcome: undefined }),
  initial: "preparing",
  states: {
    preparing: {
      initial: "validating",
      on: { RESUME: { target: "preparing", reenter: true } },
      states: {
        validating: {
          entry: "validate",
          on: {
            VALIDATED: [
              {
                guard: { type: "hookSet", params: ({ event }) => event.hook },
                target: "checkingHook",
                actions: assign({
                  args: ({ event }) => event.args,
                }),
              },
              {
                target: "ready",
                actions: assign({
                  args: ({ event }) => event.args,
                }),
              },
            ],
            REJECTED: {
              target: "#toolCall.settled",
              actions: assign({ outcome: ({ event }) => event.outcome }),
            },
          },
        },
        checkingHook: {
          invoke: {
            src: "beforeToolCall",
            input: stepInput,
            onDone: [
              {
                guard: ({ event }) => event.output !== undefined,
                target: "#toolCall.settled",
                actions: assign({ outcome: ({ event }) => event.output }),
              },
              { target: "ready" },
            ],
          },
        },
        ready: {
          entry: ["checkApproval", "announcePrepared"],
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
              errorOutcome(context.toolCall, `Tool call denied${event.reason ? `: ${event.reason}` : ""}`),
          }),
        },
        RESUME: { target: "awaitingApproval", reenter: true },
      },
    },
    executing: {
      invoke: {
        src: "executeTool",
        input: stepInput,
        onDone: { target: "finalizing", actions: assign({ outcome: ({ event }) => event.output }) },
      },
      on: { RESUME: { target: "executing", reenter: true } },
    },
    finalizing: {
      initial: "checking",
      on: { RESUME: { target: "finalizing", reenter: true } },
      states: {
        checking: {
          entry: "checkAfterHook",
          on: {
            FINALIZE: [
              { guard: { type: "hookSet", params: ({ event }) => event.hook }, target: "hook" },
              { target: "#toolCall.settled" },
            ],
          },
        },
        hook: {
          invoke: {
            src: "afterToolCall",
            input: ({ context }) => ({ ...stepInput({ context }), outcome: context.outcome! }),
            onDone: {
              target: "#toolCall.settled",
              actions: assign({ outcome: ({ event }) => event.output }),
            },
          },
        },
      },
    },
    settled: { type: "final" },
  },
  output: ({ context }) => context.outcome!,
});

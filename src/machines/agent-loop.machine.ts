import { type DoneActorEvent, type ErrorActorEvent, enqueueActions, setup } from "xstate";
import { type StreamReplyOutput, streamReplyActor } from "../actors/stream-reply.actor.js";
import { type BetweenTurnsDecision, decideNextTurn } from "../loop/between-turns.js";
import type { AgentLoopContext, AgentLoopInput } from "../loop/loop-context.js";
import * as run from "../loop/loop-steps.js";
import { isBatchSettled } from "../loop/tool-batch.js";
import type { ToolCallOutcome } from "../loop/tool-call-steps.js";
import type { AgentMessage } from "../types/messages.js";
import {
  type ToolAwaitingApprovalEvent,
  type ToolPreparedEvent,
  toolCallMachine,
} from "./tool-call.machine.js";

export type AgentLoopEvent =
  | { type: "START" }
  | { type: "ABORT" }
  | { type: "APPROVE_TOOL"; toolCallId: string }
  | { type: "DENY_TOOL"; toolCallId: string; reason?: string }
  | { type: "STEERING.ARRIVED"; messages: AgentMessage[] }
  | { type: "DECIDED"; decision: BetweenTurnsDecision }
  | { type: "DECISION_FAILED"; error: unknown }
  | ToolPreparedEvent
  | ToolAwaitingApprovalEvent
  | DoneActorEvent<ToolCallOutcome, string>
  | ErrorActorEvent<unknown, string>;

/**
 * The agent loop as a statechart: `idle` —START→ `preparingTurn` (callbacks between turns, queue polls)
 * → `streaming` (the stream actor) → `executingTools` (one spawned `toolCallMachine` per call, id = tool
 * call id) → `preparingTurn` → … → `done` (output: the run's new messages). `ABORT` is accepted in every
 * state and always ends in `done` with every tool call answered and `agent_end` emitted.
 * AgentEvents go to `input.sink` synchronously, in order; stream deltas bypass the interpreter.
 */
export const agentLoopMachine = setup({
  types: {
    context: {} as AgentLoopContext,
    events: {} as AgentLoopEvent,
    input: {} as AgentLoopInput,
    output: {} as AgentMessage[],
  },
  actors: { streamReply: streamReplyActor, toolCall: toolCallMachine },
  actions: {
    beginRun: ({ context }) => run.beginRun(context),
    // Synchronous callbacks decide within this macrostep; async ones answer with an event later.
    decideNextTurn: enqueueActions(({ context, enqueue, self }) => {
      const input = run.betweenTurnsInput(context);
      let decision: ReturnType<typeof decideNextTurn>;
      try {
        decision = decideNextTurn(input);
      } catch (error) {
        enqueue.raise({ type: "DECISION_FAILED", error });
        return;
      }
      if (!(decision instanceof Promise)) {
        enqueue.raise({ type: "DECIDED", decision });
        return;
      }
      const active = () => self.getSnapshot().status === "active";
      decision.then(
        (settled) => {
          if (active()) self.send({ type: "DECIDED", decision: settled });
          else run.returnUndelivered(context, input, settled);
        },
        (error: unknown) => {
          if (active()) self.send({ type: "DECISION_FAILED", error });
        },
      );
    }),
    abortRun: ({ context }) => context.controller.abort(),
    endRun: ({ context }) => run.endRun(context),
    failTurn: ({ context }, params: { reason: "error" | "aborted"; text: string }) =>
      run.failTurn(context, params.reason, params.text),
    startNextTurn: ({ context }, decision: BetweenTurnsDecision) => run.startNextTurn(context, decision),
    applyUpdate: ({ context }, decision: BetweenTurnsDecision) => run.applyUpdate(context, decision),
    recordReply: ({ context }, output: StreamReplyOutput) =>
      run.recordReply(context, output.message, output.started),
    closeTurn: ({ context }) => run.closeTurn(context),
    advanceToolBatch: enqueueActions(({ context, enqueue }) => {
      for (const step of run.advanceToolBatch(context)) {
        if (step.kind === "spawn") enqueue.spawnChild("toolCall", { id: step.id, input: step.input });
        else enqueue.sendTo(step.id, { type: "EXECUTE" });
      }
    }),
    markPrepared: ({ context }, toolCallId: string) => run.markPrepared(context, toolCallId),
    keepPending: ({ context }, messages: AgentMessage[]) => run.keepPending(context, messages),
    recordToolOutcome: enqueueActions(({ context, enqueue, self }, outcome: ToolCallOutcome) => {
      enqueue.stopChild(outcome.toolCall.id);
      const poll = run.recordToolOutcome(context, outcome);
      if (!poll) return;
      run.pollSteeringBetweenTools(context, (messages) => {
        if (self.getSnapshot().status === "active") self.send({ type: "STEERING.ARRIVED", messages });
        else context.config.restoreQueuedMessages?.("steering", messages);
      });
    }),
    skipRemainingTools: enqueueActions(({ context, enqueue }, messages: AgentMessage[]) => {
      for (const id of run.skipRemainingTools(context, messages)) enqueue.stopChild(id);
    }),
    abortToolBatch: enqueueActions(({ context, enqueue }) => {
      for (const id of run.abortToolBatch(context)) enqueue.stopChild(id);
    }),
    forwardDecision: enqueueActions(
      ({ enqueue }, params: { id: string; approved: boolean; reason?: string }) => {
        enqueue.sendTo(
          params.id,
          params.approved ? { type: "APPROVE" } : { type: "DENY", reason: params.reason },
        );
      },
    ),
    finishToolBatch: ({ context }) => run.finishToolBatch(context),
    announceApprovalRequest: ({ context }, request: ToolAwaitingApprovalEvent) =>
      context.sink({
        type: "tool_approval_request",
        toolCallId: request.toolCallId,
        toolName: request.toolName,
        args: request.args,
      }),
  },
  guards: {
    decidedToStream: (_, decision: BetweenTurnsDecision) => decision.next === "stream",
    replyFailed: (_, output: { message: { stopReason: string } }) =>
      output.message.stopReason === "error" || output.message.stopReason === "aborted",
    replyHasToolCalls: (_, output: { message: { content: { type: string }[] } }) =>
      output.message.content.some((block) => block.type === "toolCall"),
    batchSettled: ({ context }) => context.batch !== undefined && isBatchSettled(context.batch),
    // A decision for a call that has no child (unknown, or already settled) is ignored.
    toolCallRunning: ({ context }, toolCallId: string) => run.hasToolCallChild(context, toolCallId),
  },
}).createMachine({
  id: "agentLoop",
  context: ({ input }) => run.createLoopContext(input),
  initial: "idle",
  on: {
    "STEERING.ARRIVED": { actions: { type: "keepPending", params: ({ event }) => event.messages } },
  },
  states: {
    idle: {
      on: {
        START: { target: "preparingTurn", actions: "beginRun" },
        ABORT: {
          target: "done",
          actions: [
            "beginRun",
            "abortRun",
            { type: "failTurn", params: { reason: "aborted", text: "Run was aborted" } },
            "endRun",
          ],
        },
      },
    },
    preparingTurn: {
      entry: "decideNextTurn",
      on: {
        DECIDED: [
          {
            guard: { type: "decidedToStream", params: ({ event }) => event.decision },
            target: "streaming",
            actions: [
              { type: "applyUpdate", params: ({ event }) => event.decision },
              { type: "startNextTurn", params: ({ event }) => event.decision },
            ],
          },
          {
            target: "done",
            actions: [{ type: "applyUpdate", params: ({ event }) => event.decision }, "endRun"],
          },
        ],
        DECISION_FAILED: {
          target: "done",
          actions: [
            {
              type: "failTurn",
              params: ({ event }) => ({ reason: "error", text: run.callbackErrorText(event.error) }),
            },
            "endRun",
          ],
        },
        ABORT: {
          target: "done",
          actions: [
            "abortRun",
            { type: "failTurn", params: { reason: "aborted", text: "Run was aborted" } },
            "endRun",
          ],
        },
      },
    },
    streaming: {
      invoke: {
        id: "stream",
        src: "streamReply",
        input: ({ context }) => run.streamReplyInput(context),
        onDone: [
          {
            guard: { type: "replyFailed", params: ({ event }) => event.output },
            target: "done",
            actions: [
              { type: "recordReply", params: ({ event }) => event.output },
              "finishToolBatch",
              "closeTurn",
              "endRun",
            ],
          },
          {
            guard: { type: "replyHasToolCalls", params: ({ event }) => event.output },
            target: "executingTools",
            actions: { type: "recordReply", params: ({ event }) => event.output },
          },
          {
            target: "preparingTurn",
            actions: [{ type: "recordReply", params: ({ event }) => event.output }, "closeTurn"],
          },
        ],
        onError: {
          target: "done",
          actions: [
            {
              type: "failTurn",
              params: ({ event }) => ({ reason: "error", text: run.callbackErrorText(event.error) }),
            },
            "endRun",
          ],
        },
      },
      on: {
        // The stream actor answers the aborted signal at once with the partial reply (→ done).
        ABORT: { actions: "abortRun" },
      },
    },
    executingTools: {
      entry: "advanceToolBatch",
      always: { guard: "batchSettled", target: "preparingTurn", actions: ["finishToolBatch", "closeTurn"] },
      on: {
        "TOOL.PREPARED": {
          actions: [{ type: "markPrepared", params: ({ event }) => event.toolCallId }, "advanceToolBatch"],
        },
        "TOOL.AWAITING_APPROVAL": {
          actions: { type: "announceApprovalRequest", params: ({ event }) => event },
        },
        "xstate.done.actor.*": {
          actions: [{ type: "recordToolOutcome", params: ({ event }) => event.output }, "advanceToolBatch"],
        },
        "xstate.error.actor.*": {
          actions: [
            {
              type: "recordToolOutcome",
              params: ({ context, event }) =>
                run.crashedToolOutcome(context, event.actorId ?? "", event.error),
            },
            "advanceToolBatch",
          ],
        },
        "STEERING.ARRIVED": {
          actions: [{ type: "skipRemainingTools", params: ({ event }) => event.messages }],
        },
        APPROVE_TOOL: {
          guard: { type: "toolCallRunning", params: ({ event }) => event.toolCallId },
          actions: {
            type: "forwardDecision",
            params: ({ event }) => ({ id: event.toolCallId, approved: true }),
          },
        },
        DENY_TOOL: {
          guard: { type: "toolCallRunning", params: ({ event }) => event.toolCallId },
          actions: {
            type: "forwardDecision",
            params: ({ event }) => ({ id: event.toolCallId, approved: false, reason: event.reason }),
          },
        },
        ABORT: {
          target: "done",
          actions: ["abortRun", "abortToolBatch", "finishToolBatch", "closeTurn", "endRun"],
        },
      },
    },
    done: { type: "final" },
  },
  output: ({ context }) => context.newMessages,
});

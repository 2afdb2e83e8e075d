import { type DoneActorEvent, type ErrorActorEvent, enqueueActions, fromPromise, setup } from "xstate";
import { type AgentRuntime, bindAgentRuntime, runtimeOf } from "../actors/agent-runtime.js";
import { type StreamReplyOutput, streamReplyActor } from "../actors/stream-reply.actor.js";
import type {
  AgentMachineContext,
  AgentSettings,
  PersistableStreamOptions,
  ToolCallOutcome,
} from "../loop/agent-context.js";
import type { AgentCommand } from "../loop/agent-events.js";
import { planNextTurn, type TurnCallbacksAnswer } from "../loop/between-turns.js";
import { initialAgentContext } from "../loop/initial-context.js";
import * as steps from "../loop/run-steps.js";
import { isBatchSettled } from "../loop/tool-batch.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import { errorText } from "../types/error-text.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import {
  ackSteeringPoll,
  apply,
  decideTurn,
  pollSteeringBetweenTools,
  resumeToolCalls,
  startToolBatch,
  streamInput,
} from "./agent.actions.js";
import {
  type ToolAwaitingApprovalEvent,
  type ToolPreparedEvent,
  toolCallMachine,
} from "./tool-call.machine.js";

/** Input of `agentMachine`: the runtime (functions) and the agent's initial data. */
export interface AgentMachineInput {
  runtime: AgentRuntime;
  agentId?: string;
  model: Model;
  systemPrompt?: string;
  thinkingLevel?: ThinkingLevel;
  /** Active tools by name (default: every tool of the runtime). */
  toolNames?: string[];
  messages?: AgentMessage[];
  settings?: Partial<AgentSettings>;
  streamOptions?: PersistableStreamOptions;
}

/** Internal events: decisions, injections, tool call children and their completions. */
export type AgentInternalEvent =
  | { type: "DECIDE" }
  | { type: "DECIDED"; answer: TurnCallbacksAnswer }
  | { type: "DECISION_PENDING"; pending: Promise<TurnCallbacksAnswer> }
  | { type: "DECISION_FAILED"; error: unknown }
  | { type: "PLANNED"; next: "stream" | "stop" }
  | { type: "INJECT" }
  /** A between-tools steering poll answered (`external`: what the external source returned). */
  | { type: "STEERING.POLLED"; external: AgentMessage[] }
  | ToolPreparedEvent
  | ToolAwaitingApprovalEvent
  | DoneActorEvent<ToolCallOutcome, string>
  | ErrorActorEvent<unknown, string>;

export type AgentMachineEvent = AgentCommand | AgentInternalEvent;

const ABORTED_TEXT = "Run was aborted";
const callbackErrorText = (error: unknown) => `Agent loop callback failed: ${errorText(error)}`;

/**
 * One agent, one long-lived actor: `idle` —PROMPT/CONTINUE→ `preparingTurn` (`deciding`: the
 * between-turn callbacks, an invoked actor when one is async; `injecting`: one queued message per
 * step) → `streaming` (the stream actor) → `executingTools` (one spawned `toolCallMachine` per call, id =
 * tool call id) → `preparingTurn` → … → `idle`. Never final. Every AgentEvent is emitted by this actor
 * (`actor.on(type, …)`). The context is JSON-safe data (see `AgentMachineContext`); functions come from
 * the `AgentRuntime` given as `input.runtime`. `ABORT` ends a run from any state with every tool call
 * answered and `agent_end`.
 */
export const agentMachine = setup({
  types: {
    context: {} as AgentMachineContext,
    events: {} as AgentMachineEvent,
    input: {} as AgentMachineInput,
    emitted: {} as AgentEvent,
  },
  actors: {
    streamReply: streamReplyActor,
    toolCall: toolCallMachine,
    // Stopped only when the agent actor is stopped mid-decision (ABORT aborts the run first): that ends
    // the run, so it aborts the run's signal, which the callbacks and their queue polls follow.
    turnCallbacks: fromPromise<
      TurnCallbacksAnswer,
      { pending: Promise<TurnCallbacksAnswer>; controller: AbortController }
    >(({ input, signal }) => {
      signal.addEventListener("abort", () => input.controller.abort(), { once: true });
      return input.pending;
    }),
  },
  actions: {
    beginRun: enqueueActions(({ context, event, enqueue, self }) => {
      // A run gets a fresh controller only when the last one was aborted (AbortControllers are not free).
      const runtime = runtimeOf(self);
      if (runtime.controller.signal.aborted) runtime.controller = new AbortController();
      if (event.type === "PROMPT")
        apply(
          enqueue,
          steps.beginRun(
            context,
            event.messages.map((message) => ({ message })),
            false,
          ),
        );
      else apply(enqueue, steps.continueRun(context));
    }),
    requestDecision: enqueueActions(({ enqueue, self }) => enqueue.sendTo(self, { type: "DECIDE" })),
    decide: enqueueActions(({ context, enqueue, self }) => decideTurn(context, enqueue, self)),
    plan: enqueueActions(({ context, event, enqueue, self }) => {
      if (event.type !== "DECIDED") return;
      const runtime = runtimeOf(self);
      const plan = planNextTurn(context, event.answer, (tools) =>
        tools.map((tool) => {
          if (!runtime.tools.has(tool.name)) runtime.tools.set(tool.name, tool as never);
          return tool.name;
        }),
      );
      enqueue.assign(() => plan.context);
      enqueue.raise({ type: "PLANNED", next: plan.next });
    }),
    requestInjectionIfMore: enqueueActions(({ context, enqueue, self }) => {
      if ((context.run?.inbox.length ?? 0) > 0) enqueue.sendTo(self, { type: "INJECT" });
    }),
    injectNext: enqueueActions(({ context, enqueue }) => apply(enqueue, steps.injectNext(context))),
    abortRun: ({ self }) => runtimeOf(self).controller.abort(),
    failTurn: enqueueActions(({ context, enqueue }, params: { reason: "error" | "aborted"; text: string }) =>
      apply(enqueue, steps.failTurn(context, params.reason, params.text)),
    ),
    endRun: enqueueActions(({ context, enqueue, self }) => {
      const result = steps.endRun(context);
      apply(enqueue, result);
      const restore = runtimeOf(self).callbacks.restoreQueuedMessages;
      for (const { queue, messages } of result.returned) restore?.(queue, messages);
    }),
    recordReply: enqueueActions(({ context, enqueue, self }, output: StreamReplyOutput) => {
      const runtime = runtimeOf(self);
      const sequential =
        context.settings.toolExecution === "sequential" ||
        output.message.content.some(
          (block) =>
            block.type === "toolCall" && runtime.tools.get(block.name)?.executionMode === "sequential",
        );
      apply(enqueue, steps.recordReply(context, { ...output, sequential }));
    }),
    closeTurn: enqueueActions(({ context, enqueue }) => apply(enqueue, steps.closeTurn(context))),
    advanceToolBatch: enqueueActions(({ context, enqueue }) => startToolBatch(context, enqueue)),
    markPrepared: enqueueActions(({ context, enqueue }, toolCallId: string) =>
      enqueue.assign(() => steps.markPrepared(context, toolCallId)),
    ),
    recordToolOutcome: enqueueActions(({ context, enqueue, self }, outcome: ToolCallOutcome) => {
      enqueue.stopChild(outcome.toolCall.id);
      const result = steps.recordToolOutcome(context, outcome);
      apply(enqueue, result);
      if (steps.wantsSteeringPoll(result.context)) pollSteeringBetweenTools(result.context, enqueue, self);
    }),
    steeringPolled: enqueueActions(({ context, enqueue }, external: AgentMessage[]) =>
      ackSteeringPoll(context, external, enqueue),
    ),
    keepLateSteering: enqueueActions(({ context, enqueue, self }, external: AgentMessage[]) => {
      if (external.length === 0) return;
      if (context.run) enqueue.assign(() => steps.keepInInbox(context, external));
      else runtimeOf(self).callbacks.restoreQueuedMessages?.("steering", external);
    }),
    abortToolBatch: enqueueActions(({ context, enqueue }) => {
      const result = steps.abortToolBatch(context);
      apply(enqueue, result);
      for (const id of result.stop) enqueue.stopChild(id);
    }),
    forwardDecision: enqueueActions(
      ({ enqueue }, params: { id: string; approved: boolean; reason?: string }) =>
        enqueue.sendTo(
          params.id,
          params.approved ? { type: "APPROVE" } : { type: "DENY", reason: params.reason },
        ),
    ),
    announceApprovalRequest: enqueueActions(({ enqueue }, request: ToolAwaitingApprovalEvent) =>
      enqueue.emit({
        type: "tool_approval_request",
        toolCallId: request.toolCallId,
        toolName: request.toolName,
        args: request.args,
      }),
    ),
    announceResume: enqueueActions(({ enqueue }, from: "preparingTurn" | "streaming" | "executingTools") =>
      enqueue.emit({ type: "agent_resume", from }),
    ),
    resumeToolCalls: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === "RESUME") resumeToolCalls(context, event.interrupted, enqueue);
    }),
    enqueueMessage: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === "STEER") enqueue.assign(() => steps.enqueue(context, "steering", event.message));
      if (event.type === "FOLLOW_UP") enqueue.assign(() => steps.enqueue(context, "followUp", event.message));
    }),
    clearQueues: enqueueActions(({ event, enqueue }) => {
      if (event.type !== "CLEAR_QUEUES") return;
      if (event.queue) enqueue.assign({ [event.queue]: [] });
      else enqueue.assign({ steering: [], followUp: [] });
    }),
    reset: enqueueActions(({ enqueue }) =>
      enqueue.assign({ messages: [], steering: [], followUp: [], errorMessage: undefined }),
    ),
  },
  guards: {
    planned: (_, params: { next: "stream" | "stop"; want: "stream" | "stop" }) => params.next === params.want,
    inboxEmpty: ({ context }) => (context.run?.inbox.length ?? 0) === 0,
    replyFailed: (_, output: StreamReplyOutput) =>
      output.message.stopReason === "error" || output.message.stopReason === "aborted",
    replyHasToolCalls: (_, output: StreamReplyOutput) =>
      output.message.content.some((block) => block.type === "toolCall"),
    batchSettled: ({ context }) => context.run?.batch !== undefined && isBatchSettled(context.run.batch),
    toolCallRunning: ({ context }, toolCallId: string) => steps.hasToolCallChild(context, toolCallId),
    canContinue: ({ context }) => {
      const last = context.messages.at(-1) as { role?: string } | undefined;
      if (!last) return false;
      return last.role !== "assistant" || context.steering.length > 0 || context.followUp.length > 0;
    },
  },
}).createMachine({
  id: "agent",
  context: ({ input, self }) => {
    bindAgentRuntime(self, input.runtime);
    return initialAgentContext({ ...input, toolNames: input.toolNames ?? [...input.runtime.tools.keys()] });
  },
  initial: "idle",
  on: {
    // A between-tools steering poll that answers after its batch settled: the run keeps the messages
    // for its next turn (or, if it has ended, gives them back).
    "STEERING.POLLED": { actions: { type: "keepLateSteering", params: ({ event }) => event.external } },
    STEER: { actions: "enqueueMessage" },
    FOLLOW_UP: { actions: "enqueueMessage" },
    CLEAR_QUEUES: { actions: "clearQueues" },
    SET_MODEL: { actions: enqueueActions(({ event, enqueue }) => enqueue.assign({ model: event.model })) },
    SET_THINKING_LEVEL: {
      actions: enqueueActions(({ event, enqueue }) => enqueue.assign({ thinkingLevel: event.thinkingLevel })),
    },
    SET_SYSTEM_PROMPT: {
      actions: enqueueActions(({ event, enqueue }) => enqueue.assign({ systemPrompt: event.systemPrompt })),
    },
    SET_TOOLS: {
      actions: enqueueActions(({ event, enqueue }) => enqueue.assign({ toolNames: [...event.toolNames] })),
    },
    SET_STREAM_OPTIONS: {
      actions: enqueueActions(({ event, enqueue }) =>
        enqueue.assign({ streamOptions: { ...event.streamOptions } }),
      ),
    },
  },
  states: {
    idle: {
      on: {
        PROMPT: { target: "preparingTurn", actions: "beginRun" },
        CONTINUE: { guard: "canContinue", target: "preparingTurn", actions: "beginRun" },
        RESET: { actions: "reset" },
        SET_MESSAGES: {
          actions: enqueueActions(({ event, enqueue }) => enqueue.assign({ messages: [...event.messages] })),
        },
      },
    },
    preparingTurn: {
      initial: "deciding",
      on: {
        ABORT: {
          target: "idle",
          actions: [
            "abortRun",
            { type: "failTurn", params: { reason: "aborted", text: ABORTED_TEXT } },
            "endRun",
          ],
        },
        DECISION_FAILED: {
          target: "idle",
          actions: [
            {
              type: "failTurn",
              params: ({ event }) => ({ reason: "error", text: callbackErrorText(event.error) }),
            },
            "endRun",
          ],
        },
        DECIDED: { actions: "plan" },
        PLANNED: [
          {
            guard: { type: "planned", params: ({ event }) => ({ next: event.next, want: "stream" }) },
            target: ".injecting",
          },
          { target: "idle", actions: "endRun" },
        ],
        RESUME: {
          target: "preparingTurn",
          reenter: true,
          actions: { type: "announceResume", params: "preparingTurn" },
        },
      },
      states: {
        deciding: {
          entry: "requestDecision",
          on: {
            DECIDE: { actions: "decide" },
            DECISION_PENDING: "awaitingCallbacks",
          },
        },
        awaitingCallbacks: {
          invoke: {
            id: "turnCallbacks",
            src: "turnCallbacks",
            input: ({ event, self }) => ({
              pending: (event as { pending: Promise<TurnCallbacksAnswer> }).pending,
              controller: runtimeOf(self).controller,
            }),
            onDone: {
              actions: enqueueActions(({ event, enqueue }) =>
                enqueue.raise({ type: "DECIDED", answer: event.output }),
              ),
            },
            onError: {
              actions: enqueueActions(({ event, enqueue }) =>
                enqueue.raise({ type: "DECISION_FAILED", error: event.error }),
              ),
            },
          },
        },
        injecting: {
          // One message per macrostep, so that an abort requested in a message's listeners stops the
          // next injection; the model call after the last one starts only once its listeners ran
          // (`Agent.abort()` aborts the run's signal at once, which the stream checks when it starts).
          entry: ["injectNext", "requestInjectionIfMore"],
          always: { guard: "inboxEmpty", target: "#agent.streaming" },
          on: { INJECT: { target: "injecting", reenter: true } },
        },
      },
    },
    streaming: {
      invoke: {
        id: "stream",
        src: "streamReply",
        input: ({ context, self }) => streamInput(context, self),
        onDone: [
          {
            guard: { type: "replyFailed", params: ({ event }) => event.output },
            target: "idle",
            actions: [{ type: "recordReply", params: ({ event }) => event.output }, "closeTurn", "endRun"],
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
          target: "idle",
          actions: [
            {
              type: "failTurn",
              params: ({ event }) => ({ reason: "error", text: callbackErrorText(event.error) }),
            },
            "endRun",
          ],
        },
      },
      on: {
        // The stream actor answers the aborted signal at once with the partial reply (→ idle).
        ABORT: { actions: "abortRun" },
        RESUME: {
          target: "streaming",
          reenter: true,
          actions: { type: "announceResume", params: "streaming" },
        },
      },
    },
    executingTools: {
      entry: "advanceToolBatch",
      always: { guard: "batchSettled", target: "preparingTurn", actions: "closeTurn" },
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
              params: ({ context, event }) => crashedToolOutcome(context, event.actorId ?? "", event.error),
            },
            "advanceToolBatch",
          ],
        },
        "STEERING.POLLED": {
          actions: [{ type: "steeringPolled", params: ({ event }) => event.external }, "advanceToolBatch"],
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
        ABORT: { target: "idle", actions: ["abortRun", "abortToolBatch", "closeTurn", "endRun"] },
        RESUME: {
          actions: [
            { type: "announceResume", params: "executingTools" },
            "resumeToolCalls",
            "advanceToolBatch",
          ],
        },
      },
    },
  },
});

/** The outcome of a tool call actor that failed (a bug: the machine itself never throws). */
function crashedToolOutcome(
  context: AgentMachineContext,
  toolCallId: string,
  error: unknown,
): ToolCallOutcome {
  const call = context.run?.batch?.calls.find((c) => c.id === toolCallId);
  return errorOutcome(
    call ?? { type: "toolCall", id: toolCallId, name: "unknown", arguments: {} },
    errorText(error),
  );
}

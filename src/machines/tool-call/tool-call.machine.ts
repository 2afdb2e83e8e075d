import {
  assign,
  type CallbackActorLogic,
  type EventObject,
  type PromiseActorLogic,
  sendParent,
  sendTo,
  setup,
} from "xstate";
import type { SubAgentCollection } from "../../actors/sub-agent.actors.js";
import type { ToolStepInput } from "../../actors/tool-step.actors.js";
import { clientAnswerOutcome, deniedOutcome } from "../../loop/tool-outcome.js";
import type { AgentEvent } from "../../types/events.js";
import { notProvided } from "../../xstate/not-provided.js";
import type { ToolCallOutcome } from "../agent/agent.context.js";
import type { SubAgentStart, ToolCallContext, ToolCallInput } from "./tool-call.context.js";
import type {
  ExecutionEvent,
  SubAgentEndedEvent,
  SubAgentEventsEvent,
  SubAgentReserveEvent,
  ToolAwaitingEvent,
  ToolCallEvent,
  ToolPreparedEvent,
  ToolUpdateEvent,
  ToolValidatedEvent,
} from "./tool-call.events.js";

const stepInput = ({ context }: { context: ToolCallContext }): ToolStepInput => ({
  toolCall: context.toolCall,
  assistantMessage: context.assistantMessage,
  args: context.args,
  idempotencyKey: context.idempotencyKey,
  agent: context.agent,
});

const awaiting =
  (type: ToolAwaitingEvent["type"]) =>
  ({ context }: { context: ToolCallContext }): ToolAwaitingEvent => ({
    type,
    toolCallId: context.toolCall.id,
    toolName: context.toolCall.name,
    args: context.args,
  });

/**
 * One tool call, spawned by the agent with the tool call id as actor id. Its steps that run user code
 * are actors (and the `validate` action) that `createAgentMachine` provides; this definition alone
 * has none (`toolCallMachine.provide(…)` supplies them). Nothing here throws, so a call always settles
 * with an outcome. After a restore, `RESUME` re-enters a state whose invoked actor was not persisted and
 * `REANNOUNCE` makes a waiting call ask again; both re-enter the current state.
 */
export const toolCallMachine = setup({
  types: {
    context: {} as ToolCallContext,
    events: {} as ToolCallEvent,
    input: {} as ToolCallInput,
    output: {} as ToolCallOutcome,
  },
  actors: {
    beforeToolCall:
      notProvided<
        PromiseActorLogic<{ outcome: ToolCallOutcome | undefined; needsApproval: boolean }, ToolStepInput>
      >("beforeToolCall"),
    executeTool: notProvided<CallbackActorLogic<EventObject, ToolStepInput>>("executeTool"),
    afterToolCall:
      notProvided<PromiseActorLogic<ToolCallOutcome, ToolStepInput & { outcome: ToolCallOutcome }>>(
        "afterToolCall",
      ),
    prepareSubAgent: notProvided<CallbackActorLogic<{ type: "NONE" }, ToolStepInput>>("prepareSubAgent"),
    // The child agent machine (`createAgentMachine` provides the one of the agent tool's spec).
    subAgent: notProvided<CallbackActorLogic<EventObject, SubAgentStart>>("subAgent"),
    collectSubAgent: notProvided<PromiseActorLogic<ToolCallOutcome, SubAgentCollection>>("collectSubAgent"),
  },
  actions: {
    validate: (_args, _params: undefined) => {
      throw new Error(
        'agentchart: the tool call action "validate" is not provided: build the agent with createAgentMachine(options)',
      );
    },
    announcePrepared: sendParent(
      ({ context }): ToolPreparedEvent => ({ type: "TOOL_PREPARED", toolCallId: context.toolCall.id }),
    ),
    requestApproval: sendParent(awaiting("TOOL_AWAITING_APPROVAL")),
    requestClient: sendParent(awaiting("TOOL_AWAITING_CLIENT")),
    recordValidation: assign(({ event }) => {
      const validated = event as ToolValidatedEvent;
      return {
        args: validated.args,
        needsApproval: validated.needsApproval,
        afterHook: validated.afterHook,
        client: validated.client,
        agentTool: validated.agentTool,
      };
    }),
    recordOutcome: assign({ outcome: (_, outcome: ToolCallOutcome) => outcome }),
    recordApprovalNeed: assign({ needsApproval: (_, needsApproval: boolean) => needsApproval }),
    recordDenial: assign({
      outcome: ({ context }, reason: string | undefined) => deniedOutcome(context.toolCall, reason),
    }),
    recordAnswer: assign({
      outcome: ({ context }, answer: Extract<ToolCallEvent, { type: "ANSWER" }>) =>
        clientAnswerOutcome(context.toolCall, answer),
    }),
    recordDelegate: assign({ delegate: (_, start: SubAgentStart) => start }),
    recordAgentEnd: assign({
      agentEnd: (_, ended: SubAgentEndedEvent) => ({ end: ended.end, errorMessage: ended.errorMessage }),
    }),
    forgetAgentEnd: assign({ agentEnd: undefined }),
    forwardProgress: sendParent(
      ({ context }, partialResult: unknown): ToolUpdateEvent => ({
        type: "TOOL_UPDATE",
        toolCallId: context.toolCall.id,
        toolName: context.toolCall.name,
        args: context.args,
        partialResult,
      }),
    ),
    forwardAgentEvents: sendParent(
      ({ context }, events: AgentEvent[]): SubAgentEventsEvent => ({
        type: "SUB_AGENT_EVENTS",
        toolCallId: context.toolCall.id,
        toolName: context.toolCall.name,
        args: context.args,
        events,
      }),
    ),
    forwardReservation: sendParent(
      ({ context, event }): SubAgentReserveEvent => ({
        type: "SUB_AGENT_RESERVE",
        toolCallId: context.toolCall.id,
        reservation: (event as Extract<ToolCallEvent, { type: "RESERVE" }>).reservation,
      }),
    ),
    answerSubAgent: sendTo("agent", ({ event }) => event as Extract<ToolCallEvent, { type: "RESERVATION" }>),
    promptSubAgent: sendTo("agent", ({ context }) => ({
      type: "PROMPT",
      messages: context.delegate!.prompt,
      ...(context.delegate!.output ? { output: context.delegate!.output } : {}),
    })),
    abortSubAgent: sendTo("agent", { type: "ABORT" }),
  },
  guards: {
    beforeHook: ({ event }) => (event as ToolValidatedEvent).beforeHook,
    hookDecided: (_, outcome: ToolCallOutcome | undefined) => outcome !== undefined,
    needsApproval: ({ context }) => context.needsApproval && context.approved !== true,
    client: ({ context }) => context.client,
    agentTool: ({ context }) => context.agentTool === true,
    afterHook: ({ context }) => context.afterHook,
  },
}).createMachine({
  id: "toolCall",
  description:
    "One tool call of a reply: its preflight, the wait for a person or the client if it needs one, its execution (or the child agent it runs), the after hook; its output is the call's outcome.",
  context: ({ input }) => ({
    ...input,
    args: undefined,
    needsApproval: false,
    client: false,
    afterHook: false,
    outcome: undefined,
  }),
  initial: "preparing",
  on: {
    // A child agent's events, on their way up to this call's agent (also after the child ended).
    AGENT_EVENTS: { actions: { type: "forwardAgentEvents", params: ({ event }) => event.events } },
  },
  states: {
    preparing: {
      description: "Preflight: the arguments are validated and the before hook has its say.",
      initial: "validating",
      on: { RESUME: { target: "preparing", reenter: true } },
      states: {
        validating: {
          description:
            "Finds the tool, prepares and validates the arguments, asks whether the call needs approval.",
          entry: "validate",
          on: {
            VALIDATED: [
              { guard: "beforeHook", target: "checkingHook", actions: "recordValidation" },
              { target: "ready", actions: "recordValidation" },
            ],
            REJECTED: {
              target: "#toolCall.settled",
              actions: { type: "recordOutcome", params: ({ event }) => event.outcome },
            },
          },
        },
        checkingHook: {
          description: "The agent's beforeToolCall hook decides whether the call may go on.",
          invoke: {
            id: "beforeToolCall",
            src: "beforeToolCall",
            input: stepInput,
            onDone: [
              {
                guard: { type: "hookDecided", params: ({ event }) => event.output.outcome },
                target: "#toolCall.settled",
                actions: { type: "recordOutcome", params: ({ event }) => event.output.outcome! },
              },
              {
                target: "ready",
                description: "The hook may have changed the arguments: approval is decided on what it left.",
                actions: { type: "recordApprovalNeed", params: ({ event }) => event.output.needsApproval },
              },
            ],
          },
        },
        ready: {
          description: "Prepared: waits for the agent's EXECUTE (calls start in source order).",
          entry: "announcePrepared",
          on: {
            EXECUTE: [
              { guard: "needsApproval", target: "#toolCall.awaitingApproval" },
              { guard: "client", target: "#toolCall.awaitingClient" },
              { guard: "agentTool", target: "#toolCall.startingAgent" },
              { target: "#toolCall.executing" },
            ],
          },
        },
      },
    },
    awaitingApproval: {
      description: "Waits for a person to approve or deny the call.",
      tags: ["awaitingHuman"],
      entry: "requestApproval",
      on: {
        APPROVE: [
          { guard: "client", target: "awaitingClient" },
          { guard: "agentTool", target: "startingAgent" },
          { target: "executing" },
        ],
        DENY: {
          target: "settled",
          actions: { type: "recordDenial", params: ({ event }) => event.reason },
        },
        REANNOUNCE: { target: "awaitingApproval", reenter: true },
      },
    },
    awaitingClient: {
      description: "A client tool: waits for the client's answer.",
      tags: ["awaitingHuman"],
      entry: "requestClient",
      on: {
        ANSWER: [
          {
            guard: "afterHook",
            target: "finalizing",
            actions: { type: "recordAnswer", params: ({ event }) => event },
          },
          { target: "settled", actions: { type: "recordAnswer", params: ({ event }) => event } },
        ],
        REANNOUNCE: { target: "awaitingClient", reenter: true },
      },
    },
    executing: {
      description: "The tool runs; its progress goes to the agent as tool_execution_update.",
      tags: ["busy"],
      invoke: { id: "executeTool", src: "executeTool", input: stepInput },
      on: {
        TOOL_PROGRESS: {
          actions: {
            type: "forwardProgress",
            params: ({ event }: { event: Extract<ExecutionEvent, { type: "TOOL_PROGRESS" }> }) =>
              event.partialResult,
          },
        },
        TOOL_EXECUTED: [
          {
            guard: "afterHook",
            target: "finalizing",
            actions: { type: "recordOutcome", params: ({ event }) => event.outcome },
          },
          { target: "settled", actions: { type: "recordOutcome", params: ({ event }) => event.outcome } },
        ],
        RESUME: { target: "executing", reenter: true },
      },
    },
    startingAgent: {
      description: "An agent tool: checks the tree's limits and builds the child agent's start.",
      invoke: { id: "prepareSubAgent", src: "prepareSubAgent", input: stepInput },
      on: {
        SUB_AGENT_READY: {
          target: "delegating",
          actions: { type: "recordDelegate", params: ({ event }) => event.start },
        },
        REJECTED: {
          target: "settled",
          actions: { type: "recordOutcome", params: ({ event }) => event.outcome },
        },
        RESUME: { target: "startingAgent", reenter: true },
      },
    },
    delegating: {
      description: "The child agent runs (invoked as `agent`); its events reach the root with agentPath.",
      invoke: { id: "agent", src: "subAgent", input: ({ context }) => context.delegate! },
      entry: "promptSubAgent",
      on: {
        SUB_AGENT_ENDED: {
          target: "collecting",
          actions: { type: "recordAgentEnd", params: ({ event }) => event },
        },
        ABORT: { actions: "abortSubAgent" },
        RESERVE: {
          description: "A call of the child (or below it) climbs to this call's agent to be reserved.",
          actions: "forwardReservation",
        },
        RESERVATION: {
          description: "The answer to a reservation, on its way down.",
          actions: "answerSubAgent",
        },
      },
    },
    collecting: {
      description: "The child agent's run becomes the call's result (the tool's output function).",
      invoke: {
        id: "collectSubAgent",
        src: "collectSubAgent",
        input: ({ context }) => ({ ...stepInput({ context }), ...context.agentEnd! }),
        onDone: [
          {
            guard: "afterHook",
            target: "finalizing",
            actions: [{ type: "recordOutcome", params: ({ event }) => event.output }, "forgetAgentEnd"],
          },
          {
            target: "settled",
            actions: [{ type: "recordOutcome", params: ({ event }) => event.output }, "forgetAgentEnd"],
          },
        ],
      },
      on: { RESUME: { target: "collecting", reenter: true } },
    },
    finalizing: {
      description: "The agent's afterToolCall hook may change the result.",
      invoke: {
        id: "afterToolCall",
        src: "afterToolCall",
        input: ({ context }) => ({ ...stepInput({ context }), outcome: context.outcome! }),
        onDone: {
          target: "settled",
          actions: { type: "recordOutcome", params: ({ event }) => event.output },
        },
      },
      on: { RESUME: { target: "finalizing", reenter: true } },
    },
    settled: { description: "The call has its outcome (the machine's output).", type: "final" },
  },
  output: ({ context }) => context.outcome!,
});

import {
  type AnyActorLogic,
  assign,
  type EventObject,
  fromCallback,
  sendParent,
  sendTo,
  setup,
} from "xstate";
import {
  collectSubAgentActor,
  prepareSubAgentActor,
  takeSubAgentRuntime,
} from "../../actors/sub-agent.actors.js";
import {
  afterToolCallActor,
  beforeToolCallActor,
  executeToolActor,
  type ToolStepInput,
  validateCall,
} from "../../actors/tool-step.actors.js";
import { clientAnswerOutcome, deniedOutcome } from "../../loop/tool-outcome.js";
import type { ToolCallOutcome } from "../agent/agent.context.js";
import type { AgentRuntime } from "../agent/agent.runtime.js";
import type { SubAgentStart, ToolCallContext, ToolCallInput } from "./tool-call.context.js";
import type {
  ToolAwaitingEvent,
  ToolCallEvent,
  ToolPreparedEvent,
  ToolValidatedEvent,
} from "./tool-call.events.js";

/** Input of a child agent (`agentMachine`): its runtime and its start. */
export type SubAgentInput = SubAgentStart & { runtime: AgentRuntime };

/**
 * The child agent logic. `agentMachine` invokes tool calls and a tool call invokes an agent: the
 * agent machine's module ties the knot (`bindSubAgentLogic`) once both machines exist.
 */
const unboundSubAgent = fromCallback<EventObject, SubAgentInput>(() => {
  throw new Error("agentchart: the sub-agent logic is not bound (import agentMachine)");
});

const stepInput = ({ context }: { context: ToolCallContext }): ToolStepInput => ({
  toolCall: context.toolCall,
  assistantMessage: context.assistantMessage,
  args: context.args,
  idempotencyKey: context.idempotencyKey,
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
 * One tool call, spawned by the agent with the tool call id as actor id:
 * `preparing` (`validating`: find the tool, `prepareArguments`, zod, `requiresApproval` — an entry
 * action that answers with an event → `checkingHook` when `beforeToolCall` is set → `ready`, waiting for the agent's `EXECUTE`) →
 * `awaitingApproval` (tools that require it, unless resumed already approved) → `executing` (the tool,
 * an invoked actor), `awaitingClient` (a tool without `execute`: the client answers) or, for an agent
 * tool, `startingAgent` (limits, the child's spec) → `delegating` (the child `agentMachine`, invoked as
 * "agent") → `collecting` (the child's run as the result) → `finalizing`
 * (`afterToolCall`, when set) → `settled` (output: the outcome). Every piece of user code runs in an
 * invoked actor, never while a transition is computed; guards read only the context. Nothing here
 * throws, so a call always settles with an outcome. After a restore, `RESUME` re-enters a state whose
 * invoked actor was not persisted and `REANNOUNCE` makes a waiting call ask again; both re-enter the
 * current state.
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
    prepareSubAgent: prepareSubAgentActor,
    subAgent: unboundSubAgent,
    collectSubAgent: collectSubAgentActor,
  },
  actions: {
    announcePrepared: sendParent(
      ({ context }): ToolPreparedEvent => ({ type: "TOOL_PREPARED", toolCallId: context.toolCall.id }),
    ),
    requestApproval: sendParent(awaiting("TOOL_AWAITING_APPROVAL")),
    requestClient: sendParent(awaiting("TOOL_AWAITING_CLIENT")),
    recordAnswer: assign({
      outcome: ({ context, event }) =>
        event.type === "ANSWER" ? clientAnswerOutcome(context.toolCall, event) : context.outcome,
    }),
    validate: ({ context, self }) => validateCall(self, context.toolCall),
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
    promptSubAgent: sendTo("agent", ({ context }) => ({
      type: "PROMPT",
      messages: context.delegate!.prompt,
      ...(context.delegate!.output ? { output: context.delegate!.output } : {}),
    })),
  },
  guards: {
    beforeHook: ({ event }) => (event as ToolValidatedEvent).beforeHook,
    needsApproval: ({ context }) => context.needsApproval && context.approved !== true,
    client: ({ context }) => context.client,
    agentTool: ({ context }) => context.agentTool === true,
    afterHook: ({ context }) => context.afterHook,
  },
}).createMachine({
  id: "toolCall",
  context: ({ input }) => ({
    ...input,
    args: undefined,
    needsApproval: false,
    client: false,
    afterHook: false,
    outcome: undefined,
  }),
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
              { guard: "beforeHook", target: "checkingHook", actions: "recordValidation" },
              { target: "ready", actions: "recordValidation" },
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
                guard: ({ event }) => event.output.outcome !== undefined,
                target: "#toolCall.settled",
                actions: assign({ outcome: ({ event }) => event.output.outcome }),
              },
              {
                target: "ready",
                // The hook may have changed the arguments: approval is decided on what it left.
                actions: assign({ needsApproval: ({ event }) => event.output.needsApproval }),
              },
            ],
          },
        },
        ready: {
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
      entry: "requestApproval",
      on: {
        APPROVE: [
          { guard: "client", target: "awaitingClient" },
          { guard: "agentTool", target: "startingAgent" },
          { target: "executing" },
        ],
        DENY: {
          target: "settled",
          actions: assign({
            outcome: ({ context, event }) => deniedOutcome(context.toolCall, event.reason),
          }),
        },
        REANNOUNCE: { target: "awaitingApproval", reenter: true },
      },
    },
    awaitingClient: {
      entry: "requestClient",
      on: {
        ANSWER: [
          { guard: "afterHook", target: "finalizing", actions: "recordAnswer" },
          { target: "settled", actions: "recordAnswer" },
        ],
        REANNOUNCE: { target: "awaitingClient", reenter: true },
      },
    },
    executing: {
      invoke: {
        src: "executeTool",
        input: stepInput,
        onDone: [
          {
            guard: "afterHook",
            target: "finalizing",
            actions: assign({ outcome: ({ event }) => event.output }),
          },
          { target: "settled", actions: assign({ outcome: ({ event }) => event.output }) },
        ],
      },
      on: { RESUME: { target: "executing", reenter: true } },
    },
    startingAgent: {
      invoke: { src: "prepareSubAgent", input: stepInput },
      on: {
        SUB_AGENT_READY: { target: "delegating", actions: assign({ delegate: ({ event }) => event.start }) },
        REJECTED: { target: "settled", actions: assign({ outcome: ({ event }) => event.outcome }) },
        RESUME: { target: "startingAgent", reenter: true },
      },
    },
    delegating: {
      // The child agent, visible under the call; its events reach the root with `agentPath`.
      invoke: {
        id: "agent",
        src: "subAgent",
        input: ({ context, self }) => ({ ...context.delegate!, runtime: takeSubAgentRuntime(self) }),
      },
      entry: "promptSubAgent",
      on: {
        SUB_AGENT_ENDED: {
          target: "collecting",
          actions: assign({
            agentEnd: ({ event }) => ({ end: event.end, errorMessage: event.errorMessage }),
          }),
        },
        ABORT: { actions: sendTo("agent", { type: "ABORT" }) },
      },
    },
    collecting: {
      invoke: {
        src: "collectSubAgent",
        input: ({ context }) => ({ ...stepInput({ context }), ...context.agentEnd! }),
        onDone: [
          {
            guard: "afterHook",
            target: "finalizing",
            actions: assign({ outcome: ({ event }) => event.output, agentEnd: undefined }),
          },
          {
            target: "settled",
            actions: assign({ outcome: ({ event }) => event.output, agentEnd: undefined }),
          },
        ],
      },
      on: { RESUME: { target: "collecting", reenter: true } },
    },
    finalizing: {
      invoke: {
        src: "afterToolCall",
        input: ({ context }) => ({ ...stepInput({ context }), outcome: context.outcome! }),
        onDone: { target: "settled", actions: assign({ outcome: ({ event }) => event.output }) },
      },
      on: { RESUME: { target: "finalizing", reenter: true } },
    },
    settled: { type: "final" },
  },
  output: ({ context }) => context.outcome!,
});

/**
 * Makes `agentLogic` (the agent machine) the logic of a call's child agent.
 *
 * Contract: called once, by the agent machine's module; synchronous.
 */
export function bindSubAgentLogic(agentLogic: AnyActorLogic): void {
  (toolCallMachine.implementations.actors as Record<string, unknown>).subAgent = agentLogic;
}

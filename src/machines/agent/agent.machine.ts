import { enqueueActions, setup } from "xstate";
import { type GuardrailCheck, guardrailsActor } from "../../actors/guardrails.actor.js";
import { type StreamedReply, type StreamRequest, streamReplyActor } from "../../actors/stream-reply.actor.js";
import { turnCallbacksActor } from "../../actors/turn-callbacks.actor.js";
import { type OutputValidation, validateOutputActor } from "../../actors/validate-output.actor.js";
import { outputCandidate, outputViaTool, pendingOutput, validatedReply } from "../../loop/output-steps.js";
import { errorOutcome } from "../../loop/tool-outcome.js";
import { errorText } from "../../types/error-text.js";
import type { AgentEvent } from "../../types/events.js";
import type { AgentMessage } from "../../types/messages.js";
import type { Model, ThinkingLevel } from "../../types/model.js";
import { bindSubAgentLogic, toolCallMachine } from "../tool-call/tool-call.machine.js";
import * as actions from "./agent.actions.js";
import type {
  AgentMachineContext,
  AgentSettings,
  PersistableStreamOptions,
  ToolCallOutcome,
} from "./agent.context.js";
import { initialAgentContext } from "./agent.context.js";
import type { AgentMachineEvent } from "./agent.events.js";
import * as guards from "./agent.guards.js";
import { type AgentRuntime, bindAgentRuntime, guardrailNamesOf, hasTurnCallbacks } from "./agent.runtime.js";

/** Input of `agentMachine`: the runtime (functions) and the agent's initial data. */
export interface AgentMachineInput {
  runtime: AgentRuntime;
  agentId?: string;
  model: Model;
  systemPrompt?: string;
  thinkingLevel?: ThinkingLevel;
  /** Active tools by name (default: every tool of the runtime, handoff targets' included). */
  toolNames?: string[];
  messages?: AgentMessage[];
  settings?: Partial<AgentSettings>;
  streamOptions?: PersistableStreamOptions;
  /** The tool call that runs this agent as a sub-agent (see `defineAgentTool`). */
  parentToolCallId?: string;
  /** The handoff target it starts as (`systemPrompt`, `toolNames` and `model` are the target's). */
  activeAgent?: string;
}

const ABORTED_TEXT = "Run was aborted";
const callbackErrorText = (error: unknown) => `Agent loop callback failed: ${errorText(error)}`;

// Used only by XState's inert actor scope (`transition(agentMachine, …)` creates one without input).
const NO_MODEL: Model = { id: "none", api: "none", provider: "none", contextWindow: 0, maxTokens: 0 };

/**
 * `enqueueActions` over an action of `agent.actions.ts`, whose own signature types its params (the
 * machine's other type parameters are fixed here once, instead of being inferred per action).
 */
function enqueueing<TParams>(action: (args: actions.ActionArgs, params: TParams) => void) {
  return enqueueActions<
    AgentMachineContext,
    AgentMachineEvent,
    TParams,
    AgentMachineEvent,
    // biome-ignore lint/suspicious/noExplicitAny: the children it may spawn are spelled out by `Enqueue`
    any,
    never,
    never,
    never,
    AgentEvent
  >(action);
}

/**
 * `ABORT` and `FAIL` in a state whose reply may have unanswered calls (`validatingOutput`,
 * `executingTools`): every call answered, the turn closed, the run ended.
 */
const END_ANSWERING_CALLS = {
  ABORT: {
    target: "idle",
    actions: ["abortRun", { type: "abortToolBatch", params: undefined }, "closeTurn", "endRun"],
  },
  FAIL: {
    target: "idle",
    actions: [
      "abortRun",
      { type: "abortToolBatch", params: ({ event }: { event: { error: string } }) => event.error },
      "closeTurn",
      {
        type: "failTurn",
        params: ({ event }: { event: { error: string } }) => ({
          reason: "error" as const,
          text: event.error,
        }),
      },
      "endRun",
    ],
  },
} as const;

/**
 * One agent, one long-lived actor: `idle` —PROMPT/CONTINUE→ `preparingTurn` (`deciding`: the
 * between-turn callbacks, an invoked actor; `injecting`: one queued message per step) → `streaming`
 * (the stream actor) → `executingTools` (one spawned `toolCallMachine` per call, id = tool call id) →
 * `preparingTurn` → … → `idle`. Never final. Every AgentEvent is emitted by this actor (`actor.on(type,
 * …)`). The context is JSON-safe data (see `AgentMachineContext`); functions come from the
 * `AgentRuntime` given as `input.runtime`. `ABORT` ends a run from any state with every tool call
 * answered and `agent_end`; `FAIL` does the same with an error outcome. `RESUME_CALLS` starts a run that
 * answers the calls of a reply recorded earlier (a resumed session).
 *
 * Transitions are pure: guards, assignments and `enqueueActions` bodies read only the context and the
 * event. User code (callbacks, hooks, tools, queue sources) runs in invoked actors and custom actions,
 * which XState runs after the transition is computed, and reports back with events.
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
    guardrails: guardrailsActor,
    validateOutput: validateOutputActor,
    turnCallbacks: turnCallbacksActor,
  },
  actions: {
    abortRun: actions.abortRun,
    beginRun: enqueueing(actions.beginRun),
    startDecision: enqueueing(actions.startDecision),
    stopDecision: enqueueing(actions.stopDecision),
    applyPlan: enqueueing(actions.applyPlan),
    requestInjectionIfMore: enqueueing(actions.requestInjectionIfMore),
    injectNext: enqueueing(actions.injectNext),
    failTurn: enqueueing(actions.failTurn),
    endRun: enqueueing(actions.endRun),
    recordReply: enqueueing(actions.recordReply),
    holdReply: enqueueing(actions.holdReply),
    releaseHeldEvents: actions.releaseHeldEvents,
    dropHeldReply: enqueueing(actions.dropHeldReply),
    tripGuardrail: enqueueing(actions.tripGuardrail),
    inputPassed: enqueueing(actions.inputPassed),
    applyOutputVerdict: enqueueing(actions.applyOutputVerdict),
    markFailure: enqueueing(actions.markFailure),
    closeTurn: enqueueing(actions.closeTurn),
    applyHandoff: enqueueing(actions.applyHandoff),
    advanceToolBatch: enqueueing(actions.advanceToolBatch),
    markPrepared: enqueueing(actions.markPrepared),
    recordToolOutcome: enqueueing(actions.recordToolOutcome),
    steeringPolled: enqueueing(actions.steeringPolled),
    keepLateSteering: enqueueing(actions.keepLateSteering),
    abortToolBatch: enqueueing(actions.abortToolBatch),
    forwardToCall: enqueueing(actions.forwardToCall),
    announceWaitingCall: enqueueing(actions.announceWaitingCall),
    announceResume: enqueueing(actions.announceResume),
    resumeToolCalls: enqueueing(actions.resumeToolCalls),
    enqueueMessage: enqueueing(actions.enqueueMessage),
    clearQueues: enqueueing(actions.clearQueues),
    reset: enqueueing(actions.reset),
  },
  guards,
}).createMachine({
  id: "agent",
  context: ({ input, self }) => {
    if (!input) return initialAgentContext({ model: NO_MODEL, toolNames: [] });
    bindAgentRuntime(self, input.runtime);
    return initialAgentContext({
      ...input,
      toolNames: input.toolNames ?? [...input.runtime.tools.keys()],
      guardrails: guardrailNamesOf(input.runtime),
      hasTurnCallbacks: hasTurnCallbacks(input.runtime),
    });
  },
  initial: "idle",
  on: {
    // A between-tools steering poll that answers after its batch settled: the run keeps the messages
    // for its next turn (or, if it has ended, gives them back).
    STEERING_POLLED: { actions: { type: "keepLateSteering", params: ({ event }) => event.external } },
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
        RESUME_CALLS: { target: "executingTools", actions: "beginRun" },
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
        FAIL: {
          target: "idle",
          actions: [
            "abortRun",
            { type: "failTurn", params: ({ event }) => ({ reason: "error", text: event.error }) },
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
        RESUME: {
          target: "preparingTurn",
          reenter: true,
          actions: { type: "announceResume", params: "preparingTurn" },
        },
      },
      states: {
        deciding: {
          // The callbacks run once the listeners of the last turn's events have run (a spawned actor
          // starts after its macrostep), so an abort requested in a listener acts before the decision.
          // An agent without between-turn callbacks decides from its context alone, one macrostep
          // later (a self-sent DECIDED): the same guarantee, without an actor per decision.
          entry: "startDecision",
          exit: "stopDecision",
          on: {
            DECIDED: [
              {
                guard: { type: "planStreams", params: ({ event }) => event.decision },
                target: "injecting",
                actions: "applyPlan",
              },
              { target: "#agent.idle", actions: ["applyPlan", "endRun"] },
            ],
          },
        },
        injecting: {
          // One message per macrostep, so that an abort requested in a message's listeners stops the
          // next injection; the model call after the last one starts only once its listeners ran
          // (`Agent.abort()` aborts the run's signal at once, which the stream checks when it starts).
          entry: ["injectNext", "requestInjectionIfMore"],
          always: [
            { guard: "inputCheckDue", target: "checkingInput" },
            { guard: "inboxEmpty", target: "#agent.streaming" },
          ],
          on: { INJECT: { target: "injecting", reenter: true } },
        },
        checkingInput: {
          // The blocking input guardrails check the run's prompts before the first model call.
          invoke: {
            id: "inputGuardrails",
            src: "guardrails",
            input: ({ context }): GuardrailCheck => ({ kind: "input", messages: context.run!.newMessages }),
            onDone: [
              {
                guard: { type: "tripped", params: ({ event }) => event.output },
                target: "#agent.idle",
                actions: [{ type: "tripGuardrail", params: ({ event }) => event.output }, "endRun"],
              },
              { target: "#agent.streaming", actions: "inputPassed" },
            ],
          },
        },
      },
    },
    streaming: {
      // `released`: deltas reach listeners as they stream. `held` (output guardrails are set): the
      // reply's events wait in the stream actor; once it is done, `checking` runs the guardrails and
      // releases them, or replaces the reply with a placeholder.
      initial: "released",
      invoke: {
        id: "stream",
        src: "streamReply",
        input: ({ context }): StreamRequest => streamRequestOf(context),
        onDone: [
          {
            guard: { type: "inputTripped", params: ({ event }) => event.output },
            target: "idle",
            actions: [{ type: "tripGuardrail", params: ({ event }) => event.output.inputTrip! }, "endRun"],
          },
          {
            guard: { type: "replyFailed", params: ({ event }) => event.output },
            target: "idle",
            actions: [{ type: "recordReply", params: ({ event }) => event.output }, "closeTurn", "endRun"],
          },
          {
            guard: { type: "replyHeld", params: ({ event }) => event.output },
            target: ".checking",
            actions: { type: "holdReply", params: ({ event }) => event.output },
          },
          ...replyRoutes(({ event }) => (event as { output: StreamedReply }).output, []),
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
      states: {
        released: { always: { guard: "holdsReplies", target: "held" } },
        held: {},
        checking: {
          invoke: {
            id: "outputGuardrails",
            src: "guardrails",
            input: ({ context }): GuardrailCheck => outputCheckOf(context),
            onDone: [
              {
                guard: { type: "tripped", params: ({ event }) => event.output },
                target: "#agent.idle",
                actions: [{ type: "tripGuardrail", params: ({ event }) => event.output }, "endRun"],
              },
              ...replyRoutes(
                ({ context }: { context: AgentMachineContext }) => ({
                  ...context.run!.heldReply!,
                  started: true,
                  held: false,
                }),
                [
                  {
                    type: "releaseHeldEvents",
                    params: ({ context }: { context: AgentMachineContext }) =>
                      context.run!.heldReply!.message,
                  },
                ],
              ),
            ],
            onError: {
              target: "#agent.idle",
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
            // The reply is held: nothing of it is kept.
            ABORT: {
              target: "#agent.idle",
              actions: [
                "abortRun",
                "dropHeldReply",
                { type: "failTurn", params: { reason: "aborted", text: ABORTED_TEXT } },
                "endRun",
              ],
            },
            FAIL: {
              target: "#agent.idle",
              actions: [
                "abortRun",
                "dropHeldReply",
                { type: "failTurn", params: ({ event }) => ({ reason: "error", text: event.error }) },
                "endRun",
              ],
            },
          },
        },
      },
      on: {
        ABORT: [
          // A sub-agent is stopped by its parent right after this event: it ends its run now (its
          // partial reply is dropped), so its transcript closes and its caller hears of it.
          {
            guard: "isSubAgent",
            target: "idle",
            actions: [
              "abortRun",
              "dropHeldReply",
              { type: "failTurn", params: { reason: "aborted", text: ABORTED_TEXT } },
              "endRun",
            ],
          },
          // The stream actor answers the aborted signal at once with the partial reply (→ idle).
          { actions: "abortRun" },
        ],
        // The same, and the partial reply is recorded as the error that ended the run.
        FAIL: { actions: [{ type: "markFailure", params: ({ event }) => event.error }, "abortRun"] },
        RESUME: {
          target: "streaming",
          reenter: true,
          actions: ["dropHeldReply", { type: "announceResume", params: "streaming" }],
        },
      },
    },
    validatingOutput: {
      // The reply that carries the run's typed output is in the transcript; zod checks the value.
      invoke: {
        id: "validateOutput",
        src: "validateOutput",
        input: ({ context }): OutputValidation => ({
          candidate: outputCandidate(context, validatedReply(context)!)!,
          request: context.run!.output!.request,
        }),
        onDone: [
          {
            guard: { type: "outputFailsForGood", params: ({ event }) => event.output },
            target: "idle",
            actions: [
              { type: "applyOutputVerdict", params: ({ event }) => event.output },
              "closeTurn",
              "endRun",
            ],
          },
          {
            guard: "hasToolBatch",
            target: "executingTools",
            actions: { type: "applyOutputVerdict", params: ({ event }) => event.output },
          },
          {
            target: "preparingTurn",
            actions: [{ type: "applyOutputVerdict", params: ({ event }) => event.output }, "closeTurn"],
          },
        ],
        onError: {
          target: "idle",
          actions: [
            "abortRun",
            { type: "abortToolBatch", params: ({ event }) => callbackErrorText(event.error) },
            "closeTurn",
            {
              type: "failTurn",
              params: ({ event }) => ({ reason: "error", text: callbackErrorText(event.error) }),
            },
            "endRun",
          ],
        },
      },
      on: {
        ...END_ANSWERING_CALLS,
        RESUME: {
          target: "validatingOutput",
          reenter: true,
          actions: { type: "announceResume", params: "validatingOutput" },
        },
      },
    },
    executingTools: {
      entry: "advanceToolBatch",
      always: { guard: "batchSettled", target: "preparingTurn", actions: ["applyHandoff", "closeTurn"] },
      on: {
        TOOL_PREPARED: {
          actions: [{ type: "markPrepared", params: ({ event }) => event.toolCallId }, "advanceToolBatch"],
        },
        TOOL_AWAITING_APPROVAL: { actions: { type: "announceWaitingCall", params: ({ event }) => event } },
        TOOL_AWAITING_CLIENT: { actions: { type: "announceWaitingCall", params: ({ event }) => event } },
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
        STEERING_POLLED: {
          actions: [{ type: "steeringPolled", params: ({ event }) => event.external }, "advanceToolBatch"],
        },
        APPROVE_TOOL: {
          guard: { type: "toolCallRunning", params: ({ event }) => event.toolCallId },
          actions: "forwardToCall",
        },
        DENY_TOOL: {
          guard: { type: "toolCallRunning", params: ({ event }) => event.toolCallId },
          actions: "forwardToCall",
        },
        ANSWER_TOOL: {
          guard: { type: "toolCallRunning", params: ({ event }) => event.toolCallId },
          actions: "forwardToCall",
        },
        ...END_ANSWERING_CALLS,
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

bindSubAgentLogic(agentMachine);

/** The request of the next model call, as data. */
function streamRequestOf(context: AgentMachineContext): StreamRequest {
  const run = context.run;
  const output = pendingOutput(context);
  return {
    model: context.model,
    thinkingLevel: context.thinkingLevel,
    systemPrompt: context.systemPrompt,
    messages: context.messages,
    toolNames: context.toolNames,
    streamOptions: context.streamOptions,
    toolExecution: context.settings.toolExecution,
    hold: context.guardrails.output.length > 0,
    ...(context.activeAgent ? { activeAgent: context.activeAgent } : {}),
    ...(run?.inputCheck === "parallel" ? { inputCheck: run.newMessages } : {}),
    ...(output
      ? { output: { request: output.request, viaTool: outputViaTool(context), wrapped: output.wrapped } }
      : {}),
  };
}

/** What the output guardrails check: the held reply, and the value it carries if the run expects one. */
function outputCheckOf(context: AgentMachineContext): GuardrailCheck {
  const reply = context.run!.heldReply!.message;
  const candidate = outputCandidate(context, reply);
  return { kind: "output", reply, ...(candidate?.value !== undefined ? { output: candidate.value } : {}) };
}

/**
 * Where a finished reply goes (after the output guardrails, if any): the typed output it carries to
 * `validatingOutput`, tool calls to `executingTools`, else the turn ends. `first`: actions that run
 * before the reply is recorded (the release of its held events).
 */
// biome-ignore lint/suspicious/noExplicitAny: XState's transition config types, shared by two invokes
function replyRoutes(reply: (args: any) => StreamedReply, first: any[]): any[] {
  const record = { type: "recordReply", params: reply };
  return [
    {
      guard: { type: "replyCarriesOutput", params: (args: unknown) => reply(args).message },
      target: "#agent.validatingOutput",
      actions: [...first, record],
    },
    {
      guard: { type: "replyHasToolCalls", params: reply },
      target: "#agent.executingTools",
      actions: [...first, record],
    },
    { target: "#agent.preparingTurn", actions: [...first, record, "closeTurn"] },
  ];
}

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

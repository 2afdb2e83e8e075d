import * as xstate from "xstate";
import { type CallbackActorLogic, enqueueActions, type PromiseActorLogic, setup } from "xstate";
import type { GuardrailCheck } from "../../actors/guardrails.actor.js";
import type { StreamRequest } from "../../actors/stream-reply.actor.js";
import type { OutputValidation } from "../../actors/validate-output.actor.js";
import {
  type OutputVerdict,
  outputCandidate,
  outputViaTool,
  pendingOutput,
  validatedReply,
} from "../../loop/output-steps.js";
import { errorOutcome } from "../../loop/tool-outcome.js";
import type { AgentBudget } from "../../types/budget.js";
import { errorText } from "../../types/error-text.js";
import type { AgentEvent } from "../../types/events.js";
import type { GuardrailOutcome } from "../../types/guardrail.js";
import type { AgentMessage } from "../../types/messages.js";
import type { Model, ThinkingLevel } from "../../types/model.js";
import { notProvided } from "../../xstate/not-provided.js";
import { requireXState } from "../../xstate/require-xstate.js";
import { toolCallMachine } from "../tool-call/tool-call.machine.js";
import * as actions from "./agent.actions.js";
import type {
  AgentMachineContext,
  AgentSettings,
  PersistableStreamOptions,
  QueuedReturns,
  ToolCallOutcome,
} from "./agent.context.js";
import { initialAgentContext } from "./agent.context.js";
import type { AgentMachineEvent, DecisionEvent, StreamActorCommand, StreamedReply } from "./agent.events.js";
import * as guards from "./agent.guards.js";
import { agentViewOf, type SubAgentPlace } from "./agent.implementations.js";

/**
 * Input of the agent machine: the agent's initial data, JSON-safe (its functions are the machine's
 * implementations, see `createAgentMachine`).
 */
export interface AgentMachineInput {
  agentId?: string;
  model: Model;
  systemPrompt?: string;
  thinkingLevel?: ThinkingLevel;
  /** Active tools by name (default: every tool of the machine, handoff targets' included). */
  toolNames?: string[];
  messages?: AgentMessage[];
  settings?: Partial<AgentSettings>;
  streamOptions?: PersistableStreamOptions;
  /** The tool call that runs this agent as a sub-agent (see `defineAgentTool`). */
  parentToolCallId?: string;
  /** A sub-agent's place in its tree. */
  place?: SubAgentPlace;
  /**
   * The types of this agent's events its parent actor (an app machine that invokes or spawns it) also
   * receives, each as an `AgentParentEvent` `agent.<type>` (e.g. `["tool_approval_request", "agent_end"]`).
   */
  parentEvents?: AgentEvent["type"][];
  /** The handoff target it starts as (`systemPrompt`, `toolNames` and `model` are the target's). */
  activeAgent?: string;
  /** The budget of each run (see docs/budgets.md); a `PROMPT` may give its own. */
  budget?: AgentBudget;
  /** A sub-agent whose ancestors keep a budget ledger: its calls are reserved with them first. */
  sharesLedger?: boolean;
}

requireXState(xstate);

const ABORTED_TEXT = "Run was aborted";
const callbackErrorText = (error: unknown) => `Agent loop callback failed: ${errorText(error)}`;

/** A callback or an actor failed (an event with its `error`): the turn fails with it, the run ends. */
const CALLBACK_FAILED = {
  target: "#agent.idle",
  actions: [
    {
      type: "failTurn",
      params: ({ event }: { event: { error: unknown } }) => ({
        reason: "error" as const,
        text: callbackErrorText(event.error),
      }),
    },
    "endRun",
  ],
} as const;

/**
 * What the machine's context takes besides the input: what `createAgentMachine` knows of its
 * implementations (the guardrails' names, whether there are between-turn callbacks).
 */
export interface AgentMachineStart extends AgentMachineInput {
  guardrails?: AgentMachineContext["guardrails"];
  hasTurnCallbacks?: boolean;
}

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
    actions.ProvidedAction,
    never,
    never,
    AgentEvent
  >(action);
}

/**
 * One agent, one long-lived actor: `idle` —PROMPT/CONTINUE→ `preparingTurn` (`deciding`: the
 * between-turn callbacks, a spawned actor; `injecting`: one queued message per step) → `streaming`
 * (the stream actor) → `executingTools` (one spawned `toolCallMachine` per call, id = tool call id) →
 * `preparingTurn` → … → `idle`. Never final. Every AgentEvent is an `emit` action of this actor. The
 * context is JSON-safe data (see `AgentMachineContext`); the functions — StreamFn, tools, callbacks,
 * guardrails — are the implementations `createAgentMachine(options)` provides: this definition alone
 * names them and has none. `ABORT` ends a run from any state with every tool call answered and
 * `agent_end`; `FAIL` does the same with an error outcome. `RESUME_CALLS` starts a run that answers
 * the calls of a reply recorded earlier (a resumed session).
 *
 * Transitions are pure: guards, assignments and `enqueueActions` bodies read only the context and the
 * event. User code (callbacks, hooks, tools, queue sources) runs in actors and in the provided custom
 * actions, which XState runs after the transition is computed, and reports back with events. The
 * decision between turns and each injection are self-sent events — a macrostep each, not `raise` — so
 * that an `ABORT` sent from a listener of the previous step's events lands before them.
 */
export const agentMachine = setup({
  types: {
    context: {} as AgentMachineContext,
    events: {} as AgentMachineEvent,
    // Optional (`void`: an optional property of `types` would drop `undefined`), so that
    // `createActor(machine, { snapshot })` restores without an input.
    // biome-ignore lint/suspicious/noConfusingVoidType: `undefined` would be dropped (see above)
    input: {} as AgentMachineInput | void,
    emitted: {} as AgentEvent,
  },
  actors: {
    streamReply: notProvided<CallbackActorLogic<StreamActorCommand, StreamRequest>>("streamReply"),
    toolCall: toolCallMachine,
    guardrails: notProvided<PromiseActorLogic<GuardrailOutcome, GuardrailCheck>>("guardrails"),
    validateOutput: notProvided<PromiseActorLogic<OutputVerdict, OutputValidation>>("validateOutput"),
    turnCallbacks:
      notProvided<CallbackActorLogic<DecisionEvent, { context: AgentMachineContext }>>("turnCallbacks"),
  },
  actions: {
    pollSteering: (_args, _params: undefined) => missingAction("pollSteering"),
    returnQueuedMessages: (_args, _params: QueuedReturns) => missingAction("returnQueuedMessages"),
    beginRun: enqueueing(actions.beginRun),
    startDecision: enqueueing(actions.startDecision),
    stopDecision: enqueueing(actions.stopDecision),
    applyPlan: enqueueing(actions.applyPlan),
    requestInjectionIfMore: enqueueing(actions.requestInjectionIfMore),
    injectNext: enqueueing(actions.injectNext),
    failTurn: enqueueing(actions.failTurn),
    endRun: enqueueing(actions.endRun),
    recordReply: enqueueing(actions.recordReply),
    emitReplyEvents: enqueueing(actions.emitReplyEvents),
    holdReply: enqueueing(actions.holdReply),
    releaseHeldEvents: enqueueing(actions.releaseHeldEvents),
    dropHeldReply: enqueueing(actions.dropHeldReply),
    abortStream: enqueueing(actions.abortStream),
    reserveModelCall: enqueueing(actions.reserveModelCall),
    pauseForBudget: enqueueing(actions.pauseForBudget),
    stopForBudget: enqueueing(actions.stopForBudget),
    raiseBudget: enqueueing(actions.raiseBudget),
    continueOnce: enqueueing(actions.continueOnce),
    requestModelCallReservation: enqueueing(actions.requestModelCallReservation),
    admitSubAgentCall: enqueueing(actions.admitSubAgentCall),
    admitHeldReservations: enqueueing(actions.admitHeldReservations),
    passReservationDown: enqueueing(actions.passReservationDown),
    reservedToolCall: enqueueing(actions.reservedToolCall),
    stopAtAncestorBudget: enqueueing(actions.stopAtAncestorBudget),
    armWallTimer: enqueueing(actions.armWallTimer),
    disarmWallTimer: enqueueing(actions.disarmWallTimer),
    stopAtWallTime: enqueueing(actions.stopAtWallTime),
    tripGuardrail: enqueueing(actions.tripGuardrail),
    inputPassed: enqueueing(actions.inputPassed),
    applyOutputVerdict: enqueueing(actions.applyOutputVerdict),
    markFailure: enqueueing(actions.markFailure),
    closeTurn: enqueueing(actions.closeTurn),
    applyHandoff: enqueueing(actions.applyHandoff),
    advanceToolBatch: enqueueing(actions.advanceToolBatch),
    markPrepared: enqueueing(actions.markPrepared),
    recordToolOutcome: enqueueing(actions.recordToolOutcome),
    emitToolUpdate: enqueueing(actions.emitToolUpdate),
    forwardSubAgentEvents: enqueueing(actions.forwardSubAgentEvents),
    steeringPolled: enqueueing(actions.steeringPolled),
    keepLateSteering: enqueueing(actions.keepLateSteering),
    abortToolBatch: enqueueing(actions.abortToolBatch),
    abortCalls: enqueueing(actions.abortCalls),
    endRunNext: enqueueing(actions.endRunNext),
    forwardToCall: enqueueing(actions.forwardToCall),
    announceWaitingCall: enqueueing(actions.announceWaitingCall),
    announceResume: enqueueing(actions.announceResume),
    resumeToolCalls: enqueueing(actions.resumeToolCalls),
    enqueueMessage: enqueueing(actions.enqueueMessage),
    clearQueues: enqueueing(actions.clearQueues),
    reset: enqueueing(actions.reset),
    setModel: enqueueing(actions.setModel),
    setThinkingLevel: enqueueing(actions.setThinkingLevel),
    setSystemPrompt: enqueueing(actions.setSystemPrompt),
    setTools: enqueueing(actions.setTools),
    setStreamOptions: enqueueing(actions.setStreamOptions),
    setMessages: enqueueing(actions.setMessages),
  },
  guards,
}).createMachine({
  id: "agent",
  context: ({ input }) => {
    const start = input as AgentMachineStart | undefined;
    if (!start) return initialAgentContext({ model: NO_MODEL, toolNames: [] });
    return initialAgentContext({ ...start, toolNames: start.toolNames ?? [] });
  },
  initial: "idle",
  description:
    "One agent, one long-lived actor: idle between runs; a run prepares each turn, streams the model's reply, runs the reply's tool calls (a child actor each) and goes on until the model stops. Emits every AgentEvent.",
  on: {
    STEERING_POLLED: {
      description:
        "A between-tools steering poll answered after its batch settled: the run keeps the messages for its next turn (or, if it has ended, gives them back).",
      actions: { type: "keepLateSteering", params: ({ event }) => event.external },
    },
    STEER: { actions: "enqueueMessage" },
    FOLLOW_UP: { actions: "enqueueMessage" },
    CLEAR_QUEUES: { actions: "clearQueues" },
    SET_MODEL: { actions: "setModel" },
    SET_THINKING_LEVEL: { actions: "setThinkingLevel" },
    SET_SYSTEM_PROMPT: { actions: "setSystemPrompt" },
    SET_TOOLS: { actions: "setTools" },
    SET_STREAM_OPTIONS: { actions: "setStreamOptions" },
    SUB_AGENT_EVENTS: {
      description: "A child agent's events: emitted with their agentPath (and passed up by a sub-agent).",
      actions: { type: "forwardSubAgentEvents", params: ({ event }) => event },
    },
    RESERVATION: {
      description: "An ancestor's answer to a reservation of a sub-agent below: on down its path.",
      actions: { type: "passReservationDown", params: ({ event }) => event },
    },
  },
  states: {
    idle: {
      description: "No run: waits for a prompt. The transcript, queues and settings may change.",
      on: {
        PROMPT: { target: "running", actions: "beginRun" },
        CONTINUE: { guard: "canContinue", target: "running", actions: "beginRun" },
        RESUME_CALLS: {
          description: "A run that first answers the unanswered calls of a reply recorded earlier.",
          target: "running.executingTools",
          actions: "beginRun",
        },
        RESET: { actions: "reset" },
        SET_MESSAGES: { actions: "setMessages" },
      },
    },
    running: {
      description:
        "A run, from agent_start to agent_end. ABORT and FAIL end it from any of its states, with every tool call answered.",
      tags: ["busy"],
      initial: "preparingTurn",
      on: {
        ABORT: [
          {
            guard: "abortWaitsForStream",
            description:
              "The stream actor answers at once with the partial reply, marked aborted (a sub-agent, which its parent stops right after, ends at once).",
            actions: "abortStream",
          },
          {
            guard: "replyRecorded",
            description:
              "Running calls are told first (a child agent ends its run); the run ends one macrostep later (RUN_ABORTED), after their last events.",
            actions: ["abortCalls", { type: "endRunNext", params: undefined }],
          },
          {
            target: "idle",
            actions: [
              "dropHeldReply",
              { type: "failTurn", params: { reason: "aborted", text: ABORTED_TEXT } },
              "endRun",
            ],
          },
        ],
        FAIL: [
          {
            guard: "replyStreaming",
            description:
              "The stream actor answers with the partial reply, recorded as the error that ended the run.",
            actions: [{ type: "markFailure", params: ({ event }) => event.error }, "abortStream"],
          },
          {
            guard: "replyRecorded",
            actions: ["abortCalls", { type: "endRunNext", params: ({ event }) => event.error }],
          },
          {
            target: "idle",
            actions: [
              "dropHeldReply",
              { type: "failTurn", params: ({ event }) => ({ reason: "error", text: event.error }) },
              "endRun",
            ],
          },
        ],
        RUN_ABORTED: [
          {
            guard: "replyRecorded",
            target: "idle",
            actions: [{ type: "abortToolBatch", params: undefined }, "closeTurn", "endRun"],
          },
          {
            description: "The batch settled meanwhile: the run ends as from between turns.",
            target: "idle",
            actions: [{ type: "failTurn", params: { reason: "aborted", text: ABORTED_TEXT } }, "endRun"],
          },
        ],
        WALL_TIME_UP: [
          {
            guard: "replyStreaming",
            description:
              "The run's wall time ran out during the model call (maxWallMs, action stop): the stream is aborted and the run ends with stopReason budget.",
            actions: [{ type: "stopAtWallTime", params: "modelCall" }, "abortStream"],
          },
          {
            guard: "replyRecorded",
            description:
              "The run's wall time ran out while tool calls ran (maxWallMs, action stop): they are aborted and the run ends with stopReason budget.",
            actions: [
              { type: "stopAtWallTime", params: "toolCall" },
              "abortCalls",
              { type: "endRunNext", params: undefined },
            ],
          },
        ],
        RUN_FAILED: [
          {
            guard: "replyRecorded",
            target: "idle",
            actions: [
              { type: "abortToolBatch", params: ({ event }) => event.error },
              "closeTurn",
              { type: "failTurn", params: ({ event }) => ({ reason: "error", text: event.error }) },
              "endRun",
            ],
          },
          {
            description: "The batch settled meanwhile: the run ends as from between turns.",
            target: "idle",
            actions: [
              { type: "failTurn", params: ({ event }) => ({ reason: "error", text: event.error }) },
              "endRun",
            ],
          },
        ],
      },
      states: {
        preparingTurn: {
          description:
            "Between turns: decides whether the run goes on, injects queued messages, checks the prompts.",
          initial: "deciding",
          on: {
            DECISION_FAILED: CALLBACK_FAILED,
            RESUME: [
              {
                guard: "budgetPaused",
                description: "Restored while it waits at a budget limit: it keeps waiting.",
                actions: { type: "announceResume", params: "preparingTurn" },
              },
              {
                target: "preparingTurn",
                reenter: true,
                actions: { type: "announceResume", params: "preparingTurn" },
              },
            ],
          },
          states: {
            deciding: {
              description:
                "The between-turn callbacks run (a spawned actor), or — without any — a self-sent DECIDED one macrostep later, so that an abort requested by a listener of the last turn's events acts first.",
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
              description:
                "Injects the queued messages, one per macrostep (self-sent INJECT), so that an abort requested in a message's listeners stops the next one.",
              entry: ["injectNext", "requestInjectionIfMore"],
              always: [
                { guard: "inputCheckDue", target: "checkingInput" },
                { guard: "modelCallPausesForBudget", target: "budgetExceeded", actions: "pauseForBudget" },
                {
                  guard: "modelCallStopsForBudget",
                  target: "#agent.idle",
                  actions: ["stopForBudget", "endRun"],
                },
                { guard: "reservesWithAncestors", target: "reserving", actions: "reserveModelCall" },
                { guard: "inboxEmpty", target: "#agent.running.streaming", actions: "reserveModelCall" },
              ],
              on: { INJECT: { target: "injecting", reenter: true } },
            },
            reserving: {
              description:
                "A sub-agent whose ancestors keep a budget: its model call, reserved in its own ledger, waits for theirs (RESERVATION). An ancestor at a pause limit holds it; one at a stop limit refuses it and the run ends.",
              entry: "requestModelCallReservation",
              on: {
                RESERVATION: [
                  {
                    guard: { type: "ownReservationGranted", params: ({ event }) => event },
                    target: "#agent.running.streaming",
                  },
                  {
                    guard: { type: "ownReservation", params: ({ event }) => event },
                    target: "#agent.idle",
                    actions: [
                      { type: "stopAtAncestorBudget", params: ({ event }) => event.answer },
                      "endRun",
                    ],
                  },
                ],
                RESUME: {
                  description:
                    "Restored (Agent.restore resumes every agent of the tree) while an ancestor holds its reservation: it keeps waiting.",
                  actions: { type: "announceResume", params: "preparingTurn" },
                },
              },
            },
            budgetExceeded: {
              description:
                "The next model call would go past a limit of the run's budget: the run waits for RAISE_BUDGET or CONTINUE_ONCE (ABORT ends it).",
              tags: ["awaitingHuman"],
              on: {
                RAISE_BUDGET: { target: "injecting", actions: "raiseBudget" },
                CONTINUE_ONCE: { target: "injecting", actions: "continueOnce" },
              },
            },
            checkingInput: {
              description:
                "The blocking input guardrails check the run's prompts before the first model call.",
              invoke: {
                id: "inputGuardrails",
                src: "guardrails",
                input: ({ context }): GuardrailCheck => ({
                  kind: "input",
                  messages: context.run!.newMessages,
                  agent: agentViewOf(context),
                }),
                onDone: [
                  {
                    guard: { type: "tripped", params: ({ event }) => event.output },
                    target: "#agent.idle",
                    actions: [{ type: "tripGuardrail", params: ({ event }) => event.output }, "endRun"],
                  },
                  {
                    description: "The prompts passed: the budget checks the model call (injecting).",
                    target: "injecting",
                    actions: "inputPassed",
                  },
                ],
              },
            },
          },
        },
        streaming: {
          description:
            "The model's reply streams (the stream actor). `released`: its events reach listeners as they stream; `held` (output guardrails are set): they wait until `checking` passes the finished reply.",
          tags: ["streaming"],
          entry: "armWallTimer",
          exit: "disarmWallTimer",
          initial: "released",
          invoke: {
            id: "stream",
            src: "streamReply",
            input: ({ context }): StreamRequest => streamRequestOf(context),
            onError: CALLBACK_FAILED,
          },
          on: {
            REPLY_EVENTS: { actions: { type: "emitReplyEvents", params: ({ event }) => event.events } },
            REPLY_STREAMED: [
              {
                guard: { type: "inputTripped", params: ({ event }) => event.reply },
                target: "#agent.idle",
                actions: [{ type: "tripGuardrail", params: ({ event }) => event.reply.inputTrip! }, "endRun"],
              },
              {
                guard: { type: "replyFailed", params: ({ event }) => event.reply },
                target: "#agent.idle",
                actions: [{ type: "recordReply", params: ({ event }) => event.reply }, "closeTurn", "endRun"],
              },
              {
                guard: { type: "replyHeld", params: ({ event }) => event.reply },
                target: ".checking",
                actions: { type: "holdReply", params: ({ event }) => event.reply },
              },
              ...replyRoutes(({ event }) => (event as { reply: StreamedReply }).reply, []),
            ],
            RESUME: {
              target: "streaming",
              reenter: true,
              actions: ["dropHeldReply", { type: "announceResume", params: "streaming" }],
            },
          },
          states: {
            released: {
              description: "Deltas reach listeners as they stream.",
              always: { guard: "holdsReplies", target: "held" },
            },
            held: { description: "The reply's events are held for the output guardrails." },
            checking: {
              description: "The output guardrails check the held reply; passed, its events are released.",
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
                    ["releaseHeldEvents"],
                  ),
                ],
                onError: CALLBACK_FAILED,
              },
            },
          },
        },
        validatingOutput: {
          description:
            "The reply that carries the run's typed output is in the transcript; zod checks the value.",
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
                target: "#agent.idle",
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
              target: "#agent.idle",
              actions: [
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
            RESUME: {
              target: "validatingOutput",
              reenter: true,
              actions: { type: "announceResume", params: "validatingOutput" },
            },
          },
        },
        executingTools: {
          description:
            "The reply's tool calls run, one spawned toolCall actor each (id = tool call id): preflight in source order, then executed in parallel or one by one.",
          entry: ["armWallTimer", "advanceToolBatch"],
          exit: "disarmWallTimer",
          always: {
            guard: "batchSettled",
            target: "preparingTurn",
            actions: ["applyHandoff", "closeTurn"],
          },
          initial: "working",
          states: {
            working: {
              description: "The calls run; none waits for a person.",
              always: [
                { guard: "callWaits", target: "awaitingHuman" },
                { guard: "budgetPaused", target: "budgetExceeded" },
              ],
            },
            awaitingHuman: {
              description: "A call waits for a person's approval or the client's answer.",
              tags: ["awaitingHuman"],
              always: { guard: "noCallWaits", target: "working" },
            },
            budgetExceeded: {
              description:
                "The next tool call would go past a limit of the run's budget: no further call starts until RAISE_BUDGET or CONTINUE_ONCE (ABORT ends the run); started calls finish.",
              tags: ["awaitingHuman"],
              entry: "disarmWallTimer",
              exit: "armWallTimer",
              always: { guard: "budgetNotPaused", target: "working" },
              on: {
                RAISE_BUDGET: { actions: ["raiseBudget", "advanceToolBatch", "admitHeldReservations"] },
                CONTINUE_ONCE: { actions: ["continueOnce", "advanceToolBatch", "admitHeldReservations"] },
              },
            },
          },
          on: {
            TOOL_PREPARED: {
              actions: [
                { type: "markPrepared", params: ({ event }) => event.toolCallId },
                "advanceToolBatch",
              ],
            },
            TOOL_AWAITING_APPROVAL: {
              actions: { type: "announceWaitingCall", params: ({ event }) => event },
            },
            TOOL_AWAITING_CLIENT: { actions: { type: "announceWaitingCall", params: ({ event }) => event } },
            TOOL_UPDATE: { actions: { type: "emitToolUpdate", params: ({ event }) => event } },
            SUB_AGENT_RESERVE: {
              description:
                "A sub-agent's call, checked against this run's ledger: admitted (and sent up if this agent shares its ancestors' ledgers), held at a pause limit, or refused at a stop limit.",
              actions: { type: "admitSubAgentCall", params: ({ event }) => event },
            },
            RESERVATION: {
              guard: { type: "ownReservation", params: ({ event }) => event },
              description: "The ancestors' answer for this sub-agent's tool call: it starts, or is refused.",
              actions: { type: "reservedToolCall", params: ({ event }) => event.answer },
            },
            "xstate.done.actor.*": {
              actions: [
                { type: "recordToolOutcome", params: ({ event }) => event.output },
                "advanceToolBatch",
              ],
            },
            "xstate.error.actor.*": {
              actions: [
                {
                  type: "recordToolOutcome",
                  params: ({ context, event }) =>
                    crashedToolOutcome(context, event.actorId ?? "", event.error),
                },
                "advanceToolBatch",
              ],
            },
            STEERING_POLLED: {
              actions: [
                { type: "steeringPolled", params: ({ event }) => event.external },
                "advanceToolBatch",
              ],
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
            RESUME: {
              actions: [
                { type: "announceResume", params: "executingTools" },
                "armWallTimer",
                "resumeToolCalls",
                "advanceToolBatch",
              ],
            },
          },
        },
      },
    },
  },
});

function missingAction(name: string): never {
  throw new Error(
    `agentchart: the action "${name}" is not provided: build the machine with createAgentMachine(options)`,
  );
}

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
  return {
    kind: "output",
    reply,
    ...(candidate?.value !== undefined ? { output: candidate.value } : {}),
    agent: agentViewOf(context),
  };
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
      target: "#agent.running.validatingOutput",
      actions: [...first, record],
    },
    {
      guard: { type: "replyHasToolCalls", params: reply },
      target: "#agent.running.executingTools",
      actions: [...first, record],
    },
    { target: "#agent.running.preparingTurn", actions: [...first, record, "closeTurn"] },
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

import type { DoneActorEvent, ErrorActorEvent } from "xstate";
import type { AgentBudget, BudgetLimits } from "../../types/budget.js";
import type { AgentEvent } from "../../types/events.js";
import type { GuardrailOutcome } from "../../types/guardrail.js";
import type { AgentMessage, AssistantMessage } from "../../types/messages.js";
import type { Model, ThinkingLevel } from "../../types/model.js";
import type { RunOutputState } from "../../types/output.js";
import type { ToolResult } from "../../types/tool.js";
import type {
  ReservationEvent,
  SubAgentEventsEvent,
  SubAgentReserveEvent,
  ToolAwaitingEvent,
  ToolPreparedEvent,
  ToolUpdateEvent,
} from "../tool-call/tool-call.events.js";
import type { PersistableStreamOptions, QueueName, ToolCallOutcome } from "./agent.context.js";

/**
 * The commands `agentMachine` accepts from outside (the parent-facing union): everything the `Agent`
 * class does is one of them. The machine's other events are internal (`AgentInternalEvent`).
 */
export type AgentCommand =
  /**
   * Starts a run with new messages (idle only); `output`: the typed output the run must give; `budget`:
   * this run's budget instead of the agent's.
   */
  | { type: "PROMPT"; messages: AgentMessage[]; output?: RunOutputState; budget?: AgentBudget }
  /**
   * Starts a run from the transcript (idle only): after a user or tool result message, asks the model
   * again; after an assistant message, runs the next queued steering (or else follow-up) message.
   */
  | { type: "CONTINUE"; output?: RunOutputState; budget?: AgentBudget }
  /** A run paused at a budget limit goes on with these limits (ignored unless it waits at one). */
  | { type: "RAISE_BUDGET"; limits: BudgetLimits }
  /** A run paused at a budget limit lets the call it held go ahead, once (ignored unless it waits). */
  | { type: "CONTINUE_ONCE" }
  | { type: "STEER"; message: AgentMessage }
  | { type: "FOLLOW_UP"; message: AgentMessage }
  | { type: "CLEAR_QUEUES"; queue?: QueueName }
  /** Ends the current run in any state (every tool call answered, `agent_end`); ignored when idle. */
  | { type: "ABORT" }
  /**
   * Ends the current run at once with an error outcome (e.g. a harness hook threw): like `ABORT`, but
   * unanswered calls get `error` as their result and the run's last message is an assistant error
   * message carrying `error`. Ignored when idle.
   */
  | { type: "FAIL"; error: string }
  | { type: "APPROVE_TOOL"; toolCallId: string }
  | { type: "DENY_TOOL"; toolCallId: string; reason?: string }
  /** The client's result for a call of a client tool (one without `execute`) waiting in `awaitingClient`. */
  | { type: "ANSWER_TOOL"; toolCallId: string; result: ToolResult; isError?: boolean }
  /**
   * Starts a run (idle only) that answers the calls of `message` — a reply already in the transcript,
   * e.g. of a run interrupted by a crash and resumed from its session — then goes on like any run.
   * `calls` names the calls to answer (others are left alone) and how each goes on.
   */
  | {
      type: "RESUME_CALLS";
      message: AssistantMessage;
      calls: Record<string, ResumedCallState>;
      sequential: boolean;
    }
  /** Clears transcript, queues and error (idle only). */
  | { type: "RESET" }
  | { type: "SET_MODEL"; model: Model }
  | { type: "SET_THINKING_LEVEL"; thinkingLevel: ThinkingLevel }
  | { type: "SET_SYSTEM_PROMPT"; systemPrompt: string }
  /** Active tools by name; the machine must have their implementations. */
  | { type: "SET_TOOLS"; toolNames: string[] }
  /** Replaces the transcript (idle only). */
  | { type: "SET_MESSAGES"; messages: AgentMessage[] }
  | { type: "SET_STREAM_OPTIONS"; streamOptions: PersistableStreamOptions }
  /**
   * Sent by `Agent.restore` to a restored actor that was mid-run: re-decides, re-streams or resumes its
   * tool calls. `interrupted` calls (executing, tool `replay: "never"`) get an interruption result.
   */
  | {
      type: "RESUME";
      interrupted: string[];
      /** Calls in a state whose invoked actor was not persisted: they re-enter it. */
      reenter: string[];
      /** Calls waiting for approval or the client: they ask again. */
      waiting: string[];
    };

/** How a resumed call goes on (`RESUME_CALLS`). */
export type ResumedCallState =
  /** Never started: the whole preflight, approval included. */
  | "pending"
  /** Approved, or started with a tool that is safe to replay: runs without asking again. */
  | "approved"
  /** Started with a tool that may not run twice: answered "interrupted, not re-run". */
  | "interrupted";

/**
 * What the between-turn callbacks decided, as data (the `DECIDED` event of the agent machine): tools of
 * a replaced context are named, their implementations were added to the machine's by the actor that ran
 * the callbacks.
 */
export interface TurnDecision {
  stop: boolean;
  model?: Model;
  thinkingLevel?: ThinkingLevel;
  context?: { systemPrompt: string; messages: AgentMessage[]; toolNames: string[] };
  external: { steering: AgentMessage[]; followUp: AgentMessage[] };
}

/** The events the `turnCallbacks` actor sends back to the agent. */
export type DecisionEvent =
  | { type: "DECIDED"; decision: TurnDecision }
  | { type: "DECISION_FAILED"; error: string };

/**
 * Internal events, sent by the machine to itself and by its children — never by an app: decisions,
 * injections, the stream's events and reply, tool calls' progress and completions, a child agent's
 * events.
 */
export type AgentInternalEvent =
  | DecisionEvent
  | { type: "INJECT" }
  /** Self-sent by `ABORT` while calls run: ends the run after their (and their child agents') last events. */
  | { type: "RUN_ABORTED" }
  /** The same for `FAIL`. */
  | { type: "RUN_FAILED"; error: string }
  /** Delayed, self-raised: the run's wall time (`maxWallMs`, action `stop`) ran out while a call ran. */
  | { type: "WALL_TIME_UP" }
  /** A between-tools steering poll answered (`external`: what the external source returned). */
  | { type: "STEERING_POLLED"; external: AgentMessage[] }
  | StreamActorEvent
  | ToolPreparedEvent
  | ToolAwaitingEvent
  | ToolUpdateEvent
  | SubAgentEventsEvent
  | SubAgentReserveEvent
  | ReservationEvent
  | DoneActorEvent<ToolCallOutcome, string>
  | ErrorActorEvent<unknown, string>;

export type AgentMachineEvent = AgentCommand | AgentInternalEvent;

/** What a model call gave: the final message, and whether `message_start` was already emitted. */
export interface StreamReplyOutput {
  message: AssistantMessage;
  /** Whether `message_start` was already emitted for this reply. */
  started: boolean;
}

/** What the stream actor hands the agent: the reply, and whether its tool calls must run one by one. */
export interface StreamedReply extends StreamReplyOutput {
  /** Configured sequential, or a called tool has `executionMode: "sequential"`. */
  sequential: boolean;
  /** Its events are held for the output guardrails (`heldEvents`); none reached a listener. */
  held: boolean;
  /** The events of a held reply, in order: the machine emits them once the output guardrails pass. */
  heldEvents?: AgentEvent[];
  /** A parallel input guardrail tripped: the model call was cut and nothing of it was released. */
  inputTrip?: GuardrailOutcome;
}

/** What the stream actor sends its agent: the reply's events as they stream, then the reply. */
export type StreamActorEvent =
  /** Events that streamed in one microtask (deltas, `message_start`, `output_delta`), in order. */
  { type: "REPLY_EVENTS"; events: AgentEvent[] } | { type: "REPLY_STREAMED"; reply: StreamedReply };

/** What the stream actor accepts: `ABORT` ends the reply at once with its partial content. */
export type StreamActorCommand = { type: "ABORT" };

import type { AgentBudget, BudgetLedger } from "../../types/budget.js";
import type { AgentEvent } from "../../types/events.js";
import type { GuardrailNames } from "../../types/guardrail.js";
import type { SteeringPolicy } from "../../types/loop.js";
import type { AgentMessage, AssistantMessage, ToolCall, ToolResultMessage } from "../../types/messages.js";
import type { Model, ThinkingLevel } from "../../types/model.js";
import type { GuardrailTrip, RunOutputState } from "../../types/output.js";
import type { PersistableStreamOptions } from "../../types/stream.js";

export type { PersistableStreamOptions };

import type { ToolResult } from "../../types/tool.js";

/** `one-at-a-time` drains the oldest message per drain point; `all` drains the whole queue. */
export type QueueMode = "one-at-a-time" | "all";
export type QueueName = "steering" | "followUp";

/** Messages of external queue sources handed back (`restoreQueuedMessages`), by queue. */
export type QueuedReturns = { queue: QueueName; messages: AgentMessage[] }[];

/** How a tool call ended. */
export interface ToolCallOutcome {
  toolCall: ToolCall;
  result: ToolResult;
  isError: boolean;
}

/** Where one tool call of a batch is: waiting, in preflight, ready, running, or answered. */
export type ToolCallPhase = "pending" | "preparing" | "prepared" | "executing" | "settled";

/** The bookkeeping of one assistant message's tool calls: plain data, replaced (never mutated) per step. */
export interface ToolBatch {
  message: AssistantMessage;
  calls: ToolCall[];
  sequential: boolean;
  phases: Record<string, ToolCallPhase>;
  outcomes: Record<string, ToolCallOutcome>;
  /** Tool result messages emitted so far, in source order. */
  results: ToolResultMessage[];
  /** A steering poll (policy `betweenTools`) is on its way: no further call starts until it answers. */
  pollingSteering: boolean;
  /** Calls resumed after their approval was given (or after they had started): they never ask again. */
  approved: string[];
  /** Calls waiting for a person (approval) or the client (a client tool's answer): `awaitingHuman`. */
  waiting?: string[];
  /** The call whose reservation is on its way to the ancestors' ledgers: no further call starts meanwhile. */
  reserving?: string;
}

/** A message drained from a queue (or given as a prompt) that the run has not injected yet. */
export interface InboxMessage {
  message: AgentMessage;
  /** The queue it came from: an aborted run gives it back there. Prompts have none. */
  from?: QueueName;
  /** It came from an external source (`getSteeringMessages`…), which gets it back instead. */
  external?: boolean;
}

/** The state of one run, from `agent_start` to `agent_end`. */
export interface RunState {
  /** Messages added by this run (for `agent_end`). */
  newMessages: AgentMessage[];
  /** Messages to inject before the next model call, one per step. */
  inbox: InboxMessage[];
  turns: number;
  /** `turn_start` was emitted and its `turn_end` not yet. */
  turnOpen: boolean;
  batch: ToolBatch | undefined;
  lastTurn: { message: AssistantMessage; toolResults: ToolResultMessage[] } | undefined;
  /** The last turn ran tools and their batch did not ask to terminate. */
  toolsWantReply: boolean;
  /** The run started from a message drained from the steering queue: the first drain point is spent. */
  steeringSpent: boolean;
  /** `FAIL` arrived while the reply streamed: the reply ends as an error with this text. */
  failure: string | undefined;
  /** The typed output this run expects (absent: none). */
  output?: RunOutputState;
  /** The input guardrails have not passed yet: how they run (`blocking` before the first model call). */
  inputCheck?: "blocking" | "parallel";
  /** A finished reply held back until the output guardrails pass (not yet in the transcript). */
  heldReply?: HeldReply;
  /** The guardrail that tripped and ended this run. */
  tripped?: GuardrailTrip;
  /** The run was ended by an error, an abort (`FAIL`, `ABORT`, a failed callback) or its budget. */
  stopReason?: "error" | "aborted" | "budget";
  /** The run's budget and what it used (absent: the run has no budget). */
  ledger?: BudgetLedger;
}

/** A reply that streamed while held: the message, how its tool calls must run, and its events. */
export interface HeldReply {
  message: AssistantMessage;
  sequential: boolean;
  /** Its events (deltas…), emitted once the output guardrails pass (empty for a snapshot of 0.3.0). */
  events: AgentEvent[];
}

/** Behaviour settings of the agent (plain data, persisted). */
export interface AgentSettings {
  toolExecution: "parallel" | "sequential";
  steering: SteeringPolicy;
  steeringMode: QueueMode;
  followUpMode: QueueMode;
  maxTurns: number | undefined;
}

/**
 * The context of `agentMachine`: everything about an agent, as JSON-safe data. Functions (StreamFn,
 * tool implementations, callbacks) are the machine's implementations (`createAgentMachine`), never here.
 */
export interface AgentMachineContext {
  /**
   * The version of this context's shape (`AGENT_FORMAT_VERSION`): a restore checks it, so a snapshot of
   * another version is refused with its version named (`Agent.restore` migrates older ones).
   */
  formatVersion: typeof AGENT_FORMAT_VERSION;
  /** Stable id of this agent; with a tool call id it makes the call's idempotency key. */
  agentId: string;
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
  /** Names of the active tools (implementations: the machine's). */
  toolNames: string[];
  messages: AgentMessage[];
  steering: AgentMessage[];
  followUp: AgentMessage[];
  settings: AgentSettings;
  streamOptions: PersistableStreamOptions;
  /** The error of the last failed turn. */
  errorMessage: string | undefined;
  /** The agent's guardrails by name (implementations: the machine's). */
  guardrails: GuardrailNames;
  /** The machine has between-turn callbacks (else it decides between turns by itself). */
  hasTurnCallbacks: boolean;
  run: RunState | undefined;
  /** This agent is a sub-agent run by that tool call of its parent (see `defineAgentTool`). */
  parentToolCallId?: string;
  /** A sub-agent's place in its tree (its path from the root, the call that runs it). */
  place?: SubAgentPlace;
  /** The types of this agent's events its parent actor also receives, as `AgentParentEvent`s. */
  parentEvents?: AgentEvent["type"][];
  /** The agent a handoff made active (see `defineHandoff`); absent: the agent as it was built. */
  activeAgent?: string;
  /** The budget of each run (a prompt may give its own); absent: none. */
  budget?: AgentBudget;
  /**
   * A sub-agent whose ancestors keep a budget ledger: each of its model calls and tool calls is reserved
   * with them (`RESERVE`, answered by `RESERVATION`) before it starts.
   */
  sharesLedger?: boolean;
}

/** The version of the agent's persisted shape (context and states); 5 since issue 27. */
export const AGENT_FORMAT_VERSION = 5;

/** What a new agent starts from; everything left out takes its default. */
export interface AgentStart {
  agentId?: string;
  model: Model;
  systemPrompt?: string;
  thinkingLevel?: ThinkingLevel;
  toolNames: string[];
  messages?: AgentMessage[];
  settings?: Partial<AgentSettings>;
  streamOptions?: PersistableStreamOptions;
  guardrails?: GuardrailNames;
  hasTurnCallbacks?: boolean;
  parentToolCallId?: string;
  place?: SubAgentPlace;
  parentEvents?: AgentEvent["type"][];
  /** The handoff target the agent starts as (its prompt, tools and model already in the fields above). */
  activeAgent?: string;
  budget?: AgentBudget;
  sharesLedger?: boolean;
}

/** The context of an idle agent with nothing queued: defaults filled in, the transcript copied. */
export function initialAgentContext(start: AgentStart): AgentMachineContext {
  return {
    formatVersion: AGENT_FORMAT_VERSION,
    agentId: start.agentId ?? crypto.randomUUID(),
    systemPrompt: start.systemPrompt ?? "",
    model: start.model,
    thinkingLevel: start.thinkingLevel ?? "off",
    toolNames: [...start.toolNames],
    messages: [...(start.messages ?? [])],
    steering: [],
    followUp: [],
    settings: {
      toolExecution: "parallel",
      steering: "afterToolBatch",
      steeringMode: "one-at-a-time",
      followUpMode: "one-at-a-time",
      maxTurns: undefined,
      ...start.settings,
    },
    streamOptions: { ...start.streamOptions },
    errorMessage: undefined,
    guardrails: start.guardrails ?? { input: [], output: [] },
    hasTurnCallbacks: start.hasTurnCallbacks ?? true,
    run: undefined,
    ...(start.parentToolCallId ? { parentToolCallId: start.parentToolCallId } : {}),
    ...(start.place ? { place: start.place } : {}),
    ...(start.parentEvents?.length ? { parentEvents: [...start.parentEvents] } : {}),
    ...(start.activeAgent ? { activeAgent: start.activeAgent } : {}),
    ...(start.budget ? { budget: { ...start.budget } } : {}),
    ...(start.sharesLedger ? { sharesLedger: true } : {}),
  };
}

/** A sub-agent's place in its tree: its path from the root and the call that runs it (data). */
export interface SubAgentPlace {
  /** Tool call ids from the root down to this agent. */
  path: string[];
  /** The call's validated arguments (its spec is the agent tool's `agent(args)`). */
  args: unknown;
  toolName: string;
}

/** The part of an agent's context its callbacks see, as data (handed to the actors that call them). */
export interface AgentView {
  systemPrompt: string;
  messages: AgentMessage[];
  toolNames: string[];
}

/**
 * What the parent of an agent actor receives for each event whose type its input names in
 * `parentEvents`: `agent.<event type>` (e.g. `agent.tool_approval_request`) with the event and the
 * agent's id — so an app machine that invokes the agent handles its events in its own transitions.
 */
export type AgentParentEvent = {
  [TType in AgentEvent["type"]]: {
    type: `agent.${TType}`;
    agentId: string;
    event: Extract<AgentEvent, { type: TType }>;
  };
}[AgentEvent["type"]];

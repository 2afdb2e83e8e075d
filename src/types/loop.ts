import type { InspectionEvent, Observer } from "xstate";
import type { AgentEvent } from "./events.js";
import type { AgentMessage, AssistantMessage, Message, ToolCall, ToolResultMessage } from "./messages.js";
import type { Model, ThinkingLevel } from "./model.js";
import type { StreamFn, StreamOptions } from "./stream.js";
import type { AgentTool, ToolResult } from "./tool.js";

/** What the loop works on: the system prompt, the transcript so far and the tools. */
export interface AgentContext {
  systemPrompt: string;
  messages: AgentMessage[];
  tools: AgentTool[];
}

/** Passed to `beforeToolCall`. `args` are the validated arguments; changing them changes what runs. */
export interface BeforeToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: ToolCall;
  args: unknown;
  context: AgentContext;
}

export interface BeforeToolCallResult {
  block?: boolean;
  reason?: string;
}

export interface AfterToolCallContext extends BeforeToolCallContext {
  result: ToolResult;
  isError: boolean;
}

/** Fields returned by `afterToolCall` replace those of the result (no deep merge). */
export interface AfterToolCallResult {
  content?: ToolResult["content"];
  details?: unknown;
  isError?: boolean;
  terminate?: boolean;
}

/** Passed to `prepareNextTurn` and `shouldStopAfterTurn` after every turn. */
export interface TurnEndContext {
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  context: AgentContext;
  /** Messages added by this run so far. */
  newMessages: AgentMessage[];
}

export interface NextTurnUpdate {
  context?: AgentContext;
  model?: Model;
  thinkingLevel?: ThinkingLevel;
}

/** A value, or a promise of it: every loop callback may be sync or async. */
export type MaybePromise<T> = T | Promise<T>;

/** Where steering arrives: after the whole tool batch (default) or after each settled tool. */
export type SteeringPolicy = "afterToolBatch" | "betweenTools";

/**
 * The functions an agent calls, and its runtime-only stream options (API key, headers, payload hooks:
 * never persisted). They are read when they are needed (getters work), never copied into the agent
 * machine's context, and supplied again when a persisted agent is restored. Every callback may be
 * async. Callbacks should not throw; if one does, the run ends with an assistant error message and
 * `agent_end` (tool hooks: an error tool result).
 */
export interface AgentCallbacks extends Omit<StreamOptions, "signal" | "reasoning"> {
  streamFn: StreamFn;
  /** Maps the transcript to model messages. Default: keep user, assistant and toolResult messages. */
  convertToLlm?: (messages: AgentMessage[]) => MaybePromise<Message[]>;
  /** Prunes or injects messages before `convertToLlm`; its result is not written back. */
  transformContext?: (messages: AgentMessage[], signal: AbortSignal) => MaybePromise<AgentMessage[]>;
  /**
   * External steering source, polled at run start and after each turn together with the agent's own
   * queue; returns (and removes from its queue) messages to inject.
   */
  getSteeringMessages?: () => MaybePromise<AgentMessage[]>;
  /** External follow-up source, polled only when the loop would otherwise stop. */
  getFollowUpMessages?: () => MaybePromise<AgentMessage[]>;
  /**
   * Receives external-source messages that were drained but could not be delivered because the run was
   * aborted. When the abort lands while a poll is still running, this is called once the poll returns —
   * possibly after `agent_end`.
   */
  restoreQueuedMessages?: (queue: "steering" | "followUp", messages: AgentMessage[]) => void;
  /** Before a validated call runs; `{ block: true, reason }` answers it with an error result instead. */
  beforeToolCall?: (
    ctx: BeforeToolCallContext,
    signal: AbortSignal,
  ) => MaybePromise<BeforeToolCallResult | undefined>;
  /** After a call ran; returned fields replace the result's. */
  afterToolCall?: (
    ctx: AfterToolCallContext,
    signal: AbortSignal,
  ) => MaybePromise<AfterToolCallResult | undefined>;
  /** After every turn: may replace the context, model or thinking level for the next request. */
  prepareNextTurn?: (ctx: TurnEndContext) => MaybePromise<NextTurnUpdate | undefined>;
  /** After every turn: `true` ends the run. */
  shouldStopAfterTurn?: (ctx: TurnEndContext) => MaybePromise<boolean>;
  /** Value passed to every tool's `execute` as `context`. */
  toolContext?: unknown;
}

/** Configuration of one functional loop run (`agentLoop`, `createAgentLoopActor`). */
export interface AgentLoopConfig extends AgentCallbacks {
  model: Model;
  toolExecution?: "parallel" | "sequential";
  steering?: SteeringPolicy;
  /** The run ends (normally) after this many turns. */
  maxTurns?: number;
  signal?: AbortSignal;
  thinkingLevel?: ThinkingLevel;
  /** XState inspection observer, passed to the agent actor and all of its children. */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
}

/** Receives every AgentEvent of a run synchronously, in order. */
export type AgentEventSink = (event: AgentEvent) => void;

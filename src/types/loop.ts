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
  /**
   * Set when a sub-agent makes the call (see docs/subagents.md): the tool call ids from the root agent
   * down to that sub-agent. An `AgentHarness` runs its `tool_call` / `tool_result` hooks for every
   * depth with it.
   */
  agentPath?: readonly string[];
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
 * machine's context, and supplied again when a persisted agent is restored. Every callback runs in an
 * invoked actor (or the stream actor), never while the machine computes a transition, and may be
 * sync or async. A callback that throws ends the run with an assistant error message and `agent_end`
 * (tool hooks: an error tool result for that call); none of them makes `prompt()` reject.
 */
export interface AgentCallbacks extends Omit<StreamOptions, "signal" | "reasoning"> {
  /**
   * Calls the model: one request, one stream of `AssistantMessageEvent`s ending with `done` or `error`.
   *
   * Contract: may be async (a Promise of the stream); throwing, erroring or ending without a final
   * event becomes an assistant message with `stopReason: "error"`; must follow `options.signal`.
   *
   * ```ts
   * import { scriptedModel } from "agentchart/testing";
   * const callbacks: AgentCallbacks = { streamFn: scriptedModel([{ text: "Hi!" }]) }; // or openai() of agentchart/openai
   * ```
   */
  streamFn: StreamFn;
  /**
   * Maps the transcript to what the model understands, before every request. Default: keep user,
   * assistant and toolResult messages (custom messages are the app's to convert).
   *
   * Contract: may be async; a throw fails the model call (an error reply); must not mutate its input.
   *
   * ```ts
   * import { defaultConvertToLlm } from "agentchart/machines";
   * // The model sees the last 50 messages only.
   * const callbacks: AgentCallbacks = { streamFn, convertToLlm: (messages) => defaultConvertToLlm(messages.slice(-50)) };
   * ```
   */
  convertToLlm?: (messages: AgentMessage[]) => MaybePromise<Message[]>;
  /**
   * Prunes or injects messages before `convertToLlm` (e.g. a sliding window); its result is what the
   * model sees, never written back to the transcript.
   *
   * Contract: may be async and should follow `signal`; a throw fails the model call.
   *
   * ```ts
   * const callbacks: AgentCallbacks = { streamFn, transformContext: (messages) => messages.slice(-40) };
   * ```
   */
  transformContext?: (messages: AgentMessage[], signal: AbortSignal) => MaybePromise<AgentMessage[]>;
  /**
   * An external steering source, polled at run start and after each turn together with the agent's
   * own queue; returns (and removes from its queue) the messages to inject.
   *
   * Contract: may be async; must return an array (else the run ends with a TypeError); a throw ends
   * the run; messages drained by a poll that an abort overtook go back through `restoreQueuedMessages`.
   *
   * ```ts
   * import type { AgentMessage } from "agentchart";
   * const inbox: AgentMessage[] = []; // the app pushes what the user types during a run
   * const callbacks: AgentCallbacks = { streamFn, getSteeringMessages: () => inbox.splice(0) };
   * ```
   */
  getSteeringMessages?: () => MaybePromise<AgentMessage[]>;
  /**
   * An external follow-up source, polled only when the loop would otherwise stop.
   *
   * Contract: as `getSteeringMessages`.
   *
   * ```ts
   * import type { AgentMessage } from "agentchart";
   * declare const queue: { take(): Promise<AgentMessage[] | undefined> }; // the app's own queue
   * const callbacks: AgentCallbacks = { streamFn, getFollowUpMessages: async () => (await queue.take()) ?? [] };
   * ```
   */
  getFollowUpMessages?: () => MaybePromise<AgentMessage[]>;
  /**
   * Receives external-source messages that were drained but could not be delivered because the run
   * was aborted. When the abort lands while a poll is still running, this is called once the poll
   * returns — possibly after `agent_end`.
   *
   * Contract: synchronous and must not throw (it runs as an action of the agent actor after the run
   * ended or while a poll returns; keep the messages somewhere safe and return).
   *
   * ```ts
   * import type { AgentMessage } from "agentchart";
   * const inbox: AgentMessage[] = [];
   * const callbacks: AgentCallbacks = {
   *   streamFn,
   *   getSteeringMessages: () => inbox.splice(0),
   *   restoreQueuedMessages: (queue, messages) => inbox.unshift(...messages),
   * };
   * ```
   */
  restoreQueuedMessages?: (queue: "steering" | "followUp", messages: AgentMessage[]) => void;
  /**
   * Before a validated call runs (after `prepareArguments` and zod, before approval):
   * `{ block: true, reason }` answers it with an error result instead; changing `ctx.args` changes
   * what runs (approval is decided on the arguments the hook left).
   *
   * Contract: may be async and should follow `signal`; a throw, or an abort meanwhile, is that call's
   * error result; the other calls go on.
   *
   * ```ts
   * const callbacks: AgentCallbacks = {
   *   streamFn,
   *   beforeToolCall: ({ toolCall }) => (toolCall.name === "rm" ? { block: true, reason: "no deleting" } : undefined),
   * };
   * ```
   */
  beforeToolCall?: (
    ctx: BeforeToolCallContext,
    signal: AbortSignal,
  ) => MaybePromise<BeforeToolCallResult | undefined>;
  /**
   * After a call ran (or a client answered it): returned fields replace the result's (no deep merge).
   *
   * Contract: may be async; a throw makes the call's result an error naming it.
   *
   * ```ts
   * const callbacks: AgentCallbacks = { streamFn, afterToolCall: ({ result }) => ({ content: result.content.slice(0, 1) }) };
   * ```
   */
  afterToolCall?: (
    ctx: AfterToolCallContext,
    signal: AbortSignal,
  ) => MaybePromise<AfterToolCallResult | undefined>;
  /**
   * After every turn: may replace the context, model or thinking level for the next request.
   *
   * Contract: may be async; a throw ends the run with an error message.
   *
   * ```ts
   * import { getModel } from "agentchart";
   * const bigModel = getModel("gpt-4.1");
   * const callbacks: AgentCallbacks = {
   *   streamFn,
   *   prepareNextTurn: ({ context }) => (context.messages.length > 50 ? { model: bigModel } : undefined),
   * };
   * ```
   */
  prepareNextTurn?: (ctx: TurnEndContext) => MaybePromise<NextTurnUpdate | undefined>;
  /**
   * After every turn (after `prepareNextTurn`): `true` ends the run normally.
   *
   * Contract: may be async; a throw ends the run with an error message.
   *
   * ```ts
   * const callbacks: AgentCallbacks = {
   *   streamFn,
   *   shouldStopAfterTurn: ({ toolResults }) => toolResults.some((r) => r.toolName === "finish"),
   * };
   * ```
   */
  shouldStopAfterTurn?: (ctx: TurnEndContext) => MaybePromise<boolean>;
  /** Value passed to every tool's `execute` as `ctx.context` (e.g. `{ cwd }`); not persisted. */
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

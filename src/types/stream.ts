import type { Observable } from "rxjs";
import type { AssistantMessage, Message, ToolCall } from "./messages.js";
import type { Model, ThinkingLevel } from "./model.js";

/**
 * One event of a streamed assistant reply (pi-ai's protocol). Every event but `done` and `error`
 * carries `partial`, the assistant message built so far. The last event of a stream is `done` or `error`.
 * A `toolcall_delta`'s `delta` is the next piece of the call's JSON arguments text; the arguments
 * parsed so far are in `partial.content[contentIndex].arguments` (see `ToolCall.arguments`).
 */
export type AssistantMessageEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  | { type: "done"; reason: "stop" | "length" | "toolUse"; message: AssistantMessage }
  | { type: "error"; reason: "error" | "aborted"; error: AssistantMessage };

/** A tool as described to the model: name, description and JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * The typed output a reply must carry as JSON text (see docs/output-and-guardrails.md): the agent sets
 * it on a request when a run expects typed output and no tools are active. A provider asks the server
 * for the schema (Chat Completions `response_format`, Responses `text.format`), or, for servers that
 * reject that, describes the schema in the instructions.
 */
export interface OutputRequest {
  /** The schema's name for the server (`[A-Za-z0-9_-]`, ≤ 64 characters). */
  name: string;
  /** JSON Schema of the value (from `z.toJSONSchema`). */
  schema: Record<string, unknown>;
  /** Whether the schema satisfies OpenAI's strict mode (every property required, no extra keys). */
  strict: boolean;
}

/** What a StreamFn sends to the model. Read-only: `messages` may be the agent's own transcript array. */
export interface LlmContext {
  systemPrompt: string;
  messages: Message[];
  tools: ToolSpec[];
  /** The reply must be JSON text matching this schema (absent: any reply). */
  output?: OutputRequest;
}

/** Options passed to every StreamFn call. Never persisted (they may hold API keys). */
export interface StreamOptions {
  /** Aborts the request; the stream must then end with an `error` event of reason "aborted". */
  signal?: AbortSignal;
  /** Thinking level for reasoning models; absent when the level is "off". */
  reasoning?: Exclude<ThinkingLevel, "off">;
  sessionId?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  metadata?: Record<string, unknown>;
  maxTokens?: number;
  temperature?: number;
  /**
   * Prompt caching, for providers that cache on request (Anthropic through `agentchart/ai-sdk`):
   * "none" sets no cache points, "short" the provider's default lifetime (5 minutes), "long" its
   * longest (1 hour). Absent: the provider's default ("short" for Anthropic models).
   */
  cacheRetention?: "none" | "short" | "long";
  timeoutMs?: number;
  maxRetries?: number;
  /** Sees (and may replace) the provider request body just before it is sent. */
  onPayload?: (payload: unknown, model: Model) => unknown | Promise<unknown>;
  /** Observes the HTTP status and headers of the provider response. */
  onResponse?: (
    response: { status: number; headers: Record<string, string> },
    model: Model,
  ) => void | Promise<void>;
}

/**
 * Stream options that are plain data and may be persisted with the agent. API keys, headers and
 * callbacks are options of `createAgentMachine` (its `AgentCallbacks`) and never part of the context.
 */
export type PersistableStreamOptions = Pick<
  StreamOptions,
  "sessionId" | "metadata" | "maxTokens" | "temperature" | "timeoutMs" | "maxRetries"
>;

/** A stream of assistant events in any of the shapes a StreamFn may return. */
export type AssistantEventSource = Observable<AssistantMessageEvent> | AsyncIterable<AssistantMessageEvent>;

/**
 * Streams one assistant reply. May return an Observable or AsyncIterable of events, or a Promise of
 * either. Contract: the last event is `done` or `error`; provider failures should be encoded as an
 * `error` event. If the function throws, errors, or ends without a final event anyway, the loop turns
 * that into an assistant message with `stopReason: "error"` — it never hangs.
 */
export type StreamFn = (
  model: Model,
  context: LlmContext,
  options: StreamOptions,
) => AssistantEventSource | Promise<AssistantEventSource>;

/** Plain text content block. */
export interface TextContent {
  type: "text";
  text: string;
  textSignature?: string;
}

/** Model reasoning ("thinking") content block. */
export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  redacted?: boolean;
}

/** Base64-encoded image content block. */
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
}

/** A tool call requested by the model; `arguments` is the parsed JSON object. */
export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  /**
   * The arguments the model sent, parsed. While the call streams (between `toolcall_start` and
   * `toolcall_end`), the providers of this package fill it with a best-effort parse of the JSON
   * received so far (an unfinished string shows as far as it came), so a UI can show arguments as
   * they arrive; treat it as read-only until the call ends.
   */
  arguments: Record<string, unknown>;
  /**
   * Present when the model finished this call with arguments that are not valid JSON (or not a JSON
   * object); `arguments` is then `{}`. `raw` is the text received, `error` the parser's message. The
   * loop does not run such a call: it answers it with an error result quoting both, so the model
   * can send the call again. Absent on calls cut short by a reply that stopped at "length".
   */
  invalidArguments?: InvalidToolArguments;
  thoughtSignature?: string;
}

/** Arguments a model sent that could not be parsed (see `ToolCall.invalidArguments`). */
export interface InvalidToolArguments {
  /** The arguments text exactly as received. */
  raw: string;
  /** Why it was rejected, e.g. the JSON parser's message. */
  error: string;
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** Dollar cost of one request, split like the token counts. */
export interface UsageCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** Token counts and cost of one assistant reply. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: UsageCost;
}

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  /** Milliseconds since the epoch. */
  timestamp: number;
}

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: string;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  timestamp: number;
}

export interface ToolResultMessage<TDetails = unknown> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  isError: boolean;
  /** Model usage spent producing the result: an agent tool's child run, its descendants included. */
  usage?: Usage;
  timestamp: number;
}

/** The messages a model understands. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * App-defined message kinds. Extend with declaration merging:
 * ```ts
 * declare module "agentchart" {
 *   interface CustomAgentMessages { note: { role: "note"; text: string; timestamp: number } }
 * }
 * ```
 * Custom messages live in the transcript; `convertToLlm` decides what the model sees of them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: extension point for declaration merging
export interface CustomAgentMessages {}

/** Any message of the transcript: model messages plus app-defined ones. */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

/** A usage record with every count and cost at zero. */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** True for the three roles a model understands (user, assistant, toolResult). */
export function isLlmMessage(message: AgentMessage): message is Message {
  const role = (message as { role?: unknown }).role;
  return role === "user" || role === "assistant" || role === "toolResult";
}
